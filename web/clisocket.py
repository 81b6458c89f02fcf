"""The server's side of kb.remote: answer the command line's searches from the workers' warm searchers.

``serve`` binds the socket once, before the workers fork, as it does the TCP one; each worker answers
on it from a thread, with the generation and searcher its web pages use, so ``rulekb search`` prints
what it would have found itself, without loading a model first.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading

from kb import remote
from kb.errors import RulekbError
from kb.model import GAMES, LANGS

log = logging.getLogger(__name__)

READ_TIMEOUT = 5.0  # seconds for a question to arrive whole (it is one short line)
CONCURRENT = 8  # questions answered at once per worker; more wait for a turn


class Listener:
    """The bound socket of one data home, and the file it made (removed only while it is still its own)."""

    def __init__(self, sock: socket.socket, path: str):
        self.sock, self.path = sock, path
        self._inode = os.stat(path).st_ino

    def close(self) -> None:
        self.sock.close()
        with contextlib.suppress(OSError):
            if os.stat(self.path).st_ino == self._inode:  # a later server may have taken the name
                os.unlink(self.path)


def bind(home: str | os.PathLike) -> Listener | None:
    """Listen for ``rulekb search`` on ``home``'s socket; None (with the reason logged) when the
    directory is not private or another server of the same home answers there already."""
    path = remote.socket_path(home)
    if not remote.private_dir(path.parent, create=True):
        log.warning("not answering the command line: %s is not a private directory of this user", path.parent)
        return None
    if path.exists() or path.is_symlink():
        if _answers(path):
            log.warning("not answering the command line: another server of %s answers on %s", home, path)
            return None
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # left by a server that was killed
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        old = os.umask(0o177)  # the socket is created 0600: never reachable by anyone else, even briefly
        try:
            sock.bind(str(path))
        finally:
            os.umask(old)
        sock.listen(64)
    except OSError as exc:  # another server bound it just now, or the directory went away
        sock.close()
        log.warning("not answering the command line on %s: %s", path, exc.strerror or exc)
        return None
    return Listener(sock, str(path))


def _answers(path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(remote.CONNECT_TIMEOUT)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def answer_in_background(source, listener: Listener, on_question=None) -> threading.Thread:
    """Answer questions on ``listener`` from a daemon thread for as long as the process lives. ``source`` is
    the web app (its live generation's searcher answers) or a function returning the searcher to use;
    ``on_question`` is called as each question is taken (web.clidaemon counts its idle time by it)."""
    turns = threading.BoundedSemaphore(CONCURRENT)

    def loop() -> None:
        while True:
            try:
                conn, _ = listener.sock.accept()
            except OSError:  # the socket was closed: the server is stopping
                return
            if on_question is not None:
                on_question()
            turns.acquire()
            threading.Thread(target=_serve_one, args=(source, conn, turns), name="rulekb-cli", daemon=True).start()

    thread = threading.Thread(target=loop, name="rulekb-cli-accept", daemon=True)
    thread.start()
    return thread


def _serve_one(source, conn: socket.socket, turns: threading.BoundedSemaphore) -> None:
    try:
        conn.settimeout(READ_TIMEOUT)
        question = _read_question(conn)
        reply = answer(source, question) if question is not None else {"fallback": "unreadable question"}
        try:
            payload = json.dumps(reply, ensure_ascii=False)
        except (TypeError, ValueError):  # never expected: the same hits print as JSON from the CLI
            log.exception("answering the command line's search")
            payload = json.dumps({"fallback": "the server failed"})
        conn.sendall(payload.encode())
    except OSError:
        pass  # the client went away or took too long: it searches by itself
    finally:
        conn.close()
        turns.release()


def _read_question(conn: socket.socket) -> dict | None:
    data = b""
    while b"\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
        if len(data) > remote.MAX_MESSAGE:
            return None
    try:
        question = json.loads(data.split(b"\n", 1)[0])
    except ValueError:
        return None
    return question if isinstance(question, dict) else None


def answer(source, question: dict) -> dict:
    """The reply to one question (see kb.remote): a page of hits, a user's error, or a fallback. ``source``:
    the web app, or a function returning the searcher (see ``answer_in_background``)."""
    args = _search_args(question)
    if args is None:
        return {"fallback": "not a question this server knows"}
    try:
        if hasattr(source, "extensions"):  # the web app: its live generation's searcher
            searcher = source.extensions["rulekb"].current().searcher()
        else:
            searcher = source()
        if searcher is None:
            return {"fallback": "no search index"}
        page = searcher.search_page(**args)
        status = searcher.semantic_status()
        return {"page": {k: page.get(k) for k in ("hits", "notes", "confidence")}, "status": status}
    except RulekbError as exc:
        return {"error": str(exc)}
    except Exception:  # the caller searches by itself: it reports the failure as the command would
        log.exception("answering the command line's search %r", question.get("query"))
        return {"fallback": "the server failed"}


def _search_args(q: dict) -> dict | None:
    """The search's arguments from a question, or None when it is not one this server understands."""
    if q.get("protocol") != remote.PROTOCOL or q.get("op") != "search":
        return None
    query, limit, version = q.get("query"), q.get("limit"), q.get("version")
    if not isinstance(query, str) or q.get("game") not in (None, *GAMES) or q.get("lang") not in (None, *LANGS):
        return None
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 200:  # as `rulekb search --limit`
        return None
    if version is not None and not isinstance(version, str):
        return None
    return {"query": query, "game": q.get("game"), "lang": q.get("lang"), "version": version, "limit": limit}
