"""Serve the app with waitress (a production WSGI server); loopback only unless told otherwise."""

from __future__ import annotations

import contextlib
import os
import threading

from kb.errors import RulekbError
from web import create_app
from web.headers import harden

THREADS = 8  # waitress worker threads; each holds its own read-only sqlite connection


def make_server(home: str | os.PathLike | None = None, host: str = "127.0.0.1", port: int = 5000, **options):
    """A waitress server ready to ``run()`` (port 0 picks a free port: see ``server.effective_port``)."""
    from waitress.server import create_server

    if not 0 <= int(port) <= 65535:
        raise RulekbError(f"port {port} is out of range (0-65535)")
    options.setdefault("threads", THREADS)
    options.setdefault("ident", "rulekb")
    app = create_app(home)
    try:
        server = create_server(app, host=host, port=port, **options)
    except OSError as exc:  # port taken, no permission, an address this machine does not have
        raise RulekbError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    except ValueError:  # waitress: a host name that does not resolve
        raise RulekbError(f"cannot listen on {host}:{port}: invalid host or port") from None
    harden(server)  # waitress's own error responses (431, 400, …) carry the security headers too
    return server


def serve(home: str | os.PathLike | None = None, host: str = "127.0.0.1", port: int = 5000, **options) -> None:
    """Serve until interrupted."""
    server = make_server(home, host, port, **options)
    print(f"rulekb: serving http://{host}:{server.effective_port}/ (Ctrl-C to stop)", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()


def start_in_thread(home: str | os.PathLike | None = None, host: str = "127.0.0.1", port: int = 0, **options):
    """Serve from a daemon thread (tests, benchmarks); returns the server: ``effective_port``, ``close()``."""
    server = make_server(home, host, port, **options)

    def run() -> None:
        # close() from another thread makes the loop fail on the closed sockets: a normal stop
        with contextlib.suppress(OSError, ValueError):
            server.run()

    threading.Thread(target=run, name="rulekb-web", daemon=True).start()
    return server
