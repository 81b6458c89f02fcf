"""Clause ids of the English rules as written, checked and repaired: a typo is read by general rules, a
repeated line dropped, and a line out of its place reported (``ingest.damage``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from ingest.damage import next_letters
from ingest.glossary_en import Lines
from kb.model import Diagnostic, RuleNode


@dataclass
class Item:
    """A heading or clause as written, before its id is checked: ``raw`` = (rule, num|None, letters)."""

    kind: str  # "section" | "rule" | "clause"
    raw: tuple[int, int | None, str]
    line: int
    node: RuleNode
    spelled: str = ""
    indent: int = 0
    text: Lines = field(default_factory=Lines)  # the node's text and examples, built line by line
    examples: list[Lines] = field(default_factory=list)


_ID = re.compile(r"^([1-9]\d{2})(?:\.(\d{1,3})([a-z]{0,2}))?$|^([1-9])$")


@lru_cache(maxsize=1 << 16)
def _split(rid: str) -> tuple[int, int | None, str]:
    """(rule, num, letters) of an id this parser wrote; a section is (n, None, "")."""
    m = _ID.match(rid)
    if m.group(4):
        return int(m.group(4)), None, ""
    return int(m.group(1)), int(m.group(2)) if m.group(2) else None, m.group(3) or ""


@lru_cache(maxsize=1 << 16)
def _key(rid: str) -> tuple | None:
    """``ruleid.sort_key`` for the ids written here, without its normalising (it runs per clause)."""
    m = _ID.match(rid)
    if m is None:
        return None
    if m.group(4):
        return (int(m.group(4)), -1, -1, 0, "")
    rule, num, sub = int(m.group(1)), m.group(2), m.group(3) or ""
    return (rule // 100, rule, int(num) if num else -1, len(sub), sub)


REPEATED = "="  # a line that repeats a clause word for word: dropped


def _fmt(rule: int, num: int | None, sub: str) -> str:
    return f"{rule}" if num is None else f"{rule}.{num}{sub}"


class Numberer:
    """Give each clause its id, repairing real typos by general rules (never by a list of ids).

    A clause id that is a duplicate, out of order, under the wrong rule, or missing its clause
    number is read, in turn, as: the current rule's number with the same clause ("605.2c" under
    rule 609 -> 609.2c); the previous clause's number with the letters written ("306.b" after
    306.3a -> 306.3b; "306.1c" after 306.3b -> 306.3c); the next letter ("702.30d" twice -> 702.30e).
    A main clause whose number jumps while the next line is a sub-clause of the expected number
    ("505.54" then "505.5a") takes the expected number. Each repair is a warning; a clause that
    cannot be repaired is kept as a paragraph of the clause before it, with a warning.

    A repair must never move genuine ids: one that would push the next clause's id, valid as
    written, out of sequence is not made ("509.1c" written twice before "509.1d" is not a typo for
    509.1d). Such a line stays text of the clause before it, and is listed in ``unplaced``: where
    its id is missing from the text and belongs (lines swapped), the text is damaged (ingest.damage).
    A line that repeats a clause word for word is a repeat, not a typo: it is dropped, as the
    Japanese parser drops a line printed twice.
    """

    def __init__(self, path: str):
        self.path = path
        self.seen: dict[str, int] = {}
        self.texts: dict[str, str] = {}  # clause id -> its text as first read (to tell a repeated line)
        self.last: str | None = None
        self.last_key: tuple | None = None
        self.prev: tuple[int, int, str] | None = None  # last accepted clause
        self.heading_rule: int | None = None
        self.under_heading = 0  # clauses accepted under the current rule heading
        self.diags: list[Diagnostic] = []
        self.first: dict[str, Item] = {}  # clause id -> the item that holds it
        self.unplaced: list[tuple[int, str, str]] = []  # (line, id as written, id before it) kept as text

    def _fits(self, rid: str) -> bool:
        key = _key(rid)
        return key is not None and rid not in self.seen and (self.last_key is None or key > self.last_key)

    def _warn(self, line: int, message: str) -> None:
        self.diags.append(Diagnostic(self.path, line, message, "warning"))

    def number(self, items: list[Item]) -> tuple[list[RuleNode], list[Diagnostic]]:
        accepted: list[Item] = []
        clause_idx = [i for i, it in enumerate(items) if it.kind == "clause"]
        following = {a: items[b] for a, b in zip(clause_idx, clause_idx[1:], strict=False)}
        for i, item in enumerate(items):
            rid = self._heading_id(item) if item.kind != "clause" else self._clause_id(item, following.get(i))
            if rid == REPEATED:
                self._keep_examples(accepted, item)
                continue
            if rid is None:
                self._merge(accepted, item)
                continue
            self.first[rid] = item
            item.node.rule = rid
            item.node.parent = self._parent(rid)
            self.seen[rid] = item.line
            self.texts[rid] = str(item.text)
            self.last, self.last_key = rid, _key(rid)
            accepted.append(item)
        for item in accepted:
            item.node.text = str(item.text)
            item.node.examples = [str(e) for e in item.examples]
        return [item.node for item in accepted], self.diags

    def _parent(self, rid: str) -> str | None:
        """The nearest ancestor already read (what ``link_tree`` would find, without its per-node parsing)."""
        rule, num, sub = _split(rid)
        if num is None and rule < 10:
            return None
        chain = [str(rule // 100), str(rule)] + ([f"{rule}.{num}"] if sub else [])
        chain = chain[: 1 if num is None else len(chain)]
        return next((a for a in reversed(chain) if a in self.seen), None)

    def _heading_id(self, item: Item) -> str | None:
        rid = item.node.rule
        if not self._fits(rid):
            why = (
                f"duplicate (first at line {self.seen[rid]})" if rid in self.seen else f"out of order after {self.last}"
            )
            self._warn(item.line, f"heading {rid} {why}; kept as text of the clause before it")
            return None
        if item.kind == "rule":
            self.heading_rule, self.under_heading = item.raw[0], 0
        return rid

    def _clause_id(self, item: Item, nxt: Item | None) -> str | None:
        rule, num, sub = item.raw
        prev = self.prev
        same_rule_prev = prev if prev and prev[0] == rule else None
        wrong_rule = self.heading_rule is not None and rule != self.heading_rule and self.under_heading > 0
        written = _fmt(rule, num, sub) if num is not None else ""
        candidates: list[str] = []
        if num is not None and not wrong_rule and self._fits(written):
            jump = (
                not sub
                and same_rule_prev
                and nxt is not None
                and num != same_rule_prev[1] + 1
                and nxt.raw[:2] == (rule, same_rule_prev[1] + 1)
                and nxt.raw[2]
            )
            if not jump:
                return self._accept(written, item, rule)
            candidates.append(_fmt(rule, same_rule_prev[1] + 1, ""))
        if wrong_rule and prev:
            candidates.append(_fmt(self.heading_rule, num if num is not None else prev[1], sub))
        if same_rule_prev and (num is None or (sub and sub == next_letters(same_rule_prev[2]))):
            candidates.append(_fmt(rule, same_rule_prev[1], sub))
        if same_rule_prev and sub and same_rule_prev[1] == num:
            candidates.append(_fmt(rule, num, next_letters(same_rule_prev[2])))
        repeat = written in self.texts and self.texts[written] == str(item.text)
        for cand in candidates:
            if self._fits(cand) and not repeat and not self._shifts_next(cand, nxt):
                self._warn(item.line, f"clause id {item.spelled or written} read as {cand}")
                return self._accept(cand, item, _split(cand)[0])
        if written and self._fits(written):  # e.g. the rule's heading is missing: trust the id as written
            return self._accept(written, item, rule)
        if repeat:
            self._warn(
                item.line,
                f"clause id {item.spelled or written} repeats line {self.seen[written]} word for word "
                f"(after {self.last}); the repeat is dropped",
            )
            return REPEATED
        why = "duplicate" if written in self.seen else "out of order" if written else "without a clause number"
        if written:
            self.unplaced.append((item.line, written, self.last or ""))
        self._warn(
            item.line,
            f"clause id {item.spelled or written} {why} (after {self.last}); kept as text of the clause before it",
        )
        return None

    def _shifts_next(self, cand: str, nxt: Item | None) -> bool:
        """True if reading this line as ``cand`` would put the next clause, valid as written, out of sequence."""
        if nxt is None or nxt.raw[1] is None:
            return False
        following = _fmt(*nxt.raw)
        key = _key(following)
        return self._fits(following) and key is not None and key <= _key(cand)

    def _accept(self, rid: str, item: Item, rule: int) -> str:
        self.prev = _split(rid)
        if rule == self.heading_rule:
            self.under_heading += 1
        return rid

    def _keep_examples(self, accepted: list[Item], item: Item) -> None:
        """A dropped repeat's examples that its first line lacks go to the clause before it."""
        known = {str(e) for e in self.first[item.node.rule or _fmt(*item.raw)].examples}
        if accepted:
            accepted[-1].examples.extend(e for e in item.examples if str(e) not in known)

    @staticmethod
    def _merge(accepted: list[Item], item: Item) -> None:
        """Keep an unnumberable line's words: append it to the node before it."""
        if not accepted:
            return
        words = " ".join(x for x in (item.spelled, item.node.title, str(item.text)) if x)
        accepted[-1].text.add(words, True)
        accepted[-1].examples.extend(item.examples)
