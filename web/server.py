"""Serve the app with waitress (a production WSGI server); loopback only unless told otherwise.

One waitress process is bound by Python's interpreter lock: a search is CPU work (~26 ms of words,
plus ~17 ms to embed the query), so one process uses one core however many threads it has.
``serve`` therefore pre-forks: the parent binds the socket once and starts one waitress process per
core on it; the kernel hands each connection to whichever process accepts it first. Each worker
builds its own app after the fork and opens the read-only generation lazily, so nothing (SQLite
connections, the index, the embedder's threads) is shared across the fork. The parent restarts a
worker that dies and stops them all on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
import time

from kb.errors import RulekbError
from web import create_app
from web.headers import harden

THREADS = 8  # waitress worker threads per process; each holds its own read-only sqlite connection


def default_workers() -> int:
    """One worker process per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket, or a one-line RulekbError (port taken, bad host, out of range)."""
    if not 0 <= int(port) <= 65535:
        raise RulekbError(f"port {port} is out of range (0-65535)")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError):
        raise RulekbError(f"cannot listen on {host}:{port}: invalid host or port") from None
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(addr)
        sock.listen(1024)
    except OSError as exc:
        sock.close()
        raise RulekbError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def make_server(
    home: str | os.PathLike | None = None,
    host: str = "127.0.0.1",
    port: int = 5000,
    *,
    sock: socket.socket | None = None,
    **options,
):
    """A waitress server ready to ``run()`` (port 0 picks a free port: see ``server.effective_port``)."""
    from waitress.server import create_server

    options.setdefault("threads", THREADS)
    options.setdefault("ident", "rulekb")
    sock = sock or listen(host, port)
    server = create_server(create_app(home), sockets=[sock], **options)
    harden(server)  # waitress's own error responses (431, 400, …) carry the security headers too
    return server


def serve(
    home: str | os.PathLike | None = None,
    host: str = "127.0.0.1",
    port: int = 5000,
    workers: int | None = None,
    **options,
) -> None:
    """Serve until interrupted, with ``workers`` processes (default: one per core)."""
    workers = workers or default_workers()
    sock = listen(host, port)
    where = f"http://{host}:{sock.getsockname()[1]}/"
    if workers == 1:
        server = make_server(home, sock=sock, **options)
        print(f"rulekb: serving {where} (Ctrl-C to stop)", flush=True)
        try:
            server.run()
        except KeyboardInterrupt:
            pass
        finally:
            server.close()
        return
    print(f"rulekb: serving {where} with {workers} worker processes (Ctrl-C to stop)", flush=True)
    Prefork(home, sock, workers, options).run()


class Prefork:
    """A parent that keeps ``workers`` waitress processes serving one inherited socket."""

    def __init__(self, home, sock: socket.socket, workers: int, options: dict):
        self.home, self.sock, self.workers, self.options = home, sock, workers, options
        self.children: dict[int, float] = {}  # pid -> started at
        self.stopping = False

    def spawn(self) -> None:
        pid = os.fork()
        if pid == 0:  # the worker
            code = 0
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
                signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
                # One OpenMP thread per worker: the workers already fill the cores.
                os.environ["OMP_NUM_THREADS"] = "1"
                make_server(self.home, sock=self.sock, **self.options).run()
            except BaseException as exc:  # a worker never returns into the parent's code
                print(f"rulekb: worker {os.getpid()} failed: {exc}", file=sys.stderr, flush=True)
                code = 1
            finally:
                os._exit(code)
        self.children[pid] = time.monotonic()

    def stop(self, *_args) -> None:
        self.stopping = True
        for pid in list(self.children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    def run(self) -> None:
        signal.signal(signal.SIGTERM, self.stop)
        for _ in range(self.workers):
            self.spawn()
        try:
            while self.children:
                try:
                    pid, _status = os.wait()
                except KeyboardInterrupt:
                    self.stop()
                    continue
                except ChildProcessError:
                    break
                started = self.children.pop(pid, None)
                if not self.stopping and started is not None:
                    if time.monotonic() - started < 1.0:
                        time.sleep(1.0)  # a worker that dies at once: do not spin
                    self.spawn()
        finally:
            self.sock.close()


def start_in_thread(home: str | os.PathLike | None = None, host: str = "127.0.0.1", port: int = 0, **options):
    """Serve from a daemon thread (tests, benchmarks); returns the server: ``effective_port``, ``close()``."""
    server = make_server(home, host, port, **options)

    def run() -> None:
        # close() from another thread makes the loop fail on the closed sockets: a normal stop
        with contextlib.suppress(OSError, ValueError):
            server.run()

    threading.Thread(target=run, name="rulekb-web", daemon=True).start()
    return server
