"""What storing a parsed version does to the version already stored under its label: the merge policy.

Pure decisions, no SQL (kb.store.writer carries them out). Fragments of one version (quotes, single
pages) merge; a whole text supersedes the fragments; a whole stored text is replaced only by a whole
text with at least as many clauses — a truncated or shorter one is refused (InputError at its file and
line) unless the user asked for ``replace``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kb import ruleid
from kb.errors import InputError
from kb.model import ParsedVersion, RuleNode
from kb.store.records import LABEL_DATE


@dataclass
class Plan:
    """What to do with a stored version when another text of it arrives."""

    replacing: bool  # drop the stored nodes and terms first
    partial: bool  # whether the version is partial afterwards
    notes: list[str] = field(default_factory=list)

    @property
    def merging(self) -> bool:
        """New nodes join the stored ones (which then need renumbering)."""
        return not self.replacing


def plan(pv: ParsedVersion, was_partial: bool, stored_rules: Callable[[], list[str]], path: str, replace: bool) -> Plan:
    """The plan for adding ``pv`` to the stored version (``was_partial``; ``stored_rules()`` its ids in order)."""
    if not was_partial and (pv.truncated_at or not pv.partial):
        notes = _replacement_notes(pv, stored_rules(), path, replace)  # refuses unless allowed
        return Plan(replacing=True, partial=pv.partial, notes=notes)
    # A whole text supersedes the fragments (quotes, single pages) seen so far; fragments merge.
    replacing = was_partial and not pv.partial
    return Plan(replacing=replacing, partial=pv.partial and (was_partial or replacing))


def merged_meta(stored: dict, new: dict, plan: Plan) -> dict:
    """The version's meta afterwards: a replacing text's keys win; merged fragments only add keys."""
    meta = dict(stored)
    meta.update({k: v for k, v in new.items() if k not in meta or not plan.merging})
    return meta


def dated_by_effective(pv: ParsedVersion) -> bool:
    """True when the version's order comes from its effective date (its label carries no date)."""
    return pv.effective is not None and not LABEL_DATE.match(pv.label)


def fresh_nodes(stored: dict[str, str], nodes: list[RuleNode]) -> tuple[list[RuleNode], list[str]]:
    """The nodes not stored yet (``stored``: rule -> content hash), and a note for each clause whose
    stored text differs (the stored text is kept)."""
    fresh, notes = [], []
    for node in nodes:
        if node.rule not in stored:
            fresh.append(node)
        elif stored[node.rule] != node.content_hash():
            notes.append(f"{node.rule}: this document's text differs from the one already stored; kept the stored text")
    return fresh, notes


def renumbered(rules: list[str]) -> list[tuple[int, str, str | None]]:
    """``(position, rule, parent)`` of merged fragments: clause-id order, each under its nearest present ancestor."""
    rules = sorted(rules, key=ruleid.sort_key)
    present = set(rules)
    return [
        (i, rule, next((a for a in reversed(ruleid.ancestors(rule)) if a in present), None))
        for i, rule in enumerate(rules)
    ]


def _replacement_notes(pv: ParsedVersion, stored: list[str], path: str, replace: bool) -> list[str]:
    """Refuse to replace a whole stored text with a truncated or shorter one unless ``replace``; say what happened."""
    name = f"{pv.game}/{pv.lang}/{pv.label}"
    stored_clauses = sum(1 for r in stored if "." in r)
    new_clauses = sum(1 for n in pv.nodes if "." in n.rule)
    if pv.truncated_at:
        if not replace:
            raise InputError(
                f"the text ends early ({pv.truncated_why or 'cut off'}; {new_clauses} clauses) but the KB holds "
                f"a whole text of {name} ({stored_clauses} clauses): not replacing it (--replace to do so)",
                path=path,
                line=pv.truncated_at,
            )
        return [
            f"version {name} held a whole text ({stored_clauses} clauses): replaced it with this truncated "
            f"one ({new_clauses} clauses), kept as partial"
        ]
    if new_clauses < stored_clauses and not replace:
        have = {n.rule for n in pv.nodes}
        missing = next((r for r in stored if "." in r and r not in have), None) or "?"
        before = [n for n in pv.nodes if ruleid.sort_key(n.rule) < ruleid.sort_key(missing)]
        line = before[-1].line if before else (pv.nodes[0].line if pv.nodes else 1)
        raise InputError(
            f"{new_clauses} clauses where the KB's {name} has {stored_clauses} ({missing} is missing here): "
            "not replacing a whole text with a shorter one (--replace to do so)",
            path=path,
            line=line,
        )
    return [f"version {name} already held a whole text ({stored_clauses} clauses): replaced it ({new_clauses} clauses)"]
