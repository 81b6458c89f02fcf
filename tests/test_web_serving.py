"""Serving: brotli/gzip compression, the warm-up at start, one searcher shared by the threads."""

from __future__ import annotations

import gzip
import threading

import brotli
import pytest

from tests._webkb import make_generation
from web import create_app
from web.compress import Compress, choose


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return make_generation(tmp_path_factory.mktemp("serving-home"), index=True)


@pytest.fixture(scope="module")
def client(home):
    return create_app(home, {"WARMUP": False}).test_client()


@pytest.mark.parametrize(
    ("header", "coding"),
    [
        ("gzip, deflate, br", "br"),
        ("gzip", "gzip"),
        ("br;q=0, gzip", "gzip"),
        ("identity", None),
        ("", None),
        ("*", "br"),
        ("*;q=0", None),
        ("GZIP;q=0.5", "gzip"),
    ],
)
def test_choose_honours_accept_encoding(header, coding):
    assert choose(header) == coding


@pytest.mark.parametrize(("coding", "unpack"), [("br", brotli.decompress), ("gzip", gzip.decompress)])
def test_pages_and_json_are_compressed_when_accepted(client, coding, unpack):
    for url in ("/mtg/ja/20231117.0/509", "/api/mtg/ja/20231117.0/509", "/static/style.css", "/static/app.js"):
        plain = client.get(url, headers={"Accept-Encoding": "identity"})
        packed = client.get(url, headers={"Accept-Encoding": coding})
        assert "Content-Encoding" not in plain.headers
        assert packed.headers["Content-Encoding"] == coding, url
        assert "Accept-Encoding" in packed.headers["Vary"] and "Accept-Encoding" in plain.headers["Vary"]
        assert unpack(packed.data) == plain.data
        assert int(packed.headers["Content-Length"]) == len(packed.data) < len(plain.data)


def test_conditional_requests_still_answer_304(client):
    first = client.get("/mtg/ja/20231117.0/509.1", headers={"Accept-Encoding": "br"})
    again = client.get(
        "/mtg/ja/20231117.0/509.1", headers={"Accept-Encoding": "br", "If-None-Match": first.headers["ETag"]}
    )
    assert again.status_code == 304 and again.data == b""


def test_compressed_bodies_are_kept_per_etag():
    calls = []
    body = b"<p>" + "ブロック強制 ".encode() * 400 + b"</p>"

    def app(environ, start_response):
        calls.append(environ["PATH_INFO"])
        start_response(
            "200 OK",
            [("Content-Type", "text/html; charset=utf-8"), ("ETag", 'W/"gen-1"'), ("Content-Length", str(len(body)))],
        )
        return [body]

    wrapped = Compress(app)
    got = []

    def start(status, headers, exc_info=None):
        got.append(dict(headers))

    env = {"REQUEST_METHOD": "GET", "PATH_INFO": "/x", "QUERY_STRING": "", "HTTP_ACCEPT_ENCODING": "br"}
    first = b"".join(wrapped(env, start))
    second = b"".join(wrapped(dict(env), start))
    assert first == second and brotli.decompress(first) == body
    assert len(wrapped._cache) == 1  # compressed once, then served from memory
    other = b"".join(wrapped({**env, "QUERY_STRING": "q=1"}, start))  # another URL: its own entry
    assert len(wrapped._cache) == 2 and brotli.decompress(other) == body


def test_small_bodies_pass_untouched(client):
    resp = client.get("/api/nowhere", headers={"Accept-Encoding": "br"})  # a small JSON 404
    assert "Content-Encoding" not in resp.headers and resp.get_json()["status"] == 404


def test_warm_up_prepares_the_first_requests(home):
    app = create_app(home)  # WARMUP on, as `rulekb serve` runs it
    state = app.extensions["rulekb"]
    assert state.warmed.wait(120), "warm-up did not finish"
    gen = state.current()
    cached = {key[0] for kind in gen._caches.values() for key in kind}
    assert {"latest", "search", "versions", "glossary", "contents"} <= cached
    assert gen._searcher is not None and gen._searcher is not gen.__class__  # the index is open
    from kb.versions import diffparts

    store = gen.store()
    newest = store.get_version("mtg", "en", "20240607")
    hashes = {h for (h,) in store.conn.execute("SELECT hash FROM nodes WHERE version_id=?", (newest.id,))}
    assert hashes <= set(diffparts._feature_cache)  # the newest edition is ready to be compared
    assert "editorial_vocabulary" in store.memo and store.memo is gen.store().memo  # read once, shared


def test_threads_share_one_searcher(home):
    app = create_app(home, {"WARMUP": False})
    gen = app.extensions["rulekb"].current()
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(gen.searcher())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 4 and len({id(s) for s in seen}) == 1 and seen[0] is not None
    # the version list (a scan of every node) is read once for all connections of the generation
    assert gen.store()._versions_cache is seen[0].store._versions_cache
