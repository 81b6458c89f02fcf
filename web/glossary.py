"""The glossary page's entries: kb.versions.glossary's entries with the URLs the templates link to."""

from __future__ import annotations

from urllib.parse import urlencode

from kb.store import Store
from kb.versions import glossary
from web.pages import clause_url, glossary_url

matches = glossary.matches


def build(s: Store, game: str | None, lang: str | None) -> list[dict]:
    """Entries of a game and language (for Japanese, the English ones it has no entry for), linked."""
    out = []
    for e in glossary.entries(s, game, lang, fallback=lang == "ja"):
        uses = [
            {"rule": u["rule"], "url": clause_url(e["game"], u["lang"], u["version"], u["rule"])} for u in e["used_in"]
        ]
        cites = [
            {
                "rule": c["rule"],
                "url": clause_url(e["game"], c["lang"], c["version"], c["rule"]) if c["version"] else None,
                "printed": c.get("printed"),
            }
            for c in e["cites"]
        ]
        search = "/search?" + urlencode({"q": e["term"], "game": e["game"], "jump": "0"})
        entry = glossary_url(e["game"], e["lang"], e["term"])
        out.append({**e, "used_in": uses, "cites": cites, "search_url": search, "url": entry})
    return out
