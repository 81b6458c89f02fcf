"""Bad parameters answer 400/404 (HTML and JSON), never 500; markup is escaped; the KB is read-only."""

from __future__ import annotations

import sqlite3

import pytest

from tests._webkb import XSS, make_generation
from web import create_app


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return create_app(make_generation(tmp_path_factory.mktemp("web-home")))


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


BAD = [
    ("/mtg/ja/19990101.0/509.1", 404),  # unknown version
    ("/mtg/ja/20260807.0/510.1", 404),  # clause not in that version
    ("/mtg/ja/latest/999.9z", 404),  # well formed, nowhere
    ("/mtg/ja/latest/509.x", 400),  # malformed rule id
    ("/mtg/ja/latest/" + "9" * 500, 400),
    ("/mtg/ja/bad label!/509.1", 400),
    ("/mtg/ja/" + "1" * 80 + "/509.1", 400),
    ("/xx/ja/latest/509.1", 404),  # unknown game
    ("/mtg/fr/latest/509.1", 404),  # unknown language
    ("/mtg/ja/19990101/", 404),
    ("/search?q=" + "ブ" * 201, 400),  # query longer than MAX_QUERY
    ("/search?q=" + "x" * 10_000, 400),
    ("/search?q=a%00b", 400),  # control characters
    ("/search?q=a&per_page=51", 400),
    ("/search?q=a&per_page=0", 400),
    ("/search?q=a&page=0", 400),
    ("/search?q=a&page=abc", 400),
    ("/search?q=a&page=101", 400),
    ("/search?q=a&game=yugioh", 400),
    ("/search?q=a&lang=fr", 400),
    ("/search?q=a&version=19990101", 404),
    ("/search?q=a&version=../../etc", 400),
    ("/diff/mtg/ja/20231117.0/19990101.0", 404),
    ("/diff/xx/ja/20231117.0/20260807.0", 404),
    ("/diff/mtg/ja/a%2Fb/20260807.0", 404),
    ("/align/mtg/ja/19990101.0/en/20231117", 404),
    ("/align/mtg/ja/20231117.0/fr/20231117", 404),
    ("/glossary?per_page=100000", 400),
    ("/glossary?q=" + "x" * 1000, 400),
    ("/articles/999", 404),
    ("/articles/-1", 404),
    ("/articles/" + "9" * 20, 404),  # beyond SQLite's integers
    ("/static/../kb.sqlite", 404),
    ("/static/%2e%2e/__init__.py", 404),
    ("/nowhere", 404),
]


@pytest.mark.parametrize(("url", "status"), BAD)
def test_bad_parameters_answer_html_and_json(client, url, status):
    resp = client.get(url)
    assert resp.status_code == status, (url, resp.data[:200])
    assert resp.mimetype == "text/html"
    body = resp.get_data(as_text=True)
    assert f"<h1>{status}</h1>" in body and "Traceback" not in body
    if url.startswith(("/static", "/nowhere")):
        return
    resp = client.get("/api" + url)
    assert resp.status_code == status, ("/api" + url, resp.data[:200])
    assert resp.get_json()["status"] == status and resp.get_json()["error"]


def test_error_message_names_the_problem(client):
    unknown = client.get("/api/mtg/ja/19990101.0/509.1").get_json()
    assert unknown["error"].startswith("版 19990101.0 は mtg/ja に収録されていません")
    assert "unknown version '19990101.0'" in unknown["detail"]  # the service's own words, for a bug report
    assert "条文番号 '509.x' の形が正しくありません" in client.get("/api/mtg/ja/latest/509.x").get_json()["error"]
    missing = client.get("/api/mtg/ja/20260807.0/510.1").get_json()  # a quote of two clauses: say so, point to them
    assert "一部の条文しか収録していません" in missing["error"]
    assert missing["moved"]["held"]["last_url"] == "/mtg/ja/20231117.0/510.1"
    assert "300 文字。200 文字まで" in client.get("/api/search?q=" + "x" * 300).get_json()["error"]


def test_ingested_markup_is_escaped(client):
    page = client.get("/mtg/ja/20231117.0/510.1").get_data(as_text=True)
    assert XSS not in page
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    results = client.get("/search?q=script&jump=0").get_data(as_text=True)
    assert "<script>alert" not in results and "&lt;<mark>script</mark>&gt;" in results


