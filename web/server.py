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
import functools
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable

from kb.children import die_with_parent
from kb.errors import RulekbError
from kb.model import default_workers
from web import create_app
from web.headers import harden

THREADS = 8  # waitress worker threads per process; each holds its own read-only sqlite connection
# Slow clients (slowloris: hundreds of connections, each trickling a request a byte at a time) must not
# keep real ones out. Waitress stops accepting at its connection limit (100 by default) and closes only
# idle channels, after two minutes; so here a worker holds up to CONNECTIONS channels (poll(), not
# select(): no 1,024-descriptor ceiling), a request must arrive whole within READ_TIMEOUT seconds of its
# first byte, an idle kept-alive connection is closed after IDLE_TIMEOUT, both checked every CHECK_EVERY.
CONNECTIONS = 1000
READ_TIMEOUT = 10
IDLE_TIMEOUT = 30
CHECK_EVERY = 2


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
    options.setdefault("connection_limit", connection_limit())
    options.setdefault("channel_timeout", IDLE_TIMEOUT)
    options.setdefault("cleanup_interval", CHECK_EVERY)
    options.setdefault("asyncore_use_poll", True)
    read_timeout = options.pop("read_timeout", READ_TIMEOUT)
    cli = options.pop("cli", None)
    sock = sock or listen(host, port)
    app = create_app(home)
    if cli is not None:  # the command line's searches, answered by this process too (web.clisocket)
        from web.clisocket import answer_in_background

        answer_in_background(app, cli)
    server = create_server(app, sockets=[sock], **options)
    harden(server)  # waitress's own error responses (431, 400, …) carry the security headers too
    bound_reads(server, read_timeout)
    return server


