"""Serving before the whole KB is built: `rulekb build --current-only` builds today's editions alone, and
`rulekb serve --build` serves them while the whole KB builds behind it, then switches to it."""

from __future__ import annotations

import contextlib
import http.client
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kb.build import ManifestEntry, build_kb, current_editions, live_state
from kb.home import HELD_BACK_META, Home
from tests._kbfixtures import is_seed, write_manifest
from tests.helpers import ROOT, processes_naming

NEWER, NEWEST = "2025-02-07", "2026-01-16"
OLDER = "2024-06-07"


def _corpus(dest: Path) -> Path:
    """The seeds and three English editions."""
    dates = (OLDER, NEWER, NEWEST)
    return write_manifest(dest, lambda e: is_seed(e) or (e.format == "cr-en" and e.effective in dates))


def _english(home: Path) -> list[str]:
    store = Home(home).open_store()
    try:
        return [v.label for v in store.versions("mtg", "en")]
    finally:
        store.close()


def test_current_editions_keep_the_newest_of_each_format_and_every_undated_text():
    def entry(name, fmt, effective="", lang="en"):
        return ManifestEntry(path=Path(name), format=fmt, game="mtg", lang=lang, effective=effective)

    entries = [
        entry("old.txt", "cr-en", "2024-06-07"),
        entry("new.txt", "cr-en", "2026-01-16"),
        entry("viewer-a.txt", "viewer", "2023-11-17", "ja"),  # one edition in two files: both stay
        entry("viewer-b.txt", "viewer", "2023-11-17", "ja"),
        entry("cr-ja.txt", "cr-ja", "2026-01-16", "ja"),  # another format: its own newest
        entry("wiki.txt", "mtgwiki", "", "ja"),  # undated: always
        entry("legacy.txt", "legacy-ja", "", "ja"),
    ]
    kept = [e.path.name for e in current_editions(entries)]
    assert kept == ["new.txt", "viewer-a.txt", "viewer-b.txt", "cr-ja.txt", "wiki.txt", "legacy.txt"]


def test_a_build_of_todays_editions_then_the_whole_kb(tmp_path):
    corpus, home = _corpus(tmp_path / "corpus"), tmp_path / "home"
    assert live_state(home, corpus) == "none"

    stats = build_kb(home, corpus, current_only=True)
    assert (stats["documents"], stats["held_back"]) == (6, 2)
    assert _english(home) == ["20260116"]
    store = Home(home).open_store()
    assert store.get_meta(HELD_BACK_META) == "2"
    store.close()
    assert live_state(home, corpus) == "current"
    assert build_kb(home, corpus, current_only=True).get("reused")  # today's editions again: kept

    stats = build_kb(home, corpus)  # the whole KB is not the one built
    assert not stats.get("reused") and stats["held_back"] == 0
    assert _english(home) == ["20240607", "20250207", "20260116"]
    store = Home(home).open_store()
    assert store.get_meta(HELD_BACK_META) is None
    store.close()
    assert live_state(home, corpus) == "whole"
    again = build_kb(home, corpus, current_only=True)  # the whole KB holds today's editions
    assert again.get("reused") and again["documents"] == 8


def test_a_corpus_with_nothing_to_hold_back_builds_whole(tmp_path):
    corpus, home = write_manifest(tmp_path / "corpus", is_seed), tmp_path / "home"
    stats = build_kb(home, corpus, current_only=True)
    assert stats["held_back"] == 0
    assert live_state(home, corpus) == "whole"
    assert live_state(home, _corpus(tmp_path / "other")) == "stale"


# -- rulekb serve --build: real server processes ---------------------------------------------------------


