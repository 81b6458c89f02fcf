"""Search: query box, filters, highlighted snippets, pagination; rule numbers jump to the clause."""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Blueprint, abort, current_app, g, redirect
from markupsafe import Markup

from kb import ruleid
from kb.errors import InputError, NotFound, RulekbError
from kb.model import GAMES, LANGS
from kb.store import Store
from web import pages, updates
from web.pages import arg, arg_choice, arg_int, bad, clause_url, generation, is_api, store, twin
from web.text import MIDDLE_DOTS, excerpt, find_spans, highlight

bp = Blueprint("search", __name__)

MAX_PAGE = 100  # deeper pages are not useful and cost a scan


def rule_jump(s: Store, q: str, game: str | None, lang: str | None, label: str | None) -> str | None:
    """The clause a rule-number query names, in the newest (or chosen) version holding it."""
    rule = ruleid.normalize(q)
    if not ruleid.is_valid(rule):
        return None
    for gm in [game] if game else GAMES:
        for lg in [lang] if lang else LANGS:
            found = s.rule_versions(gm, lg, rule)
            if label:
                found = [(v, n) for v, n in found if v.label == label]
            if found:
                v, _ = max(reversed(found), key=lambda f: _full_and_official(f[0]))  # the newest of the best
                return clause_url(gm, lg, v.label, rule)
    return None


def _full_and_official(v) -> tuple[bool, bool]:
    """How much a version's text is to be trusted for a jump: a whole text over a quote or a viewer's
    excerpt, an official text (or its official translation) over a private one. The newest of the best
    wins: a wiki page quoting 509.1c under a newer date does not hide today's official translation."""
    return (not v.partial, (v.meta or {}).get("provenance") in ("official", "official-translation"))


def _result(hit: dict, provenance: dict) -> dict:
    text = hit.get("text") or ""
    kind = hit.get("kind", "rule")
    if kind == "article" and hit.get("article_id") is not None:
        url = f"/articles/{int(hit['article_id'])}"
    elif kind == "term":
        url = "/glossary?" + urlencode({"q": hit.get("title") or ""})
    else:
        url = clause_url(hit["game"], hit["lang"], hit["version"], hit["rule"])
    snippet = hit.get("snippet") or ""
    if "snippet_start" in hit and snippet:
        # The search service gives offsets into its snippet, itself a slice of the text.
        start = int(hit["snippet_start"] or 0)
        segs = highlight(snippet, hit.get("highlights"), width=len(snippet))
        if start > 0:
            segs.insert(0, ["…", False])
        if start + len(snippet) < len(text):
            segs.append(["…", False])
    elif text:
        segs = highlight(text, hit.get("highlights"))
    else:
        segs = [[snippet, False]]
    return {
        **{
            k: hit.get(k)
            for k in (
                "kind",
                "game",
                "lang",
                "version",
                "rule",
                "title",
                "snippet",
                "snippet_start",
                "score",
                "highlights",
            )
        },
        "article_id": hit.get("article_id"),
        "provenance": hit.get("provenance") or provenance.get((hit.get("game"), hit.get("lang"), hit.get("version"))),
        "also_in": hit.get("also_in") or 0,
        "url": url,
        "segments": segs,
        "other": _other(hit),
    }


def _other(hit: dict) -> dict | None:
    """The same clause in the other language, shown on the hit's row (kb.search.results.one_row_per_clause)."""
    o = hit.get("other")
    if not o:
        return None
    text = o.get("snippet") or o.get("text") or o.get("title") or ""
    return {
        "lang": o["lang"],
        "version": o["version"],
        "title": o.get("title"),
        "text": text,
        "provenance": o.get("provenance"),
        "url": clause_url(hit["game"], o["lang"], o["version"], hit["rule"]),
    }


def fallback_search(s: Store, q: str, game, lang, label, limit: int, offset: int) -> list[dict]:
    """Plain substring match, each distinct text once from its newest version: used only without an index."""
    bare = "".join(c for c in q if c not in MIDDLE_DOTS)  # ブロッククリーチャー finds ブロック・クリーチャー
    versions = [v for v in s.versions(game, lang) if not label or v.label == label]
    order = {v.id: i for i, v in enumerate(versions)}
    by_id = {v.id: v for v in versions}
    rows = s.find_text(list(by_id), bare)
    newest: dict[tuple, list] = {}
    for row in rows:
        v = by_id[row[0]]
        key = (v.game, v.lang, row[1], row[2])
        seen = newest.get(key)
        if seen is None:
            newest[key] = [row, 0]
        else:
            seen[1] += 1
            if order[row[0]] > order[seen[0][0]]:
                seen[0] = row
    found = sorted(newest.values(), key=lambda e: (by_id[e[0][0]].game, by_id[e[0][0]].lang, ruleid.sort_key(e[0][1])))
    hits = []
    for (vid, rule, _hash, title, text), also in found[offset : offset + limit]:
        v = by_id[vid]
        body = text or title
        hits.append(
            {
                "kind": "rule",
                "game": v.game,
                "lang": v.lang,
                "version": v.label,
                "rule": rule,
                "title": title,
                "snippet": excerpt(body, 120),
                "score": 0.0,
                "also_in": also,
                "highlights": find_spans(body, q),
                "text": body,
            }
        )
    return hits


