"""Reading aids: the references a translation prints with an outdated number (kb.versions.staleref),
listed with counts; and one glossary entry, where a defined term in rule text links to."""

from __future__ import annotations

from collections import Counter
from urllib.parse import urlencode

from flask import Blueprint, abort

from kb.versions import editions, glossary, releases, staleref
from web.glossary import build as glossary_terms
from web.pages import clause_url, generation, glossary_url, store, twin, version, version_json
from web.text import excerpt

bp = Blueprint("aids", __name__)


@twin(bp, "/<any(mtg,dm):game>/<any(ja,en):lang>/<label>/references", "references.html")
def references(game: str, lang: str, label: str):
    """Every reference the version prints with an outdated number, the rule meant, and counts."""
    v = version(game, lang, label)

    def build() -> dict:
        s = store()
        found = staleref.stored(v)
        edition = editions.rendered_edition(s, v, exact=True)
        rows = []
        for f in found["fixes"]:
            node = s.node(v, f["clause"])
            meant = s.node(v, f["meant"])
            printed = s.node(v, f["printed"])
            rows.append(
                {
                    **f,
                    "clause_url": clause_url(game, lang, v.label, f["clause"]) + "#" + f["clause"],
                    "meant_url": clause_url(game, lang, v.label, f["meant"]),
                    "meant_title": (meant.title or excerpt(meant.text, 40)) if meant else "",
                    "printed_url": clause_url(game, lang, v.label, f["printed"]) if printed else None,
                    "printed_title": (printed.title or excerpt(printed.text, 40)) if printed else "",
                    "english_url": clause_url(game, "en", edition.label, f["english"]) if edition else None,
                    "context": excerpt(node.text[max(0, f["start"] - 30) : f["end"] + 10], 80) if node else "",
                }
            )
        entries = generation().cached(("glossary", None, None), lambda: glossary_terms(s, None, None))
        defined = [
            {"term": e["term"], "url": e["url"], "printed": c["printed"], "meant": c["rule"], "meant_url": c["url"]}
            for e in entries
            if e["game"] == game and e["lang"] == lang and e["version"] == v.label
            for c in e["cites"]
            if c.get("printed")
        ]
        by_change = Counter(f"{f['printed']} → {f['meant']}" for f in found["fixes"])
        return {
            "version": version_json(v),
            "edition": version_json(edition) if edition else None,
            "checked": found["checked"],
            "stale": len(found["fixes"]),
            "ids": sum(1 for f in found["fixes"] for _, m in f["rules"] if m),
            "by_change": [{"change": k, "count": n} for k, n in by_change.most_common()],
            "by_evidence": dict(Counter(e for f in found["fixes"] for e in f["evidence"])),
            "references": rows,
            "glossary": defined,  # the same in the glossary's definitions, read by their bracketed titles
            "canonical": f"/{game}/{lang}/{v.label}/references",
        }

    return generation().cached(("stale-references", v.id), build)


@twin(bp, "/glossary/<any(mtg,dm):game>/<any(ja,en):lang>/<path:term>", "term.html")
def term(game: str, lang: str, term: str):
    """One glossary entry: its definition, older ones, its other-language name and the clauses it names."""
    if len(term) > 100:
        abort(404, description="用語が長すぎます")
    entries = generation().cached(("glossary", None, None), lambda: glossary_terms(store(), None, None))
    key = glossary.term_key(term)
    entry = next(
        (e for e in entries if e["game"] == game and e["lang"] == lang and glossary.term_key(e["term"]) == key), None
    )
    if entry is None:
        abort(404, description=f"用語集に「{term[:40]}」はありません（{game}/{lang}）")
    other = "en" if lang == "ja" else "ja"
    counterpart = entry["counterpart"]
    theirs = glossary.term_key(counterpart) if counterpart else None
    linked = any(e["game"] == game and e["lang"] == other and glossary.term_key(e["term"]) == theirs for e in entries)
    return {
        **entry,
        "counterpart_url": glossary_url(game, other, counterpart) if linked else None,  # only an entry it has
        "list_url": "/glossary?" + urlencode({"q": entry["term"], "game": game, "lang": lang}),
        "canonical": glossary_url(game, lang, entry["term"]),
    }


@twin(bp, "/releases", "releases.html")
def release_table():
    """Each English edition with the set it came with, the table's sources, and the diff of that update."""

    def build() -> dict:
        held = {v.label: v for v in store().versions("mtg", "en")}
        chain = [v for v in held.values() if not v.partial and v.sort_date]
        before = {b.label: a for a, b in zip(chain, chain[1:], strict=False)}
        rows = []
        for label, row in releases.table().items():
            v, prev = held.get(label), before.get(label)
            rows.append(
                {
                    **row,
                    "held": v is not None,
                    "url": f"/mtg/en/{label}/" if v else None,
                    "diff_url": f"/diff/mtg/en/{prev.label}/{label}" if prev else None,
                }
            )
        named = sum(1 for r in rows if r["set"])
        return {"editions": rows, "named": named, "blank": len(rows) - named, "source_file": "kb/data/edition_sets.csv"}

    return generation().cached(("releases",), build)
