"""Pages cached per generation: the same ETag from every worker, one copy on disk shared by them all."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from kb.build import derive
from kb.home import IDENTITY_FILE, Home, identity
from kb.store import Store
from tests._webkb import make_generation
from web import create_app
from web.pagecache import DiskCache

CONFIG = {"WARMUP": False, "PAGE_CACHE_MIN_CPU": 0.0}  # every page goes to disk, however cheap
PAGES = ["/mtg/ja/20231117.0/509.1", "/mtg/ja/20231117.0/", "/diff/mtg/en/20231117/20240607", "/api/versions"]


def _rebuild(home: Path, results) -> Path:
    """Swap in a generation the way `rulekb build` does (sealed with its content hash)."""
    with Home(home).new_generation() as gen:
        store = Store.create(str(gen / "kb.sqlite"))
        for i, result in enumerate(results):
            store.add(result, path=f"doc{i}.txt", sha256=f"doc-{i}")
        derive(store)
        store.commit()
        store.close()
    return gen


@pytest.fixture
def home(tmp_path):
    return make_generation(tmp_path / "home")


def _workers(home: Path, n: int = 2):
    """``n`` app instances on one data home, as the worker processes of `rulekb serve` are."""
    return [create_app(home, CONFIG) for _ in range(n)]


OTHER_WORKER = """
import json, sys
from web import create_app
client = create_app(sys.argv[1], {"WARMUP": False, "PAGE_CACHE": False}).test_client()
out = {}
for url, tag in json.loads(sys.argv[2]).items():
    out[url] = [client.get(url).headers.get("ETag"), client.get(url, headers={"If-None-Match": tag}).status_code]
