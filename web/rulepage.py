"""The parts of a clause page beyond the clause itself: every sub-clause in full, links, citations."""

from __future__ import annotations

import re

from kb import ruleid
from kb.store import NodeRecord, Store, VersionInfo
from kb.versions import editions, staleref, termlinks
from web.pages import clause_url, glossary_url
from web.text import reference_segments

# A rule page shows its clauses in full up to this many (702 Keyword Abilities has about 900).
MAX_FULL = 1500
_LEVELS = {"section": 0, "rule": 1, "clause": 2, "subclause": 3}


class References:
    """Where a version's cited clause ids link: its own text, else the English edition it renders
    (kb.versions.editions); never another edition by number, where the same number may be another rule."""

    def __init__(self, s: Store, game: str, lang: str, v: VersionInfo):
        self.s, self.game, self.lang, self.v = s, game, lang, v
        self.present = set(s.rules(v))
        self._cache: dict[str, str | None] = {}
        self.stale: dict[str, dict[int, dict]] = {}  # clause -> start of a printed span -> its fix
        for (clause, start), fix in staleref.by_span(v).items():
            self.stale.setdefault(clause, {})[start] = fix
        self.terms = termlinks.linker(s, v)

    def segments(self, n: NodeRecord) -> list[list]:
        """The text of clause ``n`` with its references linked (stale numbers to the rule meant) and the
        terms its glossary defines linked to their entries."""
        terms = self.terms.spans(n.text, n.hash, n.rule) if self.terms is not None else None
        return reference_segments(n.text, n.references, self.url, self.stale.get(n.rule), terms, self.term_url)

    def term_url(self, term: str) -> str:
        return glossary_url(self.game, self.lang, term)

    def listed(self, n: NodeRecord) -> list[dict]:
        """The references of clause ``n`` for the 参照 line: each linked, a stale one to the rule meant."""
        fixes = self.stale.get(n.rule, {})
        out = []
        for r in n.references:
            fix = fixes.get(r.start)
            meant = dict(map(tuple, fix["rules"])).get(r.rule) if fix else None
            rule = meant or r.rule
            out.append(
                {"rule": rule, "raw": r.raw, "url": self.url(rule), "printed": r.rule if rule != r.rule else None}
            )
        return out

    def url(self, target: str) -> str | None:
        """The URL of the clause ``target`` as this version cites it; None when nothing holds it."""
        if target not in self._cache:
            found = editions.resolve_reference(self.s, self.v, target, self.present)
            self._cache[target] = clause_url(self.game, found[0].lang, found[0].label, target) if found else None
        return self._cache[target]


def depth(rule: str) -> int:
    return _LEVELS[ruleid.level(rule)] if ruleid.parse(rule) else 2


def descendants(s: Store, v: VersionInfo, rule: str, refs: References) -> list[dict]:
    """Every clause below a rule or clause, in full, each with its anchor (``#509.1c``) and heading level."""
    if ruleid.parse(rule) is None or ruleid.level(rule) == "section":
        return []  # a section page lists its rules; the rules show their clauses
    base = depth(rule)
    out = []
    for n in s.descendants(v, rule)[:MAX_FULL]:
        out.append(_full(n, v, refs, heading=min(6, 2 + depth(n.rule) - base - 1)))
    return out


def _full(n: NodeRecord, v: VersionInfo, refs: References, heading: int) -> dict:
    return {
        "rule": n.rule,
        "depth": depth(n.rule),
        "heading": heading,
        "title": n.title,
        "text": n.text,
        "segments": refs.segments(n),
        "examples": n.examples,
        "notes": n.notes,
        "url": clause_url(v.game, v.lang, v.label, n.rule),
        "anchor": "#" + n.rule,
    }


def citation(v: VersionInfo, rule: str) -> str:
    """How a judge cites the clause: ``CR 509.1c (2026-01-16)`` (the edition's date, as in its URL);
    Duel Masters ``総合ゲームルール 506.1 (Ver.1.48)``; an undated translation by its label."""
    if v.game == "dm":
        return f"総合ゲームルール {rule} (Ver.{v.label})"
    m = re.match(r"(\d{4})(\d{2})(\d{2})", v.label)
    return f"CR {rule} ({m.group(1)}-{m.group(2)}-{m.group(3)})" if m else f"CR {rule} ({v.label})"


def has_language(s: Store, game: str, lang: str) -> bool:
    """True when the KB holds any version of ``game`` in ``lang`` (Duel Masters has no English text)."""
    return bool(s.versions(game, lang))


def pair_descendants(s: Store, below: list[dict], other: VersionInfo, rule: str) -> int:
    """Give each clause of a rule page its text in the other language (``other``: the paired edition,
    numbered alike), so the page reads in two columns instead of beside one empty heading. Returns how
    many clauses found theirs."""
    nodes = {n.rule: n for n in s.descendants(other, rule)}
    found = 0
    for d in below:
        n = nodes.get(d["rule"])
        d["other"] = (
            {
                "rule": n.rule,
                "title": n.title,
                "text": n.text,
                "examples": n.examples,
                "url": clause_url(other.game, other.lang, other.label, n.rule),
            }
            if n is not None
            else None
        )
        found += n is not None
    return found