def connection_limit(wanted: int = CONNECTIONS) -> int:
    """Connections a worker may hold: ``wanted``, within this process's file descriptor limit (raised
    towards its hard limit when it allows: one descriptor per connection, and a few for the KB)."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = wanted + 128
        if soft != resource.RLIM_INFINITY and soft < target and (hard == resource.RLIM_INFINITY or hard > soft):
            soft = target if hard == resource.RLIM_INFINITY else min(hard, target)
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    except (ImportError, ValueError, OSError):
        return 100  # waitress's own default
    return max(100, min(wanted, soft - 128))


def bound_reads(server, timeout: float) -> None:
    """Close a connection whose request has not arrived whole ``timeout`` seconds after its first byte.

    Waitress's maintenance closes only idle channels: a client that sends a byte now and then is never
    idle. Each listening socket's channels note when their current request began; the maintenance that
    already runs every ``cleanup_interval`` seconds also closes those that took too long."""
    socket_map = getattr(server, "map", None) or getattr(server, "_map", {})
    for dispatcher in list(socket_map.values()):
        if getattr(dispatcher, "channel_class", None) is None:
            continue
        dispatcher.channel_class = _timed(dispatcher.channel_class)
        plain = dispatcher.maintenance

        def maintenance(now: float, plain=plain, dispatcher=dispatcher) -> None:
            plain(now)
            for channel in list(dispatcher.active_channels.values()):
                begun = getattr(channel, "request_began", None)
                if channel.request is not None and begun is not None and now - begun > timeout:
                    channel.will_close = True

        dispatcher.maintenance = maintenance


@functools.cache
def _timed(channel_class: type) -> type:
    """``channel_class`` noting when the request it reads began (its first byte)."""

    class TimedChannel(channel_class):
        request_began: float | None = None

        def received(self, data: bytes) -> bool:
            if self.request is None and data:
                self.request_began = time.time()
            return super().received(data)

    return TimedChannel


def serve(
    home: str | os.PathLike | None = None,
    host: str = "127.0.0.1",
    port: int = 5000,
    workers: int | None = None,
    prepare: Callable[[], list[str] | None] | None = None,
    **options,
) -> None:
    """Serve until interrupted, with ``workers`` processes (default: one per core).

    ``prepare`` (``rulekb serve --build``) runs once the port is held, before anything serves: it builds
    what must be there to serve (a request meanwhile waits in the socket's backlog; a taken port fails
    before any build) and returns a command that builds the rest while the server runs, or None. Pages
    follow the home's live generation, so they switch to that build's result when it is swapped in. It
    is stopped with the server."""
    from kb.home import Home
    from web.clisocket import bind

    workers = workers or default_workers()
    sock = listen(host, port)
    try:
        build = prepare() if prepare else None
        Home(home).current()  # nothing to serve: a one-line error
    except BaseException:
        sock.close()
        raise
    where = f"http://{host}:{sock.getsockname()[1]}/"
    # `rulekb search` asks this server first (kb.remote): bound once here, answered by every worker
    cli = bind(Home(home).path)
    behind = Behind(build) if build else None
    try:
        if workers == 1:
            server = make_server(home, sock=sock, cli=cli, **options)
            signal.signal(signal.SIGTERM, _interrupt)  # stop as Ctrl-C does: the build behind stops too
            try:
                print(f"rulekb: serving {where} (Ctrl-C to stop)", flush=True)
                if behind:
                    behind.start(watch=True)
                server.run()
            except KeyboardInterrupt:
                pass
            finally:
                server.close()
            return
        print(f"rulekb: serving {where} with {workers} worker processes (Ctrl-C to stop)", flush=True)
        Prefork(home, sock, workers, dict(options, cli=cli), behind=behind).run()
    finally:
        if behind:
            behind.stop()
        if cli is not None:
            cli.close()


def _interrupt(*_args) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _signals_held():
    """Hold SIGINT and SIGTERM while the build behind the server starts, and deliver them after.

    Stopping must find the build started (to interrupt it) or not started at all: a KeyboardInterrupt
    raised inside ``Popen`` would leave a running build nobody knows of. And the build is interrupted
    with SIGINT (it then drops its unfinished generation): a server started in the background has
    SIGINT ignored, which a child keeps across exec, while a handler (this one) becomes the default."""
    held: list[int] = []
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig, old in previous.items():
        if old is not None:  # None: a handler not set from Python, left alone
            signal.signal(sig, lambda signum, _frame: held.append(signum))
    try:
        yield
    finally:
        for sig, old in previous.items():
            if old is not None:
                signal.signal(sig, old)
        for sig in held:
            if previous[sig] != signal.SIG_IGN:
                signal.raise_signal(sig)  # now, to the handler it was meant for


class Behind:
    """The build that runs behind a serving ``rulekb serve --build``: started once, reported when it ends."""

    def __init__(self, argv: list[str]):
        self.argv = argv
        self.proc: subprocess.Popen | None = None
        self.done = False

    def start(self, *, watch: bool = False) -> None:
        """Start the build (``watch``: reap it from a thread; a prefork parent reaps it with its workers)."""
        print("rulekb: building the whole KB behind the server; pages switch to it when it is done", flush=True)
        with _signals_held():
            env = {**os.environ, "RULEKB_PARENT": str(os.getpid())}  # interrupted if this process dies
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, env=env)
        if watch:
            threading.Thread(target=lambda: self.ended(self.proc.wait()), name="rulekb-build", daemon=True).start()

    def ended(self, code: int) -> None:
        self.done = True
        if code == 0:
            print("rulekb: the whole KB is built and live", flush=True)
        elif code in (130, -signal.SIGINT):
            print("rulekb: the build behind the server was interrupted", flush=True)
        else:
            print(
                f"rulekb: the build behind the server failed (exit {code}); still serving the KB built before",
                flush=True,
            )

    def stop(self) -> None:
        """Interrupt an unfinished build as Ctrl-C would: it drops its unfinished generation."""
        if self.proc is None or self.done or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Prefork:
    """A parent that keeps ``workers`` waitress processes serving one inherited socket."""

    def __init__(self, home, sock: socket.socket, workers: int, options: dict, behind: Behind | None = None):
        self.home, self.sock, self.workers, self.options = home, sock, workers, options
        self.behind = behind  # a build running beside the workers (reaped here, with them)
        self.children: dict[int, float] = {}  # pid -> started at
        self.stopping = False

    def spawn(self) -> None:
        parent = os.getpid()
        # A stop that comes as the worker starts must find the worker's own handler, not the parent's that
        # the fork copied (which would leave the worker serving and the parent waiting for it), and must
        # find the worker among the children: SIGTERM waits, blocked, until both are so.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        try:
            pid = os.fork()
        except BaseException:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
            raise
        if pid == 0:  # the worker
            code = 0
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
                signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
                die_with_parent(parent, signal.SIGTERM)  # a killed parent leaves no worker on its port
                # One OpenMP thread per worker: the workers already fill the cores.
                os.environ["OMP_NUM_THREADS"] = "1"
                make_server(self.home, sock=self.sock, **self.options).run()
            except BaseException as exc:  # a worker never returns into the parent's code
                print(f"rulekb: worker {os.getpid()} failed: {exc}", file=sys.stderr, flush=True)
                code = 1
            finally:
                os._exit(code)
        self.children[pid] = time.monotonic()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})

    def stop(self, *_args) -> None:
        self.stopping = True
        for pid in list(self.children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    def run(self) -> None:
        signal.signal(signal.SIGTERM, self.stop)
        for _ in range(self.workers):
            self.spawn()
        if self.behind:
            self.behind.start()
        try:
            while self.children:
                try:
                    pid, _status = os.wait()
                except KeyboardInterrupt:
                    self.stop()
                    continue
                except ChildProcessError:
                    break
                if self.behind and self.behind.proc and pid == self.behind.proc.pid:
                    self.behind.ended(os.waitstatus_to_exitcode(_status))
                    continue
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
