"""The command line's way into a running ``rulekb serve``: ask its warm searcher instead of loading one.

A search from a new process loads Python's modules, Janome's dictionary, the embedding model and the
vectors (~0.6 s) before it reads a posting; a server has them loaded. ``rulekb serve`` listens on a
Unix socket named after its data home (``socket_path``); ``rulekb search`` asks there first and
searches in its own process only when nothing answers. The socket lives in a directory only this
user can enter (``$XDG_RUNTIME_DIR`` or ``/tmp/rulekb-UID``, checked before use), so no other user can
answer in the server's place or read the questions.

The exchange is one JSON line each way: ``{"protocol": 1, "op": "search", ...}`` and back either
``{"page": ..., "status": ...}``, ``{"error": message}`` (an error the user made, shown as the local
search would show it) or ``{"fallback": reason}`` (the server cannot answer: search here instead).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kb.errors import RulekbError

PROTOCOL = 1
MAX_MESSAGE = 1 << 16  # a question is a few hundred bytes; a bigger one is refused unread
REPLY_LIMIT = 64 << 20  # 200 hits with their texts stay far below this
CONNECT_TIMEOUT = 0.5  # seconds; a server that does not accept by then is not used
REPLY_TIMEOUT = 30.0  # seconds; a search is bounded (kb.search.bounded), a busy server still answers
DAEMON_IDLE = 600.0  # seconds without a question before a daemon started by `rulekb search` exits
STARTING = 30.0  # seconds a daemon being started keeps another from starting (it removes the mark when up)
STARTING_WAIT = 3.0  # seconds a search waits for a daemon that is loading before it loads everything itself
_OFF = {"0", "no", "off", "false"}


def runtime_dir() -> Path:
    """This user's directory for sockets: ``$XDG_RUNTIME_DIR/rulekb``, else ``TMPDIR/rulekb-UID``."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and os.path.isdir(base):
        return Path(base) / "rulekb"
    return Path(tempfile.gettempdir()) / f"rulekb-{os.getuid()}"


def socket_path(home: str | os.PathLike) -> Path:
    """Where a server of data home ``home`` listens: one socket per home (the resolved path's hash, so
    the name stays short: a Unix socket's path is limited to ~100 bytes)."""
    key = hashlib.sha256(os.fsencode(os.path.realpath(home))).hexdigest()[:20]
    return runtime_dir() / f"{key}.sock"


def private_dir(path: Path, *, create: bool) -> bool:
    """True when ``path`` is a directory owned by this user that no one else can write or enter
    (made so when ``create``); False when it is missing or anyone else could plant a socket in it."""
    if create:
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=0o700, parents=True)
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def ask(home: str | os.PathLike, question: dict) -> dict | None:
    """The running server's answer to ``question``, or None when no server of ``home`` answers (none
    runs, it went away, it timed out or it asks the caller to search itself). Raises RulekbError with the
    server's message for an error in the question (an unknown version, a query too long)."""
    path = socket_path(home)
    if not private_dir(path.parent, create=False):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        sock.connect(str(path))
        sock.settimeout(REPLY_TIMEOUT)
        sock.sendall(json.dumps({"protocol": PROTOCOL, **question}, ensure_ascii=False).encode() + b"\n")
        sock.shutdown(socket.SHUT_WR)
        reply = _read_all(sock)
    except OSError:  # no socket, a stale one (refused), a timeout, a server stopping mid-answer
        return None
    finally:
        sock.close()
    try:
        answer = json.loads(reply)
    except ValueError:
        return None
    if not isinstance(answer, dict) or "fallback" in answer:
        return None
    if "error" in answer:
        raise RulekbError(str(answer["error"]))
    return answer


def starting(home: str | os.PathLike) -> bool:
    """True while a daemon started for ``home`` is still loading (its mark is fresh)."""
    try:
        return time.time() - socket_path(home).with_suffix(".starting").stat().st_mtime < STARTING
    except OSError:
        return False


def wait_for_daemon(home: str | os.PathLike, timeout: float = STARTING_WAIT) -> bool:
    """Wait up to ``timeout`` seconds for a daemon that is loading to answer; True once it does. A search
    started right after the one that started it waits rather than loading everything beside it."""
    path = socket_path(home)
    deadline = time.monotonic() + timeout
    loading = starting(home)
    while loading and time.monotonic() < deadline:
        loading = starting(home)  # read before the probe: a daemon removes its mark once it answers
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.settimeout(CONNECT_TIMEOUT)
            probe.connect(str(path))
            return True
        except OSError:
            if loading:
                time.sleep(0.05)
        finally:
            probe.close()
    return False


def _read_all(sock: socket.socket) -> bytes:
    chunks, size = [], 0
    while chunk := sock.recv(1 << 16):
        chunks.append(chunk)
        size += len(chunk)
        if size > REPLY_LIMIT:
            raise OSError("reply too large")
    return b"".join(chunks)


def daemon_enabled() -> bool:
    """False when ``RULEKB_DAEMON`` says no (the tests' setting; a user's choice)."""
    return os.environ.get("RULEKB_DAEMON", "1").strip().lower() not in _OFF


def idle_seconds() -> float:
    """How long a daemon waits for a question before it exits (``RULEKB_DAEMON_IDLE``, default 600 s)."""
    try:
        return max(1.0, float(os.environ.get("RULEKB_DAEMON_IDLE", DAEMON_IDLE)))
    except ValueError:
        return DAEMON_IDLE


def start_daemon(home: str | os.PathLike) -> bool:
    """Start a search daemon for ``home`` (web.clidaemon) in its own session, its output discarded, so that the
    next ``rulekb search`` is answered warm; False when it could not start. It outlives this process on
    purpose and stops by itself: idle, a rebuild, new code."""
    marker = socket_path(home).with_suffix(".starting")  # one start at a time: it loads for a second or two
    if not private_dir(marker.parent, create=True):
        return False
    if starting(home):
        return False
    try:
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.close(fd)
    except OSError:
        return False
    argv = [sys.executable, "-m", "web.clidaemon", str(Path(home).absolute())]
    try:
        subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # not the terminal's: a Ctrl-C there does not reach it
            cwd="/",
        )
    except OSError:
        return False
    return True
