"""The bilingual glossary: merge terms from every version, pair each with its other-language term."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from kb.store import Store
from web.pages import clause_url

MAX_USES = 20
# "See rule 113", "rules 601 and 602", "section 6": enough to link a definition to its clauses.
_CITED = re.compile(r"(?i)(?:rules?|ルール)\s*(\d{3}(?:\.\d{1,3}[a-kmnp-z]{0,2})?)")


def build(s: Store, game: str | None, lang: str | None) -> list[dict]:
    """One entry per (game, lang, term, english), Japanese first, with where each is used."""
    labels = {v.id: v.label for v in s.versions()}
    merged: dict[tuple, dict] = {}
    for t in s.terms(game, lang):
        english = t["english"] or ""
        key = (t["game"], t["lang"], t["term"], english.lower())
        entry = merged.get(key)
        if entry is None:
            entry = merged[key] = {"game": t["game"], "lang": t["lang"], "term": t["term"], "english": english,
                                   "reading": t["reading"] or "", "definition": "", "counterpart": "",
                                   "used_in": [], "sources": []}  # fmt: skip
        entry["reading"] = entry["reading"] or t["reading"] or ""
        entry["definition"] = entry["definition"] or t["definition"] or ""
        if t["source"] not in entry["sources"]:
            entry["sources"].append(t["source"])
        label = labels.get(t["version_id"])
        if t["rule"] and label:
            _use(entry, t["rule"], clause_url(t["game"], t["lang"], label, t["rule"]))
    # The English glossary names each term in English only: pair it through the Japanese entries.
    ja_for = {(e["game"], e["english"].lower()): e["term"] for e in merged.values() if e["lang"] == "ja" and e["english"]}
    for e in merged.values():
        if e["lang"] == "ja":
            e["counterpart"] = e["english"]
        else:
            e["counterpart"] = ja_for.get((e["game"], e["term"].lower()), "")
        for rule in _CITED.findall(e["definition"]):
            _use(e, rule, clause_url(e["game"], e["lang"], "latest", rule))
        e["search_url"] = "/search?" + urlencode({"q": e["term"], "game": e["game"], "jump": "0"})
    return sorted(merged.values(), key=lambda e: (e["lang"] != "ja", e["game"], e["term"].lower()))


def _use(entry: dict, rule: str, url: str) -> None:
    if len(entry["used_in"]) < MAX_USES and all(u["rule"] != rule for u in entry["used_in"]):
        entry["used_in"].append({"rule": rule, "url": url})


def matches(entry: dict, q: str) -> bool:
    q = q.lower()
    return any(q in (entry[k] or "").lower() for k in ("term", "english", "reading", "counterpart"))
