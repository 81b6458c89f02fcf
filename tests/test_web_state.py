"""A rebuild swapped in under a running app is picked up at the next request; a request keeps its own."""

from __future__ import annotations

import threading
import time

from kb.model import ParsedVersion, ParseResult, RuleNode
from tests._webkb import make_generation
from web import create_app
from web.pages import generation, store


def _one_clause(text: str) -> list[ParseResult]:
    v = ParsedVersion(game="mtg", lang="ja", label="20231117.0", nodes=[RuleNode(rule="509.1", text=text)])
    return [ParseResult(format="test", kind="cr", versions=[v])]


def test_rebuild_is_picked_up_without_restart(tmp_path):
    make_generation(tmp_path, "gen-a", _one_clause("古い文面"))
    app = create_app(tmp_path)
    client = app.test_client()
    assert client.get("/api/mtg/ja/latest/509.1").get_json()["text"] == "古い文面"
    make_generation(tmp_path, "gen-b", _one_clause("新しい文面"))
    assert client.get("/api/mtg/ja/latest/509.1").get_json()["text"] == "新しい文面"
    assert "新しい文面" in client.get("/mtg/ja/20231117.0/509.1").get_data(as_text=True)


def test_a_request_keeps_the_generation_it_started_with(tmp_path):
    make_generation(tmp_path, "gen-a", _one_clause("古い文面"))
    app = create_app(tmp_path)
    with app.test_request_context("/mtg/ja/latest/509.1"):
        assert generation().name == "gen-a"
        make_generation(tmp_path, "gen-b", _one_clause("新しい文面"))
        s = store()
        assert s.node(s.get_version("mtg", "ja", "20231117.0"), "509.1").text == "古い文面"
    with app.test_request_context("/"):
        assert generation().name == "gen-b"


def test_threads_get_their_own_connections(tmp_path):
    make_generation(tmp_path, "gen-a", _one_clause("文面"))
    app = create_app(tmp_path)
    seen = []

    def work():
        with app.test_request_context("/"):
            seen.append(store().conn)  # keep it alive so ids cannot be reused

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(c) for c in seen}) == 3


def test_pages_revalidate_per_generation(tmp_path):
    make_generation(tmp_path, "gen-a", _one_clause("古い文面"))
    client = create_app(tmp_path).test_client()
    first = client.get("/mtg/ja/latest/509.1")
    tag = first.headers["ETag"]
    assert "gen-a" in tag and first.headers["Cache-Control"] == "no-cache"
    assert client.get("/mtg/ja/latest/509.1", headers={"If-None-Match": tag}).status_code == 304
    make_generation(tmp_path, "gen-b", _one_clause("新しい文面"))
    again = client.get("/mtg/ja/latest/509.1", headers={"If-None-Match": tag})
    assert again.status_code == 200 and "新しい文面" in again.get_data(as_text=True)
    assert client.get("/nowhere").headers.get("ETag") is None


def test_rebuilds_under_load_never_fail_a_request(tmp_path):
    """Real server, eight clients, five rebuilds swapped in (and old ones pruned) meanwhile."""
    import http.client

    from kb.home import Home
    from kb.store import Store
    from web.server import start_in_thread

    def rebuild(text: str) -> None:
        with Home(tmp_path).new_generation() as gen:
            store = Store.create(str(gen / "kb.sqlite"))
            store.add(_one_clause(text)[0], path="x.txt", sha256=text)
            store.commit()
            store.close()

    rebuild("文面0")
    server = start_in_thread(tmp_path)
    stop = threading.Event()
    seen: list[tuple[int, str]] = []

    def hammer():
        conn = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=10)
        while not stop.is_set():
            try:
                conn.request("GET", "/api/mtg/ja/latest/509.1")
                resp = conn.getresponse()
                seen.append((resp.status, resp.read().decode()))
            except (OSError, http.client.HTTPException) as exc:
                seen.append((0, repr(exc)))
                break
        conn.close()

    clients = [threading.Thread(target=hammer) for _ in range(8)]
    for c in clients:
        c.start()
    for i in range(1, 6):
        rebuild(f"文面{i}")
    time.sleep(0.3)
    stop.set()
    for c in clients:
        c.join()
    server.close()
    assert seen and all(status == 200 for status, _ in seen), [r for r in seen if r[0] != 200][:3]
    assert '"text":"文面5"' in seen[-1][1]  # the last rebuild is what clients see now
    assert len({body for _, body in seen}) >= 2  # requests really ran across the swaps


def test_a_port_in_use_or_out_of_range_is_a_one_line_error(tmp_path):
    import pytest

    from kb.errors import RulekbError
    from web.server import make_server, start_in_thread

    make_generation(tmp_path, "gen-a", _one_clause("文面"))
    server = start_in_thread(tmp_path)
    try:
        with pytest.raises(
            RulekbError, match=rf"cannot listen on 127.0.0.1:{server.effective_port}: Address already in use"
        ):
            make_server(tmp_path, "127.0.0.1", server.effective_port)
    finally:
        server.close()
    with pytest.raises(RulekbError, match="port 99999 is out of range"):
        make_server(tmp_path, "127.0.0.1", 99999)
    with pytest.raises(RulekbError, match="cannot listen on no.such.host.invalid:0"):
        make_server(tmp_path, "no.such.host.invalid", 0)