@twin(bp, "/search", "search.html")
def search():
    """Search the KB; the JSON twin carries the same results."""
    cfg = current_app.config
    q = arg("q", max_len=cfg["MAX_QUERY"])
    game = arg_choice("game", GAMES)
    lang = arg_choice("lang", LANGS)
    label = arg("version", max_len=40) or None
    page = arg_int("page", 1, 1, MAX_PAGE)
    per_page = arg_int("per_page", cfg["PER_PAGE"], 1, cfg["MAX_PER_PAGE"])
    s = store()
    if label:
        pages.check_label(label)
        if not any(v.label == label for v in s.versions(game, lang)):
            return _not_found(f"版 {label} は収録されていません。")
    ctx = {
        "query": q,
        "game": game,
        "lang": lang,
        "version": label,
        "page": page,
        "per_page": per_page,
        "results": [],
        "total": None,
        "has_next": False,
        "engine": None,
        "partial": False,
        "confidence": None,
        "spelled": None,
        "jump": None,
        "_versions": generation().cached(("version-list",), lambda: [pages.version_json(v) for v in s.versions()]),
    }
    ctx["_version_options"] = generation().cached(
        ("version-options", game, lang, label), lambda: _version_options(ctx["_versions"], game, lang, label)
    )
    if not q:
        return ctx
    ctx["jump"] = rule_jump(s, q, game, lang, label)
    if ctx["jump"] and not is_api() and arg("jump", max_len=1) != "0" and page == 1:
        return redirect(ctx["jump"])
    try:
        ctx["engine"], ctx["total"], hits, ctx["partial"], ctx["confidence"], ctx["spelled"] = generation().cached(
            ("search", q, game, lang, label, page, per_page),
            lambda: _run_search(s, q, game, lang, label, page, per_page),
            keep=lambda found: not found[3],  # a search cut short by its time budget is asked again
        )
    except InputError as exc:
        raise bad(str(exc)) from None
    except NotFound as exc:
        return _not_found(str(exc))
    except RulekbError as exc:  # the search service refuses a query it cannot run
        raise bad(str(exc)) from None
    g.partial = ctx["partial"]  # neither tagged nor kept by the page cache (web/__init__.py)
    ctx["has_next"] = len(hits) > per_page
    provenance = {(v.game, v.lang, v.label): v.meta.get("provenance") for v in s.versions()}
    ctx["results"] = [_result(h, provenance) for h in hits[:per_page]]
    return ctx


def _version_options(versions: list[dict], game: str | None, lang: str | None, label: str | None) -> Markup:
    """The search form's version choices (one per edition of the game and language asked), the asked one
    selected: written once per generation and choice, not on every search (125 options)."""
    return Markup("").join(
        Markup('<option value="{0}"{1}>{2}/{3} {0}</option>').format(
            v["version"], Markup(" selected") if v["version"] == label else "", v["game"], v["lang"]
        )
        for v in versions
        if (not game or v["game"] == game) and (not lang or v["lang"] == lang)
    )


def _run_search(
    s: Store, q: str, game, lang, label, page: int, per_page: int
) -> tuple[str, int | None, list[dict], bool, str | None, str | None]:
    """(engine, total, hits, partial, confidence, spelled) for one page, one more hit than shown to tell whether
    a next page exists; partial when the search ran out of its time budget (kb.search.bounded) before its last
    tiers; spelled, the query as searched when a word of it was mistyped (kb.search.spelling)."""
    gen = generation()
    searcher = gen.searcher()
    offset = (page - 1) * per_page
    if searcher is not None:
        try:
            found = searcher.search_page(q, game=game, lang=lang, version=label, limit=per_page + 1, offset=offset)
            return (
                "index",
                found["total"],
                found["hits"],
                bool(found.get("partial")),
                found.get("confidence"),
                found.get("spelled"),
            )
        except RulekbError:
            raise
        except Exception as exc:  # e.g. an index written by another version of the indexer
            gen.report_failure("search", exc)
    return "substring", None, fallback_search(s, q, game, lang, label, per_page + 1, offset), False, None, None


def _not_found(message: str):
    abort(404, description=message)


@twin(bp, "/", "search.html")
def index():
    """The front page: the empty search page, what the latest update changed, the versions held."""
    ctx = search.__wrapped__()  # the context, not the rendered search page
    if isinstance(ctx, dict):
        ctx["latest"] = generation().cached(("latest",), lambda: updates.latest(store()))
    return ctx


@bp.route("/api/")
def api_index():
    """``/api/`` answers like ``/api``: the front page's data."""
    return redirect("/api", code=308)
