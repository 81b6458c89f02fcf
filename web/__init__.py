"""The web front end: a Flask app that reads the live KB generation and never writes it."""

from __future__ import annotations

import logging
import os
import sqlite3
from urllib.parse import quote

from flask import Flask, g, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError

from kb.errors import InputError, NotFound, RulekbError, StoreError
from web import pagecache
from web.etags import etag, settings_version
from web.headers import add_security_headers

log = logging.getLogger(__name__)

DEFAULTS = {
    "MAX_QUERY": 200,  # characters; longer queries are refused with 400
    "PER_PAGE": 10,
    "MAX_PER_PAGE": 50,
    "JSON_AS_ASCII": False,
    "MAX_CONTENT_LENGTH": 16 * 1024,  # the app takes no uploads
    "COMPRESS": True,  # brotli/gzip for text responses (web/compress.py)
    "WARMUP": True,  # load the KB, index and analyser in the background at start (web/state.py)
    # Pages over ~300 KB come in parts, the whole a link away (``part=all``): a version's contents with more
    # entries than CONTENTS_FOLD show by section, a section of more than CONTENTS_PART entries by rule.
    "CONTENTS_FOLD": 1000,
    "CONTENTS_PART": 600,
    "ALIGN_ROWS": 300,  # rows of a side-by-side section per part (section 7: 1,500)
    # a rule page with more clauses than RULE_PAGE_FOLD (701: 290, 702: 750) shows them in parts of about
    # RULE_PAGE_PART: each clause beside its other language costs ~1.05 KB (701 whole: 302-313 KB)
    "RULE_PAGE_FOLD": 240,
    "RULE_PAGE_PART": 200,
    "PAGE_CACHE": True,  # keep each page once per generation, in memory and on disk (web/pagecache.py)
    "PAGE_CACHE_DIR": None,  # default: HOME/page-cache, shared by the worker processes
    "PAGE_CACHE_DISK_BYTES": pagecache.DISK_BYTES,
    "PAGE_CACHE_MIN_CPU": pagecache.DISK_MIN_CPU,  # seconds: a page that took less CPU stays in memory only
}
# the settings above that change what a page says: part of its ETag and of its key in the page cache
PAGE_SHAPING = (
    "MAX_QUERY",
    "PER_PAGE",
    "MAX_PER_PAGE",
    "CONTENTS_FOLD",
    "CONTENTS_PART",
    "ALIGN_ROWS",
    "RULE_PAGE_FOLD",
    "RULE_PAGE_PART",
)


def create_app(home: str | os.PathLike | None = None, test_config: dict | None = None) -> Flask:
    """Build the app for the data home ``home`` (default: ``$RULEKB_HOME`` or the user data dir)."""
    from web.pages import PROVENANCE
    from web.state import KBState
    from web.views import aids, compare, library, rules, search

    app = Flask(__name__)
    app.config.from_mapping(DEFAULTS)
    if test_config:
        app.config.update(test_config)
    app.config["DEBUG"] = False  # never: the debugger would run code for whoever can reach the port
    settings = settings_version(app.config, PAGE_SHAPING)
    app.json.ensure_ascii = False
    app.extensions["rulekb"] = KBState(home)
    app.jinja_env.globals["PROVENANCE"] = PROVENANCE  # for macros, which see no request context
    for module in (search, rules, compare, library, aids):
        app.register_blueprint(module.bp)
    _register_errors(app)

    @app.after_request
    def headers(resp):
        gen = g.get("gen")
        if g.get("partial"):  # cut short by its time budget (kb.search.bounded): ask again next time
            resp.headers["Cache-Control"] = "no-store"
        elif gen is not None and request.method == "GET" and resp.status_code == 200:
            # Pages are a pure function of the generation's content, the code, the settings and the URL (web.etags): the
            # same tag from every worker; revalidate, answer 304 if unchanged.
            env = request.environ
            tag = etag(gen.identity, env.get("PATH_INFO", ""), env.get("QUERY_STRING", ""), settings)
            resp.set_etag(tag, weak=True)
            resp.headers["Cache-Control"] = "no-cache"
            resp.make_conditional(request)
        add_security_headers(resp.headers)
        return resp

    @app.context_processor
    def common():
        # Percent-encoded: the path goes back into an href, and a request may carry a newline in it.
        return {"request_path": quote(request.path, safe="/!$&'()*+,;=:@-._~"), "held_back": _held_back()}

    if app.config["PAGE_CACHE"]:
        state = app.extensions["rulekb"]
        root = app.config["PAGE_CACHE_DIR"] or state.home.path / "page-cache"
        disk = pagecache.DiskCache(root, app.config["PAGE_CACHE_DISK_BYTES"])
        app.wsgi_app = pagecache.PageCache(
            app.wsgi_app, state, disk, disk_min_cpu=app.config["PAGE_CACHE_MIN_CPU"], settings=settings
        )
    if app.config["COMPRESS"]:
        from web.compress import Compress

        app.wsgi_app = Compress(app.wsgi_app)
    if app.config["WARMUP"]:
        app.extensions["rulekb"].warm_in_background(app)
    return app


def _held_back() -> int:
    """Documents the live KB left out (a build of today's editions: web.state.Generation.held_back); 0
    when it is whole or cannot be read (an error page about the KB itself)."""
    from web.pages import generation

    try:
        return generation().held_back
    except (RulekbError, OSError, sqlite3.Error):
        return 0


def _error(code: int, message: str, info: dict | None = None, *, default: bool = False):
    """The error page or JSON, in Japanese (web.errortext); an English original goes along as ``detail``."""
    from web.errortext import japanese
    from web.pages import is_api

    ja, detail = japanese(code, message, werkzeug_default=default, method=request.method if code == 405 else "")
    if is_api():
        extra = ({"detail": detail} if detail else {}) | ({"moved": info} if info else {})
        return jsonify({"error": ja, "status": code} | extra), code
    return render_template("error.html", code=code, message=ja, detail=detail, info=info), code


def _register_errors(app: Flask) -> None:
    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if exc.code in (301, 302, 303, 307, 308):
            return exc
        if isinstance(exc, InternalServerError):
            return internal(exc)
        default = exc.description is None or exc.description == type(exc).description  # werkzeug's English
        body, code = _error(exc.code or 500, exc.description or exc.name, getattr(exc, "info", None), default=default)
        resp = app.make_response((body, code))
        if exc.code == 405 and getattr(exc, "valid_methods", None):
            resp.headers["Allow"] = ", ".join(exc.valid_methods)  # RFC 9110: a 405 names what is allowed
        return resp

    @app.errorhandler(NotFound)
    def not_found(exc: NotFound):
        return _error(404, str(exc))

    @app.errorhandler(InputError)
    def bad_input(exc: InputError):
        return _error(400, str(exc))

    @app.errorhandler(StoreError)
    def no_store(exc: StoreError):
        return _error(503, str(exc))

    @app.errorhandler(Exception)
    def internal(exc: Exception):
        log.error("unhandled error on %s", request.path, exc_info=exc)
        return _error(500, "")
