"""Versions list, table of contents per version, and the clause page."""

from __future__ import annotations

from flask import Blueprint, abort, current_app

from kb import ruleid
from kb.store import NodeRecord, Store, VersionInfo
from kb.versions import align, choice, editions
from kb.versions import history as lineage
from web import moved, paging, rulepage, services, toc, updates
from web.fold import fold_history, runs
from web.pages import (
    RuleNotHere,
    arg,
    check_label,
    check_rule,
    clause_url,
    generation,
    store,
    twin,
    version,
    version_json,
)
from web.text import excerpt, percent

bp = Blueprint("rules", __name__)
bp.add_app_template_filter(runs, "runs")
bp.add_app_template_filter(percent, "pct")

GAME = "<any(mtg,dm):game>/<any(ja,en):lang>"
_DEPTH = {"section": 0, "rule": 1, "clause": 2, "subclause": 3}


@twin(bp, "/versions", "versions.html")
def versions():
    """Every version with its dates, counts and partial flag, and what its update changed; ``held_back``:
    how many corpus documents a KB of today's editions left out (0 for the whole KB)."""
    gen = generation()
    return gen.cached(
        ("versions",), lambda: {"versions": updates.versions_with_changes(store()), "held_back": gen.held_back}
    )


_HEAD = 200  # characters of each text the contents read (an excerpt shows 70)


@twin(bp, f"/{GAME}/<label>/", "contents.html")
def contents(game: str, lang: str, label: str):
    """The table of contents of one version, as a flat list with depths."""
    v = version(game, lang, label)
    q = arg("q", max_len=100)

    def build() -> dict:
        items = []
        for rule, title, head in store().outline(v, _HEAD):
            kind = ruleid.level(rule) if ruleid.parse(rule) else "clause"
            items.append(
                {
                    "rule": rule,
                    "depth": _DEPTH[kind],
                    "title": title,
                    "excerpt": "" if title else excerpt(head, 70, cut=len(head) == _HEAD),
                    "url": clause_url(game, lang, v.label, rule),
                }
            )
        return {"version": version_json(v), "nodes": items, "canonical": f"/{game}/{lang}/{v.label}/"}

    ctx = generation().cached(("contents", v.id), build)
    if q:
        nodes = toc.matching(ctx["nodes"], q)
        return {**ctx, "query": q, "nodes": nodes, "_toc": toc.html(nodes, open_all=True)}
    return _contents_part(ctx, v, arg("part", max_len=10))


def _contents_part(ctx: dict, v: VersionInfo, part: str) -> dict:
    """A version's contents whole (``part=all``, or any of up to CONTENTS_FOLD entries), one part of it,
    or folded by section: each part listed with its size and loaded when opened."""
    config = current_app.config
    nodes = ctx["nodes"]
    parts = generation().cached(
        ("contents-parts", v.id), lambda: toc.parts(nodes, ctx["canonical"], config["CONTENTS_PART"])
    )
    ctx = {**ctx, "query": "", "parts": parts, "part": part or None, "folded": False, "entries": len(nodes)}
    if part == "all" or (not part and len(nodes) <= config["CONTENTS_FOLD"]):
        return {**ctx, "_toc": generation().cached(("contents-html", v.id), lambda: toc.html(nodes))}
    if part:
        chosen = toc.part_nodes(nodes, part, parts)
        if not chosen:
            abort(404, description=f"この目次に部分 {part!r} はありません")
        return {
            **ctx,
            "nodes": chosen,
            "canonical": f"{ctx['canonical']}?part={part}",
            "_toc": toc.html(chosen, open_top=True),
        }
    outline = [n for n in nodes if n["depth"] < 2]
    html = generation().cached(("contents-outline", v.id), lambda: toc.outline_html(nodes, parts))
    return {**ctx, "folded": True, "nodes": outline, "_toc": html}


def _node_link(game: str, lang: str, label: str, n: NodeRecord) -> dict:
    return {
        "rule": n.rule,
        "title": n.title,
        "excerpt": excerpt(n.text, 90),
        "url": clause_url(game, lang, label, n.rule),
    }