def test_search_without_an_index_falls_back_to_substring_match(client):
    data = client.get("/api/search", query_string={"q": "ブロッククリーチャー", "jump": "0", "lang": "ja"}).get_json()
    assert data["engine"] == "substring"
    hit = next(r for r in data["results"] if r["rule"] == "309.1")
    assert (hit["version"], [t for t, is_hit in hit["segments"] if is_hit]) == ("5.5.0.0", ["ブロック・クリーチャー"])
    # each distinct text once, from its newest version: 509.1 differs between the two editions
    assert sorted(r["version"] for r in data["results"] if r["rule"] == "509.1") == ["20231117.0", "20260807.0"]
    assert "索引がないため" in client.get("/search?q=ブロッククリーチャー&jump=0").get_data(as_text=True)


def test_query_markup_is_escaped(client):
    page = client.get("/search", query_string={"q": '"><script>alert(1)</script>'}).get_data(as_text=True)
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_security_headers(client):
    resp = client.get("/")
    assert "script-src 'self'" in resp.headers["Content-Security-Policy"]
    assert resp.headers["X-Content-Type-Options"] == "nosniff"


def test_never_debug(tmp_path):
    app = create_app(tmp_path, test_config={"DEBUG": True})
    assert app.debug is False and app.config["DEBUG"] is False


def test_store_is_opened_read_only(app):
    with app.test_request_context("/"):
        from web.pages import store

        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store().conn.execute("DELETE FROM nodes")


def test_requests_do_not_touch_the_store(app, client):
    path = app.extensions["rulekb"].home.store_path()
    before = path.stat().st_mtime_ns, path.read_bytes()
    for url in ("/", "/search?q=ブロック", "/mtg/ja/latest/509.1", "/diff/mtg/en/20231117/20240607", "/glossary"):
        assert client.get(url).status_code == 200
    assert (path.stat().st_mtime_ns, path.read_bytes()) == before


def test_missing_kb_answers_503(tmp_path):
    client = create_app(tmp_path).test_client()
    resp = client.get("/mtg/ja/latest/509.1")
    assert resp.status_code == 503 and "rulekb build" in resp.get_data(as_text=True)
    assert client.get("/api/versions").get_json()["status"] == 503


def test_failing_sections_leave_pages_working_and_are_logged(client, monkeypatch, caplog, tmp_path):
    import kb.links
    import kb.versions.align
    import kb.versions.compare
    import kb.versions.history
    import kb.versions.jahistory

    def broken(*args, **kwargs):
        raise ValueError("corrupt lineage row")

    for module, name in (
        (kb.versions.history, "history"),
        (kb.versions.jahistory, "history"),
        (kb.links, "citations_for"),
        (kb.links, "saved"),
        (kb.versions.compare, "diff_versions"),
        (kb.versions.align, "align"),
    ):
        monkeypatch.setattr(module, name, broken)
    app = create_app(client.application.extensions["rulekb"].home.path, {"PAGE_CACHE_DIR": tmp_path})  # patched
    c = app.test_client()
    data = c.get("/api/mtg/ja/20231117.0/509.1c").get_json()
    assert (
        data["history"] is None and data["unavailable"]["history"] == "kb.versions.jahistory.history failed: ValueError"
    )
    assert data["tests"] is None and data["text"]  # the clause itself still shows
    assert c.get("/api/tests").get_json()["unavailable"] == "kb.links.saved failed: ValueError"
    diff = c.get("/diff/mtg/ja/20231117.0/20260807.0")
    assert diff.status_code == 200 and "failed: ValueError" in diff.get_data(as_text=True)
    assert "corrupt lineage row" in caplog.text  # logged with its traceback, not swallowed


def test_a_failing_search_service_falls_back(client, monkeypatch, caplog):
    from web.state import Generation

    class Broken:
        def search_page(self, *args, **kwargs):
            raise ValueError("index written by another indexer")

    monkeypatch.setattr(Generation, "searcher", lambda self: Broken())
    for q in ("防御プレイヤー", "戦闘ダメージ"):  # distinct queries: results are cached per generation
        data = client.get("/api/search", query_string={"q": q}).get_json()
        assert data["engine"] == "substring" and data["results"]
    assert "index written by another indexer" in caplog.text
