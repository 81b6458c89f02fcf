"""The bilingual glossary: merge terms from every version, pair each with its other-language term."""

from __future__ import annotations

import re
from urllib.parse import quote_plus

from kb.store import Store
from web.pages import clause_url

MAX_USES = 20
# "See rule 113", "rules 601 and 602", "section 6": enough to link a definition to its clauses.
_CITED = re.compile(r"(?i)(?:rules?|ルール)\s*(\d{3}(?:\.\d{1,3}[a-kmnp-z]{0,2})?)")


def build(s: Store, game: str | None, lang: str | None) -> list[dict]:
    """One entry per (game, lang, term, english), Japanese first, with where each is used."""
    labels = {v.id: v.label for v in s.versions()}
    merged: dict[tuple, dict] = {}
    # tuples straight from SQLite: the full KB holds some 60,000 term rows, mostly the same terms per edition
    q = "SELECT game, lang, term, english, reading, definition, source, version_id, rule FROM terms"
    where = [c for c, v in (("game=?", game), ("lang=?", lang)) if v]
    rows = s.conn.execute(
        q + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id", [v for v in (game, lang) if v]
    )
    for g, lg, term, english, reading, definition, source, vid, rule in rows:
        english = english or ""
        key = (g, lg, term, english.lower())
        entry = merged.get(key)
        if entry is None:
            entry = merged[key] = {"game": g, "lang": lg, "term": term, "english": english, "reading": reading or "",
                                   "definition": "", "counterpart": "", "used_in": [], "sources": []}  # fmt: skip
        if not entry["reading"] and reading:
            entry["reading"] = reading
        if not entry["definition"] and definition:
            entry["definition"] = definition
        if source not in entry["sources"]:
            entry["sources"].append(source)
        label = labels.get(vid)
        if rule and label:
            _use(entry, rule, g, lg, label)
    # The English glossary names each term in English only: pair it through the Japanese entries.
    ja_for = {
        (e["game"], e["english"].lower()): e["term"] for e in merged.values() if e["lang"] == "ja" and e["english"]
    }
    for e in merged.values():
        if e["lang"] == "ja":
            e["counterpart"] = e["english"]
        else:
            e["counterpart"] = ja_for.get((e["game"], e["term"].lower()), "")
        for rule in _CITED.findall(e["definition"]):
            _use(e, rule, e["game"], e["lang"], "latest")
        e["search_url"] = f"/search?q={quote_plus(e['term'])}&game={e['game']}&jump=0"
    return sorted(merged.values(), key=lambda e: (e["lang"] != "ja", e["game"], e["term"].lower()))


def _use(entry: dict, rule: str, game: str, lang: str, label: str) -> None:
    uses = entry["used_in"]
    if len(uses) < MAX_USES and all(u["rule"] != rule for u in uses):
        uses.append({"rule": rule, "url": clause_url(game, lang, label, rule)})


def matches(entry: dict, q: str) -> bool:
    q = q.lower()
    return any(q in (entry[k] or "").lower() for k in ("term", "english", "reading", "counterpart"))
