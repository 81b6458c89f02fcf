"""What every view shares: HTML/JSON twins, the request's generation, bounded parameters."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import wraps
from typing import Any
from urllib.parse import quote

from flask import Blueprint, Response, abort, current_app, g, jsonify, render_template, request, stream_with_context
from werkzeug.exceptions import HTTPException
from werkzeug.exceptions import NotFound as HTTPNotFound

from kb import ruleid
from kb.errors import NotFound
from kb.model import GAMES, LANGS, is_label
from kb.store import Store, VersionInfo
from kb.versions import editions, releases, staleref
from web.pagecache import GEN_KEY
from web.state import Generation


class BadRequest(HTTPException):
    """A parameter the user can fix: answered with 400 and the reason."""

    code = 400


class RuleNotHere(HTTPNotFound):
    """A clause the version does not hold: 404, with where the KB has it (``info``, see web.moved)."""

    def __init__(self, description: str, info: dict):
        super().__init__(description=description)
        self.info = info


def bad(message: str) -> BadRequest:
    return BadRequest(description=message)


def is_api() -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def twin(bp: Blueprint, rule: str, template: str, **options) -> Callable:
    """Register a view at ``rule`` (HTML from ``template``) and ``/api`` + ``rule`` (JSON), one context."""

    def decorator(view: Callable[..., dict]) -> Callable:
        @wraps(view)
        def html(**kwargs):
            ctx = view(**kwargs)
            if not isinstance(ctx, dict):  # a redirect or a ready response
                return ctx
            if ctx.get("_stream"):  # a long page computed as it is sent (the whole of a large diff)
                resp = Response(stream_with_context(_stream(template, ctx)), mimetype="text/html")
                resp.implicit_sequence_conversion = False  # make_conditional would read it all to measure it
                return resp
            if current_app.config["PAGE_CACHE"] or g.get("partial"):
                # kept once rendered by web.pagecache; a search cut short by its budget is never kept
                return render_template(template, **ctx)
            # without the page cache: each worker keeps what it rendered (the contents weigh 600-900 KB)
            key = ("page-" + view.__name__, request.full_path)
            return generation().cached(key, lambda: render_template(template, **ctx))

        @wraps(view)
        def api(**kwargs):
            ctx = view(**kwargs)
            if not isinstance(ctx, dict):
                return ctx
            return jsonify({k: list(v) if isinstance(v, Lazy) else v for k, v in ctx.items() if not k.startswith("_")})

        bp.add_url_rule(rule, view.__name__, html, **options)
        bp.add_url_rule("/api" + (rule if rule != "/" else ""), view.__name__ + "_json", api, **options)
        return html

    return decorator


class Lazy:
    """A list whose items are finished as they are read (``finish(item)``): a streamed page computes each
    change's word-level diff as the template reaches it, not all of them before the first byte."""

    def __init__(self, items: list, finish: Callable[[Any], Any]):
        self.items, self.finish = items, finish
        self._done: dict[int, Any] = {}  # finished once: a second reader (the JSON twin) reuses them

    def __len__(self) -> int:
        return len(self.items)

    def __bool__(self) -> bool:
        return bool(self.items)

    def __iter__(self) -> Iterator:
        for i, item in enumerate(self.items):
            if i not in self._done:
                self._done[i] = self.finish(item)
            yield self._done[i]


def _stream(template: str, ctx: dict) -> Iterator[str]:
    """Render ``template`` piece by piece, some 100 pieces to a chunk (each chunk goes out as it is ready)."""
    context = dict(ctx)
    current_app.update_template_context(context)
    stream = current_app.jinja_env.get_template(template).stream(**context)
    stream.enable_buffering(100)
    return iter(stream)


def generation() -> Generation:
    """The generation this request reads, fixed at its first use within the request."""
    if "gen" not in g:
        # the page cache (web.pagecache) resolved it already: the page is kept under that generation
        g.gen = request.environ.get(GEN_KEY) or current_app.extensions["rulekb"].current()
    return g.gen


def store() -> Store:
    return generation().store()


