"""Diff of two versions and alignment of a Japanese with an English version."""

from __future__ import annotations

from collections import Counter

from flask import Blueprint, abort, current_app, redirect, url_for

from kb.errors import NotFound
from kb.model import GAMES, LANGS
from kb.versions import choice
from web import diffview, paging, services
from web.pages import arg, arg_choice, check_game_lang, clause_url, generation, store, twin, version, version_json

bp = Blueprint("compare", __name__)

STATUSES = ("paired", "missing_in_a", "missing_in_b", "merged", "split")


def _choices() -> list[dict]:
    return [version_json(v) for v in store().versions()]


@twin(bp, "/diff", "diff_form.html")
def diff_form():
    """Pick two versions (the newest update preselected); with all four parameters, go to the diff."""
    game, lang = arg_choice("game", GAMES), arg_choice("lang", LANGS)
    old, new = arg("old", max_len=40), arg("new", max_len=40)
    if game and lang and old and new:
        return redirect(url_for("compare.diff", game=game, lang=lang, old=old, new=new))
    game, lang = game or "mtg", lang or "en"
    update = choice.latest_update(store(), game, lang)  # the newest update, preselected
    d_old, d_new = (update[0].label, update[1].label) if update else (None, None)
    return {"versions": _choices(), "game": game, "lang": lang, "old": old or d_old, "new": new or d_new}


@twin(bp, "/diff/<game>/<lang>/<old>/<new>", "diff.html")
def diff(game: str, lang: str, old: str, new: str):
    """What changed from ``old`` to ``new``: counts, then moved/edited/added/removed lists; a large diff
    shows its summary by section first and each section on demand (``?part=5``)."""
    check_game_lang(game, lang)
    vo, vn = version(game, lang, old), version(game, lang, new)
    part = arg("part", max_len=10) or None
    view = {"view": arg_choice("view", ("list", "side")) or "list"}  # side: old and new texts in two columns
    base = generation().cached(("diff", vo.id, vn.id), lambda: diffview.summary(store(), vo, vn))
    if base["unavailable"] or base["same_version"]:
        return base | view
    if part is None and not base["large"]:
        part = "all"
    if part is None:
        return base | view
    if part != "all" and part not in {p["key"] for p in base["parts"]}:
        runs = [p for p in base["parts"] if p["key"].startswith(f"{part}-")]
        if runs:  # a rule of many changes comes in runs (``702-1``): its first
            return redirect(runs[0]["url"])
        abort(404, description=f"この差分に節 {part!r} の変更はありません")
    return generation().cached(("diff", vo.id, vn.id, part), lambda: diffview.part(store(), base, vo, vn, part)) | view


@twin(bp, "/align", "align_form.html")
def align_form():
    """Japanese versions with the English edition they pair with."""
    s = store()
    pairs = []
    for v in s.versions(lang="ja"):
        pv = choice.paired(s, v)
        pairs.append(
            {
                "ja": version_json(v),
                "en": version_json(pv) if pv else None,
                "url": f"/align/{v.game}/ja/{v.label}/en/{pv.label}" if pv else None,
            }
        )
    return {"pairs": pairs, "versions": _choices()}


@twin(bp, "/align/<game>/<a_lang>/<a_label>/<b_lang>/<b_label>", "align.html")
def align(game: str, a_lang: str, a_label: str, b_lang: str, b_label: str):
    """Coverage, missing and merged clauses between two versions (usually ja against en)."""
    check_game_lang(game, a_lang)
    check_game_lang(game, b_lang)
    va, vb = version(game, a_lang, a_label), version(game, b_lang, b_label)
    section = arg_choice("section", tuple("123456789"))
    ctx = generation().cached(("align", va.id, vb.id), lambda: _align(game, va, vb))
    if section and not ctx.get("unavailable"):
        rows = generation().cached(
            ("align-section", va.id, vb.id, section), lambda: _side_by_side(va, vb, ctx["pairs"], section)
        )
        page = f"/align/{game}/{va.lang}/{va.label}/{vb.lang}/{vb.label}"
        ctx = {**ctx, "section": section, **_section_part(rows, page, section, arg("part", max_len=10) or None)}
    return ctx


def _section_part(rows: list[dict], page: str, section: str, part: str | None) -> dict:
    """One part of a section's side-by-side text when it is long (section 7: 1,500 rows, 1 MB), or all of it."""
    url = f"{page}?section={section}&"
    parts = paging.parts(
        rows, lambda r: r.get("b_rule") or r.get("a_rule") or "", current_app.config["ALIGN_ROWS"], url
    )
    if len(parts) <= 1 or part == "all":
        return {"side_by_side": rows, "section_parts": parts if len(parts) > 1 else [], "part": part, "rows": len(rows)}
    chosen = paging.choose(parts, part)
    if chosen is None:
        abort(404, description=f"第 {section} 章の対訳に部分 {part!r} はありません")
    shown = rows[chosen["start"] : chosen["end"]]
    return {"side_by_side": shown, "section_parts": parts, "part": chosen["key"], "rows": len(rows)}


def _side_by_side(va, vb, pairs: list[dict], section: str) -> list[dict]:
    """One section's pairs with both texts, for reading the translation against its original."""
    s = store()
    a_nodes = {n.rule: n for n in s.nodes(va) if n.rule.split(".")[0][:1] == section}
    b_nodes = {n.rule: n for n in s.nodes(vb) if n.rule.split(".")[0][:1] == section}
    rows = []
    for p in pairs:
        a, b = a_nodes.get(p.get("a_rule") or ""), b_nodes.get(p.get("b_rule") or "")
        if a is None and b is None:
            continue
        rows.append(
            {
                **p,
                "a_title": a.title if a else "",
                "a_text": a.text if a else "",
                "b_title": b.title if b else "",
                "b_text": b.text if b else "",
            }
        )
    return rows


def _align(game: str, va, vb) -> dict:
    """Coverage, counts and the pairs of two versions, each clause linked."""
    ctx = {"game": game, "a": version_json(va), "b": version_json(vb), "unavailable": None}
    try:
        result = services.align(store(), va, vb)
    except services.Unavailable as exc:
        return {**ctx, "unavailable": str(exc), "summary": {}, "pairs": [], "_groups": {}, "coverage": None}
    except NotFound as exc:
        abort(404, description=str(exc))
    pairs = []
    for p in result["pairs"]:
        p = dict(p)
        p["a_url"] = clause_url(game, va.lang, va.label, p["a_rule"]) if p.get("a_rule") else None
        p["b_url"] = clause_url(game, vb.lang, vb.label, p["b_rule"]) if p.get("b_rule") else None
        pairs.append(p)
    counts = Counter(p.get("status") for p in pairs)
    summary = result["summary"]
    coverage = summary["coverage"]
    groups = {
        k: [p for p in pairs if p.get("status") == k] for k in ("missing_in_a", "missing_in_b", "merged", "split")
    }
    sections = sorted({(p.get("b_rule") or p.get("a_rule") or "")[:1] for p in pairs} & set("123456789"))
    return {
        **ctx,
        "summary": summary,
        "coverage": coverage,
        "pairs": pairs,
        "_groups": groups,
        "_counts": [(k, counts.get(k, 0)) for k in STATUSES],
        "sections": sections,
    }
