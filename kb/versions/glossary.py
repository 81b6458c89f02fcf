"""The bilingual glossary: one entry per term and language with its newest definition.

Terms come from every version's glossary and from pairs written in the rules (「日本語／English」,
headings ``702.21. 護法／Ward``). An entry shows the definition of the newest version that defines the
term; older, different definitions are its history. The same term spelled with other quote marks, or
with the ``?`` a mis-decoded apostrophe became in one old edition ("Isn?t", "?As Though?"), is one
entry. Rules a definition cites are resolved in the version of that definition (its own text, then
the English edition it renders), so a link never points at whatever the newest text numbers alike.
"""

from __future__ import annotations

import re
from collections import Counter

from kb import ruleid
from kb.store import Store, VersionInfo
from kb.versions import editions, staleref

MAX_USES = 20
_QUOTES = re.compile(r"[’‘'`“”\"?]")
# "See rule 113", "rules 601 and 602", "rule 702.21〔護法〕参照"
_CITED = re.compile(rf"(?i){ruleid.RULE_CUE}\s*({ruleid.ID_IN_TEXT})(?![0-9])")
_SOURCES = ("glossary", "heading", "inline", "article")  # the order in which a source is trusted


def term_key(term: str) -> str:
    """The key one term goes by, whatever its quote marks or a lost apostrophe: ``isnt``."""
    return " ".join(_QUOTES.sub("", term).casefold().split())


def entries(store: Store, game: str | None = None, lang: str | None = None, *, fallback: bool = False) -> list[dict]:
    """Glossary entries (Japanese first); with ``fallback`` and ``lang``, the other language's entries
    that have no counterpart in ``lang`` are added, marked ``fallback``."""
    everything = _merge(store, game)
    pair_english(everything)
    chosen = [e for e in everything if lang is None or e["lang"] == lang]
    if fallback and lang:
        paired = {(e["game"], term_key(e["english"])) for e in chosen if e["english"]}
        paired |= {(e["game"], term_key(e["term"])) for e in chosen}
        for e in everything:
            if e["lang"] != lang and (e["game"], term_key(e["term"])) not in paired and e["definition"]:
                chosen.append({**e, "fallback": True})
    return sorted(chosen, key=lambda e: (e["lang"] != "ja", e["game"], e["term"].casefold()))


def _merge(store: Store, game: str | None) -> list[dict]:
    versions = {v.id: v for v in store.versions(game)}
    held: dict[int, set[str]] = {}  # ids each version holds, read once
    titled: dict[int, staleref.Titles] = {}  # headings by title, read once for a definition that names one
    rank = {vid: i for i, vid in enumerate(versions)}  # oldest first
    groups: dict[tuple[str, str, str], list[dict]] = {}
    for t in store.terms(game):
        key = term_key(t["term"])
        if key:
            groups.setdefault((t["game"], t["lang"], key), []).append(t)
    out = []
    for (g, lg, _), rows in groups.items():
        rows.sort(
            key=lambda t: (rank.get(t["version_id"], -1), _SOURCES.index(t["source"]) if t["source"] in _SOURCES else 9)
        )
        out.append(_entry(store, g, lg, rows, versions, held, titled))
    return out


def _entry(
    store: Store,
    game: str,
    lang: str,
    rows: list[dict],
    versions: dict[int, VersionInfo],
    held: dict[int, set[str]],
    titled: dict[int, staleref.Titles],
) -> dict:
    defined = [t for t in rows if t["definition"]]
    newest = defined[-1] if defined else rows[-1]
    version = versions.get(newest["version_id"])
    spellings = Counter(t["english"] for t in rows if t["english"])
    english = newest["english"] or (spellings.most_common(1)[0][0] if spellings else "")
    entry = {
        "game": game,
        "lang": lang,
        "term": newest["term"],
        "english": english,
        "reading": next((t["reading"] for t in reversed(rows) if t["reading"]), ""),
        "definition": newest["definition"] or "",
        "version": version.label if version else None,
        "history": _history(defined[:-1], newest, versions),
        "counterpart": "",
        "fallback": False,
        "sources": sorted({t["source"] for t in rows}, key=lambda s: _SOURCES.index(s) if s in _SOURCES else 9),
        "used_in": [],
        "cites": [],
    }
    for t in reversed(rows):  # where the newest texts use the term
        v = versions.get(t["version_id"])
        if (
            t["rule"]
            and v
            and len(entry["used_in"]) < MAX_USES
            and all(u["rule"] != t["rule"] for u in entry["used_in"])
        ):
            entry["used_in"].append({"version": v.label, "lang": v.lang, "rule": t["rule"]})
    if version is not None:
        if version.id not in held:
            held[version.id] = set(store.rules(version))
        if "〔" in entry["definition"] and version.id not in titled:
            titled[version.id] = staleref.Titles(store.nodes(version))
        entry["cites"] = _cites(store, version, entry["definition"], held[version.id], titled.get(version.id))
    return entry


def _history(older: list[dict], newest: dict, versions: dict[int, VersionInfo]) -> list[dict]:
    """Earlier definitions that read differently, oldest first, each with the versions that gave it."""
    out: list[dict] = []
    for t in older:
        label = versions[t["version_id"]].label if t["version_id"] in versions else None
        if out and out[-1]["definition"] == t["definition"]:
            out[-1]["to"] = label
        else:
            out.append({"definition": t["definition"], "from": label, "to": label})
    return [h for h in out if h["definition"] != newest["definition"]] if out else []


def _cites(
    store: Store, version: VersionInfo, definition: str, held: set[str], titles: staleref.Titles | None
) -> list[dict]:
    """Rules a definition cites, resolved in the definition's own version (or the edition it renders); a
    number printed beside another rule's title is read as that rule (``printed`` keeps the number)."""
    out = []
    for printed, title in cited_titles(definition):
        rule = (titles.meant(printed, title) if titles is not None and title else None) or printed
        found = editions.resolve_reference(store, version, rule, held)
        out.append(
            {
                "rule": rule,
                "version": found[0].label if found else None,
                "lang": found[0].lang if found else None,
                "printed": printed if rule != printed else None,
            }
        )
    return out


def cited_titles(definition: str) -> list[tuple[str, str]]:
    """The rules a definition cites, in order, with the title it gives each in brackets ("" for none):
    "rule 702.2〔接死〕参照" -> [("702.2", "接死")]."""
    out: dict[str, str] = {}
    for m in _CITED.finditer(definition):
        title = re.match(r"〔([^〕]{1,40})〕", definition[m.end() :])
        out.setdefault(m.group(1), title.group(1) if title else "")
    return list(out.items())


def pair_english(entries: list[dict]) -> None:
    """Give each entry its other-language term: a Japanese entry its English, an English one the
    Japanese term whose English it is."""
    ja_for = {(e["game"], term_key(e["english"])): e["term"] for e in entries if e["lang"] == "ja" and e["english"]}
    for e in entries:
        e["counterpart"] = e["english"] if e["lang"] == "ja" else ja_for.get((e["game"], term_key(e["term"])), "")


def matches(entry: dict, q: str) -> bool:
    """True when ``q`` occurs in the entry's term, English, reading or counterpart."""
    q = q.casefold()
    return any(q in (entry.get(k) or "").casefold() for k in ("term", "english", "reading", "counterpart"))