print(json.dumps(out))
"""


def test_two_worker_processes_give_the_same_etag_and_each_answers_the_others_304(home):
    import json
    import subprocess
    import sys

    client = create_app(home, CONFIG).test_client()
    tags = {url: client.get(url).headers["ETag"] for url in PAGES}
    assert len(set(tags.values())) == len(PAGES)  # one tag per page: the request is part of it
    # another process (another pid, started later, nothing shared but the data home)
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run(
        [sys.executable, "-c", OTHER_WORKER, str(home), json.dumps(tags)], capture_output=True, text=True, cwd=root
    )
    other = json.loads(proc.stdout)
    for url, tag in tags.items():
        assert other[url] == [tag, 304], url
        assert client.get(url, headers={"If-None-Match": other[url][0]}).status_code == 304


def test_apps_with_other_page_settings_on_one_home_keep_their_pages_apart(home):
    # a contents folded by section (a small CONTENTS_FOLD) is another page than the whole one: it gets its own
    # tag and its own copy on disk, whichever app computed its version first
    url = "/api/mtg/ja/20231117.0/"
    folded = create_app(home, {**CONFIG, "CONTENTS_FOLD": 3, "CONTENTS_PART": 3}).test_client()
    whole = create_app(home, CONFIG).test_client()
    first = folded.get(url)
    second = whole.get(url)
    assert first.get_json()["folded"] is True and second.get_json()["folded"] is False
    assert first.headers["ETag"] != second.headers["ETag"]
    assert whole.get(url, headers={"If-None-Match": first.headers["ETag"]}).status_code == 200  # not a 304
    again = create_app(home, {**CONFIG, "CONTENTS_FOLD": 3, "CONTENTS_PART": 3}).test_client().get(url)
    assert again.get_json()["folded"] is True and again.headers["ETag"] == first.headers["ETag"]


def test_the_etag_names_the_content_not_the_generation_directory(tmp_path):
    from tests._webkb import versions

    results = versions()
    g1 = _rebuild(tmp_path, results[:3])
    tag1 = create_app(tmp_path, CONFIG).test_client().get("/versions").headers["ETag"]
    assert (g1 / IDENTITY_FILE).is_file() and identity(g1)[:12] in tag1
    _rebuild(tmp_path, results)  # other content: another tag, and the old one no longer matches
    client = create_app(tmp_path, CONFIG).test_client()
    again = client.get("/versions", headers={"If-None-Match": tag1})
    assert again.status_code == 200 and again.headers["ETag"] != tag1


def test_a_page_one_worker_computed_is_read_from_disk_by_the_other(home):
    a, b = _workers(home)
    computed = {url: a.test_client().get(url) for url in PAGES}
    cache_b = b.wsgi_app.app  # Compress wraps the page cache
    for url, first in computed.items():
        resp = b.test_client().get(url)
        assert resp.data == first.data and resp.headers["ETag"] == first.headers["ETag"]
    assert cache_b.stats["disk"] == len(PAGES) and cache_b.stats["miss"] == 0


def test_a_torn_or_foreign_file_reads_as_a_miss_and_is_recomputed(home):
    a, b = _workers(home)
    url = PAGES[0]
    first = a.test_client().get(url)
    root = home / "page-cache"
    files = [p for p in root.rglob("*") if p.is_file()]
    assert len(files) == 1 and not [p for p in files if p.name.startswith(".tmp-")]
    data = files[0].read_bytes()
    files[0].write_bytes(data[: len(data) - 100])  # a page cut short: its hash no longer matches
    resp = b.test_client().get(url)
    assert resp.data == first.data
    cache_b = b.wsgi_app.app
    assert cache_b.stats["disk"] == 0 and cache_b.stats["miss"] == 1 and cache_b.stats["stored"] == 1
    assert files[0].read_bytes() == data  # rewritten whole


def test_writes_are_atomic_under_concurrent_workers(home):
    """Eight threads of two workers fill the cache at once: every answer whole, no temporary file left."""
    apps = _workers(home)
    bodies: dict[str, set[bytes]] = {url: set() for url in PAGES}
    errors = []

    def work(app):
        client = app.test_client()
        for _ in range(3):
            for url in PAGES:
                resp = client.get(url)
                if resp.status_code != 200:
                    errors.append((url, resp.status_code))
                bodies[url].add(resp.data)

    threads = [threading.Thread(target=work, args=(apps[i % 2],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and all(len(seen) == 1 for seen in bodies.values())
    root = home / "page-cache"
    assert not [p for p in root.rglob(".tmp-*")]
    disk = DiskCache(root)
    gen = apps[0].extensions["rulekb"].current()
    from web import PAGE_SHAPING
    from web.etags import page_key, settings_version

    settings = settings_version(apps[0].config, PAGE_SHAPING)
    for url in PAGES:
        path, _, query = url.partition("?")
        stored = disk.get(gen.identity, page_key(gen.identity, path, query, settings))
        assert stored is not None and stored[1] == next(iter(bodies[url]))
        assert not [k for k, _ in stored[0] if k.lower() in ("date", "content-length")]  # each answer its own


def test_a_new_generation_drops_the_pages_of_the_old_one(home):
    from tests._webkb import versions

    app = create_app(home, CONFIG)
    client = app.test_client()
    old = client.get("/versions")
    root = home / "page-cache"
    before = {p.name for p in root.iterdir()}
    assert len(before) == 1
    results = versions()
    _rebuild(home, results[2:])  # English editions only
    new = client.get("/versions")
    assert new.data != old.data and b"20231117.0" not in new.data
    after = {p.name for p in root.iterdir()}
    assert len(after) == 1 and after != before


def test_the_disk_cache_stays_within_its_size_least_recently_used_first(tmp_path):
    disk = DiskCache(tmp_path, max_bytes=40_000)
    for i in range(12):
        assert disk.put("gen", f"{i:064x}", [("Content-Type", "text/html")], bytes([i]) * 8_000)
        os.utime(disk._path("gen", f"{i:064x}"), (1_000_000 + i, 1_000_000 + i))
    assert disk.get("gen", f"{0:064x}") is None  # the oldest went first
    assert disk.get("gen", f"{11:064x}") == ([("Content-Type", "text/html")], bytes([11]) * 8_000)
    assert disk.size() <= 40_000 + 8_000 + 1_000  # at most one page past the limit before a trim


def test_an_unwritable_cache_directory_turns_the_disk_off_and_pages_still_answer(home, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory would go")
    app = create_app(home, {**CONFIG, "PAGE_CACHE_DIR": str(blocker)})
    client = app.test_client()
    assert client.get(PAGES[0]).status_code == 200 and client.get(PAGES[1]).status_code == 200
    cache = app.wsgi_app.app
    assert cache.disk.broken and cache.stats["stored"] == 0
    assert client.get(PAGES[0]).status_code == 200 and cache.stats["memory"] == 1


def test_a_second_worker_warms_up_for_real_though_the_first_kept_the_pages(tmp_path):
    home = make_generation(tmp_path / "home", index=True)
    first = create_app(home, {"PAGE_CACHE_MIN_CPU": 0.0})  # warms up, keeps its pages on disk
    assert first.extensions["rulekb"].warmed.wait(120)
    assert first.wsgi_app.app.stats["stored"] > 0
    second = create_app(home, {"PAGE_CACHE_MIN_CPU": 0.0})
    assert second.extensions["rulekb"].warmed.wait(120)
    gen = second.extensions["rulekb"].current()
    cached = {key[0] for kind in gen._caches.values() for key in kind}
    assert {"search", "glossary", "contents"} <= cached  # computed here, not read from the first one's files
    assert type(gen._searcher).__name__ == "Searcher"  # the index is open
    assert second.wsgi_app.app.stats["disk"] == 0