def _other_language(s: Store, game: str, v: VersionInfo, rule: str) -> dict:
    """The same clause in the other language, through the edition pairing (or its lineage)."""
    other = "en" if v.lang == "ja" else "ja"
    found = align.counterpart(s, v, rule)
    r = editions.rendering(v)
    pairing = {"edition": r.label, "method": r.method, "exact": r.exact, "wanted": r.wanted} if r else None
    if found is None:
        pv = choice.paired(s, v)
        return {
            "lang": other,
            "found": False,
            "exists": rulepage.has_language(s, game, other),
            "pairing": pairing,
            "paired_version": pv.label if pv else None,
        }
    pv, node, how = found
    return {
        "lang": other,
        "found": True,
        "exists": True,
        "version": pv.label,
        "rule": node.rule,
        "title": node.title,
        "text": node.text,
        "examples": node.examples,
        "how": how,
        "pairing": pairing,
        "provenance": pv.meta.get("provenance"),
        "url": clause_url(game, other, pv.label, node.rule),
    }


def _lineage_versions(s: Store, game: str, lang: str, v: VersionInfo, rule: str, node_hash: str) -> list[dict]:
    """Every version holding this clause by its lineage (under whatever id it had there), oldest first."""
    steps, _ = lineage.thread(s, game, lang, rule, v.label)
    return [
        {
            "version": st.version.label,
            "rule": st.rule,
            "partial": st.version.partial,
            "provenance": st.version.meta.get("provenance"),
            "same_text": st.hash == node_hash,
            "current": st.version.id == v.id,
            "url": clause_url(game, lang, st.version.label, st.rule),
        }
        for st in steps
    ]


def _history(s: Store, game: str, lang: str, rule: str, label: str | None = None) -> dict:
    """The history service's events (edits carry their inline diff), each linked, folded for reading; a
    translated clause's events are its English clause's, with the translations marked on them."""
    hist = services.history(s, game, lang, rule, label)
    events = []
    for ev in hist["events"]:
        at, kind = ev.get("version"), ev.get("kind")
        url = clause_url(game, ev.get("lang", lang), at, ev.get("rule") or rule) if at and kind != "removed" else None
        events.append({**ev, "url": url})
    if hist.get("english"):
        en = hist["english"]
        hist["english"] = {**en, "url": f"/history/{game}/en/{en['rule']}?version={en['version']}"}
    return fold_history({**hist, "events": events})


def _neighbour(s: Store, game: str, lang: str, v: VersionInfo, position: int) -> dict | None:
    """The node before or after, in document order (for reading on clause by clause)."""
    n = s.node_at(v, position)
    return _node_link(game, lang, v.label, n) if n else None


def _now(s: Store, game: str, lang: str, v: VersionInfo, rule: str) -> dict | None:
    """Where an old clause stands today: "now 702.19 (20260116)", or the edition that removed it."""
    found = services.translation_now(s, game, lang, rule, v.label) or lineage.now(s, game, lang, rule, v.label)
    if found and found["rule"]:
        found["url"] = clause_url(game, lang, found["version"], found["rule"])
    return found


def _section(ctx: dict, name: str, compute) -> None:
    try:
        ctx[name] = compute()
    except services.Unavailable as exc:
        ctx[name] = None
        ctx["unavailable"][name] = str(exc)


@twin(bp, f"/{GAME}/<label>/<rule>", "clause.html")
def clause(game: str, lang: str, label: str, rule: str):
    """One clause with its neighbours, other versions, other language, history, articles and tests."""
    check_label(label)
    rule = check_rule(rule)
    s = store()
    if label == choice.LATEST:
        v = choice.holding(s, game, lang, rule)
        if v is None:
            info = moved.locate(s, game, lang, version(game, lang, "latest"), rule)
            raise RuleNotHere(moved.message(info), info)
    else:
        v = version(game, lang, label)
    ctx = generation().cached(("clause", v.id, rule), lambda: _clause_context(s, game, lang, v, rule))
    return _clauses_part(ctx, arg("part", max_len=10) or None)