class Served:
    """A `rulekb serve --build` process; its stdout read line by line."""

    def __init__(self, home: Path, corpus: Path, workers: int = 2):
        argv = [sys.executable, "-m", "kb", "--home", str(home), "serve", "--build", "--corpus", str(corpus)]
        self.proc = subprocess.Popen(
            [*argv, "--port", "0", "--workers", str(workers)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self.port = int(self.until("serving http://").split("127.0.0.1:")[1].split("/")[0])

    def until(self, text: str) -> str:
        for line in self.proc.stdout:
            self.lines.append(line)
            if text in line:
                return line
        raise AssertionError(f"{text!r} never printed; stdout: {self.lines}; stderr: {self.proc.stderr.read()}")

    def get(self, path: str) -> str:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request("GET", path)
        resp = conn.getresponse()
        assert resp.status == 200, path
        return resp.read().decode()

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=60)


def _processes_of(home: Path) -> list[str]:
    """Command lines of live processes that name ``home`` (the build behind a server names it)."""
    return [b" ".join(argv).decode(errors="replace") for argv in processes_naming(home).values()]


@pytest.mark.heavy
def test_serve_build_serves_todays_editions_then_the_whole_kb(tmp_path):
    corpus, home = _corpus(tmp_path / "corpus"), tmp_path / "home"
    served = Served(home, corpus)
    try:
        first = served.get("/versions")  # asked as soon as it serves: the whole KB takes seconds more
        assert 'class="building"' in first and "2 more documents" in first
        assert "20260116" in first and "20240607" not in first
        assert json.loads(served.get("/api/versions"))["held_back"] == 2  # what JSON clients are told
        served.until("the whole KB is built and live")
        later = served.get("/versions")
        assert 'class="building"' not in later
        assert "20240607" in later and "20250207" in later
        assert json.loads(served.get("/api/versions"))["held_back"] == 0
    finally:
        assert served.stop() == 0
    assert live_state(home, corpus) == "whole"

    again = Served(home, corpus)  # the whole KB is live: nothing is built
    try:
        assert 'class="building"' not in again.get("/versions")
    finally:
        again.stop()
    assert not any("building the whole KB" in line for line in again.lines)


@pytest.mark.heavy
@pytest.mark.parametrize("workers", [1, 2])  # one process stops on SIGTERM as the prefork parent does
@pytest.mark.parametrize("when", ["starting", "building"])
def test_stopping_the_server_stops_the_build_behind_it(tmp_path, workers, when):
    """Stopped as the build's process appears (a signal inside the server's Popen must not lose it), or
    once it writes its generation (interrupted, it drops it)."""
    corpus, home = _corpus(tmp_path / "corpus"), tmp_path / "home"
    build_kb(home, corpus, current_only=True)
    live = Home(home).current()
    served = Served(home, corpus, workers)  # today's editions are live: it serves them at once, builds behind
    served.until("building the whole KB behind the server")
    deadline = time.time() + 30

    def started() -> bool:
        if when == "starting":
            return any(" build " in p for p in _processes_of(home))
        return any(p.name != live.name for p in home.glob("gen-*"))

    while not started():
        assert time.time() < deadline, f"the build behind the server never got to {when}"
        time.sleep(0.02)
    assert served.stop() == 0
    assert not _processes_of(home)  # the build and its workers are gone
    assert Home(home).current() == live  # the KB served before is still live
    assert sorted(p.name for p in home.glob("gen-*")) == [live.name]  # the unfinished one was dropped


@pytest.mark.heavy
@pytest.mark.parametrize("workers", [1, 2])
def test_a_killed_server_takes_the_build_behind_it_along(tmp_path, workers):
    """kill -9 of the server (of the prefork parent alone with two workers): the build behind it is
    interrupted as if stopped, so it neither holds the writer lock nor swaps a KB in behind no server."""
    corpus, home = _corpus(tmp_path / "corpus"), tmp_path / "home"
    build_kb(home, corpus, current_only=True)
    live = Home(home).current()
    served = Served(home, corpus, workers)
    served.until("building the whole KB behind the server")
    deadline = time.time() + 30
    while not any(p.name != live.name for p in home.glob("gen-*")):
        assert time.time() < deadline, "the build behind the server never wrote its generation"
        time.sleep(0.02)
    served.proc.kill()
    served.proc.wait(timeout=30)
    deadline = time.time() + 30
    while _processes_of(home) and time.time() < deadline:
        time.sleep(0.05)
    assert not _processes_of(home)  # the build, its workers and the server's workers are gone
    assert Home(home).current() == live
    assert sorted(p.name for p in home.glob("gen-*")) == [live.name]  # the unfinished one was dropped
    assert build_kb(home, corpus)["held_back"] == 0  # the writer lock is free: the next build runs


@pytest.mark.heavy
def test_a_failed_build_behind_the_server_leaves_todays_editions_serving(tmp_path):
    corpus, home = _corpus(tmp_path / "corpus"), tmp_path / "home"
    bad = tmp_path / "corpus" / "broken.txt"
    bad.write_text("This is not a rules text.\n", encoding="utf-8")
    manifest = corpus / "manifest.toml"
    manifest.write_text(
        manifest.read_text(encoding="utf-8")
        + f'\n[[document]]\npath = "{bad}"\nformat = "cr-en"\ngame = "mtg"\nlang = "en"\neffective = "2001-01-01"\n',
        encoding="utf-8",
    )
    served = Served(home, corpus)
    try:
        served.until("the build behind the server failed (exit 1)")
        assert 'class="building"' in served.get("/versions")
        assert served.proc.poll() is None  # still serving
    finally:
        served.stop()
    assert "broken.txt" in served.proc.stderr.read()  # the build's one-line error names the file
    assert live_state(home, corpus) == "current"


def test_a_store_this_code_cannot_read_is_told_apart(tmp_path):
    corpus, home = write_manifest(tmp_path / "corpus", is_seed), tmp_path / "home"
    build_kb(home, corpus)
    (Home(home).current() / "kb.sqlite").write_bytes(b"not a database, not even close" * 100)
    assert live_state(home, corpus) == "unreadable"  # `serve --build` builds before serving, not behind


def test_a_taken_port_fails_before_anything_is_built(tmp_path):
    import socket

    corpus, home = _corpus(tmp_path / "corpus"), tmp_path / "home"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = [sys.executable, "-m", "kb", "--home", str(home), "serve", "--build", "--corpus", str(corpus)]
        proc = subprocess.run([*argv, "--port", str(port)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [f"rulekb: cannot listen on 127.0.0.1:{port}: Address already in use"]
    assert live_state(home, corpus) == "none"  # nothing was built


@pytest.mark.heavy
def test_a_request_made_while_todays_editions_build_is_answered_when_they_are_served(tmp_path):
    """The port is held from the start: a browser opened at once waits, and gets the page."""
    corpus, home = _corpus(tmp_path / "corpus"), tmp_path / "home"
    argv = [sys.executable, "-m", "kb", "--home", str(home), "serve", "--build", "--corpus", str(corpus)]
    with socket_port() as port:
        pass
    proc = subprocess.Popen([*argv, "--port", str(port)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 30
        while True:  # connect as soon as the port is held, while today's editions are still building
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                conn.connect()
                break
            except ConnectionRefusedError:
                assert time.time() < deadline, "the port was never held"
                time.sleep(0.05)
        assert live_state(home, corpus) == "none"  # asked before anything was built
        conn.request("GET", "/versions")
        resp = conn.getresponse()
        assert resp.status == 200 and b"20260116" in resp.read()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


@contextlib.contextmanager
def socket_port():
    """A port free a moment ago."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]
