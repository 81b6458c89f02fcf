"""Slow clients do not keep real ones out: 300 connections trickling their requests a byte at a time
(slowloris) while a normal client keeps asking, and the slow ones are closed once their time is up."""

from __future__ import annotations

import http.client
import socket
import threading
import time

from web.server import READ_TIMEOUT, start_in_thread

SLOW = 300


class Slowloris:
    """``n`` connections that each send a request line and then one more header byte every ``every`` s."""

    def __init__(self, port: int, n: int, every: float = 1.0):
        self.socks, self.opened = [], []
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /?slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: ")
            s.setblocking(False)  # a read finds out at once whether the server closed it
            self.socks.append(s)
            self.opened.append(time.monotonic())
        self.every, self.stop = every, threading.Event()
        self.closed_at: dict[int, float] = {}
        self.thread = threading.Thread(target=self.trickle, daemon=True)
        self.thread.start()

    def trickle(self) -> None:
        while not self.stop.wait(self.every):
            for i, s in enumerate(self.socks):
                if i in self.closed_at:
                    continue
                try:
                    if s.recv(1, socket.MSG_DONTWAIT) == b"":  # the server closed it
                        self.closed_at[i] = time.monotonic()
                        continue
                except BlockingIOError:  # nothing to read: still open
                    pass
                except OSError:
                    self.closed_at[i] = time.monotonic()
                    continue
                try:
                    s.sendall(b"a")
                except OSError:
                    self.closed_at[i] = time.monotonic()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        for s in self.socks:
            s.close()


def ask(port: int) -> float:
    """Seconds a normal client waits for the front page's JSON twin (status checked)."""
    t0 = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/api/versions")
        response = conn.getresponse()
        response.read()
        assert response.status == 200
    finally:
        conn.close()
    return time.monotonic() - t0


def test_300_slow_connections_do_not_stop_a_normal_client(built_home):
    server = start_in_thread(built_home)
    port = server.effective_port
    try:
        ask(port)  # the generation opened and warm
        attack = Slowloris(port, SLOW)
        started = time.monotonic()
        try:
            waits = []
            while time.monotonic() - started < READ_TIMEOUT + 8:
                waits.append(ask(port))
                time.sleep(0.5)
            open_now = sum(1 for i in range(SLOW) if i not in attack.closed_at)
            lasted = sorted(at - attack.opened[i] for i, at in attack.closed_at.items())
        finally:
            attack.close()
    finally:
        server.close()
    assert max(waits) < 3, waits  # every answer within seconds, throughout the attack
    # each slow request was cut off once its time was up (checked every CHECK_EVERY seconds)
    assert open_now == 0, f"{open_now} slow connections still open"
    assert lasted[0] >= READ_TIMEOUT - 1 and lasted[-1] <= READ_TIMEOUT + 5, (lasted[0], lasted[-1])
