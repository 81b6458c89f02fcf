"""Test coverage, the bilingual glossary and wiki articles."""

from __future__ import annotations

from collections import Counter

from flask import Blueprint, abort, current_app

from kb.errors import NotFound
from kb.model import GAMES, LANGS
from web import article as article_view
from web import services
from web.glossary import build as glossary_terms
from web.glossary import matches
from web.pages import arg, arg_choice, arg_int, clause_url, generation, store, twin, version_json
from web.text import excerpt

bp = Blueprint("library", __name__)

PROBLEMS = ("stale", "orphan", "mismatch")


def _against(s, game: str, against: str | None):
    """The version citations were resolved against (English first: engines cite the English rules)."""
    for lang in ("en", "ja"):
        try:
            return s.get_version(game, lang, against or "latest")
        except NotFound:
            continue
    return None


def _citation(game: str, c: dict, v) -> dict:
    out = dict(c)
    lang, label = (v.lang, v.label) if v is not None else ("en", "latest")
    rule = c.get("rule")
    out["url"] = clause_url(game, lang, label, rule) if rule and c.get("status") != "orphan" else None
    out["suggest_urls"] = [{"rule": r, "url": clause_url(game, lang, label, r)} for r in c.get("suggest") or []]
    return out


def _add_clause_texts(s, v, cites: list[dict]) -> None:
    """Give each problem citation the text it points at and the texts of the suggested clauses.

    An orphan's id is gone from ``v``: show its text in the last version that had it (``valid_to``),
    which is what the test was written about.
    """
    texts: dict[tuple, str] = {}

    def text(rule: str, label: str) -> str:
        if (rule, label) not in texts:
            try:
                n = s.node(s.get_version(v.game, v.lang, label), rule) if rule else None
            except NotFound:
                n = None
            texts[rule, label] = excerpt(n.title or n.text, 120) if n else ""
        return texts[rule, label]

    for c in cites:
        rule = c.get("rule") or ""
        c["clause_text"] = text(rule, v.label)
        if not c["clause_text"] and c.get("valid_to"):
            c["clause_text"] = text(rule, c["valid_to"])
            c["clause_text_version"] = c["valid_to"] if c["clause_text"] else None
        for sug in c["suggest_urls"]:
            sug["text"] = text(sug["rule"], v.label)


def _coverage_rows(coverage: dict) -> list[dict]:
    """Per-section rows of the links service's coverage."""
    return [{k: s[k] for k in ("section", "title", "covered", "total")} for s in coverage.get("sections", [])]


@twin(bp, "/tests", "tests.html")
def tests():
    """Coverage by section, uncovered clauses, and the citations that went stale."""

    def build() -> dict:
        ctx: dict = {
            "saved": False,
            "unavailable": None,
            "against": None,
            "coverage": {},
            "citations": [],
            "problems": {k: [] for k in PROBLEMS},
            "status_counts": {},
            "coverage_rows": [],
            "uncovered": [],
        }
        try:
            saved = services.links_saved(store())
        except services.Unavailable as exc:
            return {**ctx, "unavailable": str(exc)}
        if not saved:
            return ctx
        game = saved.get("game") or "mtg"
        against = saved.get("against")
        v = _against(store(), game, against)
        cites = [_citation(game, c, v) for c in saved.get("citations", [])]
        if v is not None:
            _add_clause_texts(store(), v, [c for c in cites if c.get("status") in PROBLEMS])
        coverage = saved.get("coverage") or {}
        return {
            **ctx,
            "saved": True,
            "game": game,
            "against": against,
            "coverage": coverage,
            "against_version": version_json(v) if v is not None else None,
            "coverage_rows": _coverage_rows(coverage),
            "uncovered": list(coverage.get("uncovered") or []),
            "citations": cites,
            "status_counts": dict(Counter(c.get("status") for c in cites)),
            "problems": {k: [c for c in cites if c.get("status") == k] for k in PROBLEMS},
        }

    return generation().cached(("tests",), build)


@twin(bp, "/glossary", "glossary.html")
def glossary():
    """Bilingual terms (glossaries and pairs harvested from running text), filterable."""
    game, lang = arg_choice("game", GAMES), arg_choice("lang", LANGS)
    q = arg("q", max_len=current_app.config["MAX_QUERY"])
    page = arg_int("page", 1, 1, 1000)
    per_page = arg_int("per_page", 100, 1, 500)
    # One merge of every term (the warm-up makes it); a game or language is a filter over it, which also
    # keeps the Japanese counterpart of each English term.
    terms = generation().cached(("glossary", None, None), lambda: glossary_terms(store(), None, None))
    if game or lang:
        terms = [t for t in terms if (not game or t["game"] == game) and (not lang or t["lang"] == lang)]
    if q:
        terms = [t for t in terms if matches(t, q)]
    start = (page - 1) * per_page
    return {
        "game": game,
        "lang": lang,
        "query": q,
        "page": page,
        "per_page": per_page,
        "total": len(terms),
        "terms": terms[start : start + per_page],
        "has_next": start + per_page < len(terms),
    }


@twin(bp, "/articles", "articles.html")
def articles():
    """Every wiki article in the KB."""
    return {
        "articles": [
            {
                "id": a["id"],
                "game": a["game"],
                "lang": a["lang"],
                "title": a["title"],
                "cites": a["cites"],
                "url": f"/articles/{a['id']}",
            }
            for a in store().articles()
        ]
    }


@twin(bp, "/articles/<int:article_id>", "article.html")
def article(article_id: int):
    """One article: its sections and links to the clauses it cites."""
    # SQLite integers stop at 2**63 - 1: a longer id in the URL names no article (not a server error).
    a = store().article(article_id) if article_id < 2**63 else None
    if a is None:
        abort(404, description=f"記事 {article_id} はありません。")
    s = store()
    held = {}
    for rule in a["cites"]:
        found = s.rule_versions(a["game"], a["lang"], rule)
        labels = [v.label for v, _ in found]
        label = a["cites_version"] if a["cites_version"] in labels else (labels[-1] if labels else None)
        held[rule] = clause_url(a["game"], a["lang"], label, rule) if label else None
    cites = [{"rule": r, "url": held[r]} for r in a["cites"]]
    extra = a.get("extra") or {}
    by_title = {x["title"]: x["id"] for x in s.articles(a["game"])}
    wiki = extra.get("wiki")

    def link(name: str) -> tuple[str, bool] | None:
        """A cited rule to its clause; a wiki page to our copy when the KB holds it, else to the wiki."""
        if name in held or name[:1].isdigit():
            url = held.get(name) or (
                clause_url(a["game"], a["lang"], "latest", name)
                if s.rule_versions(a["game"], a["lang"], name)
                else None
            )
            return (url, False) if url else None
        if name in by_title and by_title[name] != a["id"]:
            return f"/articles/{by_title[name]}", False
        return (article_view.wiki_url(wiki, name), True) if wiki else None

    titles = list(a.get("links", []))
    cards = extra.get("cards", [])
    sections = [
        {**sec, "blocks": article_view.blocks(sec["text"], cards, link, titles)} for sec in a.get("sections", [])
    ]
    return {
        **{k: a[k] for k in ("id", "game", "lang", "title", "text", "revision", "cites_version")},
        "lead": article_view.blocks(article_view.lead_of(a), cards, link, titles),
        "sections": sections,
        "links": a.get("links", []),
        "cites": cites,
        "source_url": extra.get("url"),
    }
