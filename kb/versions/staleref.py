"""References a translation prints with an outdated rule number, and the rule each one means.

和訳 20260116.0 still cites 「rule 731〔不正な処理の扱い〕」 where its own 731 is 行動の省略: the
translators kept the number the rule had before 721 (Station Cards) pushed 722–731 down by one. The
aligned English clause (kb.versions.align, through the edition the translation renders exactly,
kb.versions.editions) cites the rule meant, so a reference is *stale* when:

1. the English counterpart of the citing clause does not cite the printed id (nor any id of its
   range), and the printed text does not name its own target (the bracketed title 〔…〕 differs from
   the title the translation gives the printed id);
2. among the ids the English clause cites and the Japanese one does not, exactly one of the printed
   id's level is shown to be meant — by the bracketed title (the translation's title of that id is the
   title in brackets), or, when the reference has no title, by the English lineage: the meant clause
   carried the printed id in an earlier edition (the number the translators copied).

Nothing is listed by hand. An English clause that itself cites a stale number (607.2m cites 614.12b
for the anchor words of 614.12c) fails rule 2: 614.12b never was 614.12c, so the correct Japanese
reference is left alone. Found once per build and kept in the version's meta (``stale_references``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from kb import ruleid
from kb.errors import NotFound
from kb.store import NodeRecord, Store, VersionInfo
from kb.versions import align, editions, history

META_KEY = "stale_references"
_TITLE = re.compile(r"〔([^〕]+)〕")


def title_key(title: str) -> str:
    """A title as compared: NFKC, the Japanese name before ／English, no spaces or middle dots."""
    t = unicodedata.normalize("NFKC", title).split("/")[0]
    return re.sub(r"[\s・]", "", t)


class Titles:
    """The headings of one version by title, to read a reference by the title printed beside it."""

    def __init__(self, nodes: list[NodeRecord]):
        self.held = {n.rule for n in nodes}
        self.of = {n.rule: title_key(n.title) for n in nodes if n.title}
        self.by: dict[str, list[str]] = {}
        for rule, key in self.of.items():
            self.by.setdefault(key, []).append(rule)

    def meant(self, rule: str, title: str) -> str | None:
        """The rule 「rule ``rule``〔``title``〕」 means here: ``rule`` itself when held and titled so (or no title
        is printed), else the one heading of that title (a stale number: 731〔不正な処理の扱い〕 is 732), else None."""
        if rule in self.held and (not title or self.of.get(rule) == title_key(title)):
            return rule
        named = self.by.get(title_key(title), []) if title else []
        return named[0] if len(named) == 1 else None


def _spans(n: NodeRecord) -> Iterator[tuple[str, int, int, list[str]]]:
    """Each cited span of a clause once: (raw, start, end, ids it cites; a range cites several)."""
    spans: dict[tuple[int, int], tuple[str, list[str]]] = {}
    for r in n.references:
        spans.setdefault((r.start, r.end), (r.raw, []))[1].append(r.rule)
    for (start, end), (raw, rules) in spans.items():
        yield raw, start, end, rules


def _shift(printed: str, meant: str, other: str) -> str | None:
    """``other`` moved as ``printed`` moved to ``meant`` (727.2a -> 728.2a makes 727.2c 728.2c), when the
    two differ in their rule or clause number alone."""
    p, m, o = ruleid.parse(printed), ruleid.parse(meant), ruleid.parse(other)
    if p is None or m is None or o is None or p[2:] != m[2:] and p[1] != m[1]:
        return None
    if p[1] != m[1] and o[1] == p[1]:
        rule = o[1] + m[1] - p[1]
        rest = other[3:]
        return f"{rule:03d}{rest}"
    if p[2] != m[2] and p[3] == m[3] and o[:2] == p[:2] and o[2] is not None:
        return f"{o[1]:03d}.{o[2] + m[2] - p[2]}{o[3]}"
    return None


def _same_level(a: str, b: str) -> bool:
    return ruleid.parse(a) is not None and ruleid.parse(b) is not None and ruleid.level(a) == ruleid.level(b)


class _Finder:
    """The stale references of one translation against the English edition it renders exactly."""

    def __init__(self, store: Store, v: VersionInfo, edition: VersionInfo):
        self.store, self.v, self.edition = store, v, edition
        pairs = align.align(store, v, edition)["pairs"]
        paired = [(p["a_rule"], p["b_rule"]) for p in pairs if p["status"] == "paired" and p["a_rule"] and p["b_rule"]]
        self.en_of = dict(paired)
        self.ja_of = {b: a for a, b in paired}
        self.ja = {n.rule: n for n in store.nodes(v)}
        self.en = {n.rule: n for n in store.nodes(edition)}
        self.titles = Titles(list(self.ja.values())).of
        self._old_ids: dict[str, set[str]] = {}

    def old_ids(self, rule: str) -> set[str]:
        """Every id the English clause ``rule`` (translation ids) had in the editions before this one."""
        if rule not in self._old_ids:
            en_rule = self.en_of.get(rule, rule)
            try:
                ids = history.lineage_ids(self.store, self.v.game, "en", en_rule, self.edition.label)
            except NotFound:
                ids = []
            before = [r for label, r in ids if label != self.edition.label]
            self._old_ids[rule] = set(before) - {en_rule}
        return self._old_ids[rule]

    def clause(self, n: NodeRecord) -> Iterator[dict]:
        en = self.en.get(self.en_of.get(n.rule, ""))
        if en is None or not n.references:
            return
        cited = {self.ja_of.get(r.rule, r.rule) for r in en.references}
        own = {r.rule for r in n.references}
        for raw, start, end, rules in _spans(n):
            printed = rules[0]
            if cited & set(rules):
                continue
            m = _TITLE.search(raw)
            title = title_key(m.group(1)) if m else ""
            if title and self.titles.get(printed) == title:
                continue  # the text names what it cites: a difference of the translation, not a stale number
            free = sorted((r for r in cited - own if _same_level(r, printed)), key=ruleid.sort_key)
            if title:
                meant = [r for r in free if self.titles.get(r) == title]
            else:
                meant = [r for r in free if printed in self.old_ids(r)]
            if len(meant) != 1:
                continue
            target = meant[0]
            evidence = (["title"] if title else []) + (["renumbered"] if printed in self.old_ids(target) else [])
            if printed not in self.ja:
                evidence.append("dangling")
            moved = [(r, target if r == printed else _shift(printed, target, r)) for r in rules]
            yield {
                "clause": n.rule,
                "start": start,
                "end": end,
                "raw": raw,
                "printed": printed,
                "meant": target,
                "english": self.en_of.get(n.rule, n.rule),
                "evidence": evidence,
                "rules": [[r, m if m in cited else None] for r, m in moved],  # each id of a range
            }


def find(store: Store, v: VersionInfo) -> list[dict]:
    """The stale references of translation ``v``, in document order (empty for English editions and
    for translations without an exact edition pairing: their numbering cannot be checked)."""
    edition = editions.rendered_edition(store, v, exact=True)
    if edition is None:
        return []
    finder = _Finder(store, v, edition)
    return [fix for n in store.nodes(v) for fix in finder.clause(n)]


def precompute(store: Store) -> int:
    """Find the stale references of every translation once per build (a build step after alignment);
    returns how many were found. Each version's meta keeps its list and how many references it checked."""
    total = 0
    for v in store.versions():
        if v.lang == "en":
            continue
        fixes = find(store, v)
        checked = sum(len(list(_spans(n))) for n in store.nodes(v))
        store.update_version_meta(v.id, **{META_KEY: {"fixes": fixes, "checked": checked}})
        total += len(fixes)
    return total


def stored(v: VersionInfo) -> dict:
    """What the build found for version ``v``: ``{"fixes": [...], "checked": n}`` (empty when nothing)."""
    return v.meta.get(META_KEY) or {"fixes": [], "checked": 0}


def by_span(v: VersionInfo) -> dict[tuple[str, int], dict]:
    """The stored fixes of ``v`` keyed by (citing clause, start of the printed span)."""
    return {(f["clause"], f["start"]): f for f in stored(v)["fixes"]}