def _clauses_part(ctx: dict, part: str | None) -> dict:
    """A rule page with more clauses than RULE_PAGE_FOLD (701: 290, 702: 750: 300-800 KB in two columns) shows
    them a part at a time, each part whole clauses with their sub-clauses; ``part=all`` shows every one."""
    below = ctx["descendants"]
    config = current_app.config
    if len(below) <= config["RULE_PAGE_FOLD"]:
        return ctx
    parts = paging.parts(below, lambda d: d["rule"], config["RULE_PAGE_PART"], ctx["canonical"] + "?")
    if part == "all":
        return {**ctx, "clause_parts": parts, "part": "all"}
    chosen = paging.choose(parts, part)
    if chosen is None:
        abort(404, description=f"{ctx['rule']} のページに部分 {part!r} はありません")
    shown = below[chosen["start"] : chosen["end"]]
    return {**ctx, "descendants": shown, "clause_parts": parts, "part": chosen["key"]}


def _clause_context(s: Store, game: str, lang: str, v: VersionInfo, rule: str) -> dict:
    node = s.node(v, rule)
    if node is None:
        info = moved.locate(s, game, lang, v, rule)
        raise RuleNotHere(moved.message(info), info)
    refs = rulepage.References(s, game, lang, v)  # cited but in no ingested text: None, shown unlinked

    crumbs = []
    for anc in ruleid.ancestors(rule):
        a = s.node(v, anc)
        if a is not None:
            crumbs.append({"rule": anc, "title": a.title, "url": clause_url(game, lang, v.label, anc)})
    parent = s.node(v, node.parent) if node.parent else None
    below = rulepage.descendants(s, v, rule, refs)
    last = s.node(v, below[-1]["rule"]).position if below else node.position  # next: after what the page shows
    ctx = {
        "game": game,
        "lang": lang,
        "version": version_json(v),
        "rule": rule,
        "level": ruleid.level(rule),
        "title": node.title,
        "text": node.text,
        "examples": node.examples,
        "notes": node.notes,
        "truncated": node.truncated,
        "line": node.line,
        "references": refs.listed(node),
        "segments": refs.segments(node),
        "breadcrumbs": crumbs,
        "parent": _node_link(game, lang, v.label, parent) if parent else None,
        "children": [_node_link(game, lang, v.label, c) for c in s.children(v, rule)],
        "prev": _neighbour(s, game, lang, v, node.position - 1),
        "next": _neighbour(s, game, lang, v, last + 1),
        "versions": _lineage_versions(s, game, lang, v, rule, node.hash),
        "now": _now(s, game, lang, v, rule),
        "other_language": _other_language(s, game, v, rule),
        "descendants": below,
        "citation": rulepage.citation(v, rule),
        "canonical": clause_url(game, lang, v.label, rule),
        "articles": [
            {
                "id": a["id"],
                "title": a["title"],
                "lang": a["lang"],
                "cites_version": a["cites_version"],
                "url": f"/articles/{a['id']}",
            }
            for a in s.articles_citing(game, rule)
        ],
        "unavailable": {},
    }
    ctx["other_language"]["exists"] = rulepage.has_language(s, game, ctx["other_language"]["lang"])
    other = ctx["other_language"]
    ctx["bilingual"] = bool(
        below
        and other["found"]
        and other["how"] == "pair"
        and rulepage.pair_descendants(s, below, s.get_version(game, other["lang"], other["version"]), other["rule"])
    )
    _section(ctx, "history", lambda: _history(s, game, lang, rule, v.label))
    _section(ctx, "tests", lambda: services.citations_for(s, game, rule))
    return ctx


@twin(bp, "/history/<any(mtg,dm):game>/<any(ja,en):lang>/<rule>", "history.html")
def history(game: str, lang: str, rule: str):
    """A clause across every version: created, edited, moved, removed, with inline diffs."""
    rule = check_rule(rule)
    s = store()
    label = arg("version", max_len=40) or None
    if label is not None:
        label = version(game, lang, label).label
    if not s.rule_versions(game, lang, rule):
        abort(404, description=f"{rule} はどの {game}/{lang} の版にもありません")

    def build() -> dict:
        ctx = {"game": game, "lang": lang, "rule": rule, "version": label, "unavailable": None, "history": None}
        try:
            ctx["history"] = _history(s, game, lang, rule, label)
        except services.Unavailable as exc:
            ctx["unavailable"] = str(exc)
        return ctx

    return generation().cached(("history", game, lang, rule, label), build)
