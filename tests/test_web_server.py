"""`rulekb serve` on every core: one waitress process per worker on one socket, restarted when one
dies, all stopped by SIGTERM to the parent."""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys

import pytest

from kb.build import build_kb
from tests._kbfixtures import seed_corpus
from tests.helpers import ROOT, alive, children, wait_for

pytestmark = pytest.mark.heavy  # a seed KB built, served by real worker processes


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve")
    build_kb(root / "home", seed_corpus(root / "corpus"))
    return root / "home"


def test_workers_share_one_socket_restart_and_stop(home):
    code = f"from web.server import serve; serve({str(home)!r}, port=0, workers=2)"
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert "with 2 worker processes" in line
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        kids = wait_for(lambda: c if len(c := children(proc.pid)) == 2 else None)
        for _ in range(6):  # keep-alive off: each request a new connection, accepted by either worker
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request("GET", "/search?q=%E3%83%96%E3%83%AD%E3%83%83%E3%82%AF&jump=0")
            resp = conn.getresponse()
            assert resp.status == 200 and "509" in resp.read().decode()
            conn.close()
        victim = sorted(kids)[0]
        os.kill(victim, signal.SIGKILL)
        wait_for(lambda: c if len(c := children(proc.pid)) == 2 and victim not in c else None)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        assert not children(proc.pid)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_killed_parent_leaves_no_worker_on_its_port(home):
    # kill -9 of the parent alone (the OOM killer, a supervisor's hard stop): its workers go with it, and the
    # port is free for the next `rulekb serve`
    code = f"from web.server import serve; serve({str(home)!r}, port=0, workers=2)"
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline().split("http://127.0.0.1:")[1].split("/")[0])
        kids = wait_for(lambda: c if len(c := children(proc.pid)) == 2 else None)
        proc.kill()
        proc.wait()
        wait_for(lambda: not any(alive(pid) for pid in kids), timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    from web.server import listen

    listen("127.0.0.1", port).close()  # "in use" while a worker of the killed server held the socket


def test_a_taken_port_is_one_line(home):
    from kb.errors import RulekbError
    from web.server import listen, serve

    sock = listen("127.0.0.1", 0)
    try:
        with pytest.raises(RulekbError, match="cannot listen on 127.0.0.1:.*in use"):
            serve(home, port=sock.getsockname()[1], workers=2)
    finally:
        sock.close()
