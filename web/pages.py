"""What every view shares: HTML/JSON twins, the request's generation, bounded parameters."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import wraps
from typing import Any

from flask import Blueprint, Response, abort, current_app, g, jsonify, render_template, request, stream_with_context
from werkzeug.exceptions import HTTPException
from werkzeug.exceptions import NotFound as HTTPNotFound

from kb import ruleid
from kb.errors import NotFound
from kb.model import GAMES, LANGS, is_label
from kb.store import Store, VersionInfo
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
            if current_app.config["PAGE_CACHE"]:
                return render_template(template, **ctx)  # kept once rendered by web.pagecache
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


def arg(name: str, default: str = "", *, max_len: int = 100) -> str:
    """A string parameter, refused (400) when longer than ``max_len``."""
    value = request.args.get(name, default)
    if len(value) > max_len:
        raise bad(f"parameter {name!r} is too long ({len(value)} characters; at most {max_len})")
    if any(ord(c) < 32 and c not in "\t\n\r" for c in value):
        raise bad(f"parameter {name!r} contains control characters")
    return value.strip()


def arg_int(name: str, default: int, lo: int, hi: int) -> int:
    """An integer parameter within [lo, hi], else 400."""
    raw = request.args.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise bad(f"parameter {name!r} must be a whole number, not {raw[:20]!r}") from None
    if not lo <= value <= hi:
        raise bad(f"parameter {name!r} must be between {lo} and {hi}")
    return value


def arg_choice(name: str, choices: tuple[str, ...]) -> str | None:
    """One of ``choices`` or None when absent; 400 for anything else."""
    value = arg(name, max_len=20)
    if not value:
        return None
    if value not in choices:
        raise bad(f"parameter {name!r} must be one of {', '.join(choices)}")
    return value


def check_game_lang(game: str, lang: str) -> None:
    if game not in GAMES or lang not in LANGS:
        abort(404)


def check_label(label: str) -> str:
    if not is_label(label):
        raise bad(f"malformed version label {label[:40]!r}")
    return label


def check_rule(raw: str) -> str:
    """A canonical clause id, or 400 for a malformed one."""
    rule = ruleid.normalize(raw) if len(raw) <= 20 else raw
    if ruleid.parse(rule) is None:
        raise bad(f"malformed rule id {raw[:20]!r} (expected e.g. 509, 509.1 or 509.1c)")
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
    return {**v.as_json(), "url": f"/{v.game}/{v.lang}/{v.label}/"}


def clause_url(game: str, lang: str, label: str, rule: str) -> str:
    return f"/{game}/{lang}/{label}/{rule}"