# How a message names a parameter (the pages are Japanese; the parameter's own name in brackets).
_PARAM_NAMES = {
    "q": "検索語（q）",
    "page": "ページ番号（page）",
    "per_page": "1ページの件数（per_page）",
    "game": "ゲーム（game）",
    "lang": "言語（lang）",
    "version": "版（version）",
    "old": "旧版（old）",
    "new": "新版（new）",
    "part": "節（part）",
    "view": "表示（view）",
    "section": "節（section）",
    "jump": "移動（jump）",
}


def arg(name: str, default: str = "", *, max_len: int = 100) -> str:
    """A string parameter, refused (400) when longer than ``max_len``."""
    value = request.args.get(name, default)
    if len(value) > max_len:
        raise bad(f"{_PARAM_NAMES.get(name, name)}が長すぎます（{len(value)} 文字。{max_len} 文字まで）。")
    if any(ord(c) < 32 and c not in "\t\n\r" for c in value):
        raise bad(f"{_PARAM_NAMES.get(name, name)}に制御文字が含まれています。")
    return value.strip()


def arg_int(name: str, default: int, lo: int, hi: int) -> int:
    """An integer parameter within [lo, hi], else 400."""
    raw = request.args.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise bad(f"{_PARAM_NAMES.get(name, name)}は整数で指定してください（{raw[:20]!r} は使えません）。") from None
    if not lo <= value <= hi:
        raise bad(f"{_PARAM_NAMES.get(name, name)}は {lo} から {hi} までで指定してください。")
    return value


def arg_choice(name: str, choices: tuple[str, ...]) -> str | None:
    """One of ``choices`` or None when absent; 400 for anything else."""
    value = arg(name, max_len=20)
    if not value:
        return None
    if value not in choices:
        raise bad(f"{_PARAM_NAMES.get(name, name)}は {', '.join(choices)} のいずれかで指定してください。")
    return value


def check_game_lang(game: str, lang: str) -> None:
    if game not in GAMES or lang not in LANGS:
        abort(404)


def check_label(label: str) -> str:
    if not is_label(label):
        raise bad(f"版の名前 {label[:40]!r} の形が正しくありません（英数字と . _ - で 40 文字まで）。")
    return label


def check_rule(raw: str) -> str:
    """A canonical clause id, or 400 for a malformed one."""
    rule = ruleid.normalize(raw) if len(raw) <= 20 else raw
    if ruleid.parse(rule) is None:
        raise bad(f"条文番号 {raw[:20]!r} の形が正しくありません（例: 509、509.1、509.1c）。")
    return rule


def version(game: str, lang: str, label: str) -> VersionInfo:
    """A version by label or ``latest``; 404 when unknown."""
    check_game_lang(game, lang)
    check_label(label)
    try:
        return store().get_version(game, lang, label)
    except NotFound as exc:
        abort(404, description=str(exc))


# What kind of text a version is (kb.model.PROVENANCES): the badge and its explanation.
PROVENANCE = {
    "official": ("公式", "発行元の原文（マジックは英語の総合ルール、デュエル・マスターズは日本語の総合ゲームルール）"),
    "official-translation": ("公式訳", "公式の日本語訳（総合ルール和訳）"),
    "private-translation": ("私訳", "個人による非公式の翻訳（古い版）"),
    "viewer": ("ビューア", "総合ルールビューアが表示した条文（一部のみ）"),
    "wiki-quote": ("Wiki引用", "Wiki の記事が引用した条文（一部のみ）"),
}


def version_json(v: VersionInfo) -> dict:
    r = editions.rendering(v)
    pairing = {"method": r.method, "exact": r.exact, "wanted": r.wanted} if r else None
    stale = len(staleref.stored(v)["fixes"]) if v.lang != "en" else 0  # printed with an outdated number
    return {
        **v.as_json(),
        "url": f"/{v.game}/{v.lang}/{v.label}/",
        "pairing": pairing,
        "release": releases.release(v),
        "stale_references": stale,
    }


def clause_url(game: str, lang: str, label: str, rule: str) -> str:
    return f"/{game}/{lang}/{label}/{rule}"


def glossary_url(game: str, lang: str, term: str) -> str:
    """The page of one glossary entry (web.views.translation)."""
    return f"/glossary/{game}/{lang}/{quote(term, safe='')}"
