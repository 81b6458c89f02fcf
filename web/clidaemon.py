"""A search server for the command line alone, started by ``rulekb search`` when no server answers.

A search in a new process pays ~0.6 s for Python's modules, Janome's dictionary, the embedding model and
the vectors before it reads a posting (docs/speed.md). ``rulekb serve`` keeps them loaded and answers the
command line on a Unix socket (kb.remote, web.clisocket). With no server running, ``rulekb search``
searches in its own process as before and starts this daemon beside it, detached, so that the searches
after it are answered warm: a process that loads the live KB's searcher once, answers on the same socket
(only this user can reach it), and exits

- after ``RULEKB_DAEMON_IDLE`` seconds (default 600) without a question,
- when the home's live generation is no longer the one it loaded (a rebuild swapped another in),
- when rulekb's own code changed under it (an upgrade, an edited checkout),

so it never answers from an old KB or old code: the next ``rulekb search`` searches by itself and starts
a new one. A running ``rulekb serve`` of the home answers first; while one does, no daemon starts, and a
daemon that finds the socket taken exits at once. ``RULEKB_DAEMON=0`` (or ``--local``) starts none. The
command line's side (whether to start one, and starting it) is ``kb.remote.start_daemon``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from pathlib import Path

CHECK_EVERY = 2.0  # seconds between its checks of the idle time, the live generation and the code
WARM_QUERY = "ブロック・クリーチャー"  # loads the tokenizer, the model and the vectors before the socket answers


def code_stamp() -> tuple:
    """What changes when rulekb's code does: each source file's name, size and modification time."""
    out = []
    for package in ("kb", "web", "ingest"):
        root = Path(sys.modules[package].__file__).parent if package in sys.modules else None
        if root is None:
            continue
        for f in sorted(root.rglob("*.py")):
            try:
                st = f.stat()
            except OSError:
                continue
            out.append((str(f), st.st_size, st.st_mtime_ns))
    return tuple(out)


def run(home: str | os.PathLike, *, idle: float | None = None) -> int:
    """Load the live KB, answer the command line until one of the reasons to stop; the exit status."""
    import importlib

    from kb import remote
    from kb.home import Home
    from kb.search.searcher import Searcher
    from web.clisocket import answer_in_background, bind

    for package in ("ingest", "web"):  # their code counts for the stamp too
        importlib.import_module(package)
    idle = remote.idle_seconds() if idle is None else idle
    h = Home(home)
    generation = h.current()
    store = h.open_store()
    searcher = Searcher(store, h.index_dir())
    searcher.search_page(WARM_QUERY, limit=10)  # the tokenizer, the model and the vectors, loaded now
    stamp = code_stamp()
    listener = bind(h.path)
    with contextlib.suppress(OSError):
        remote.socket_path(h.path).with_suffix(".starting").unlink()  # up (or not needed): others may start
    if listener is None:  # another server of this home answers, or the directory is not private
        return 0
    last = [time.monotonic()]
    lock = threading.Lock()

    def asked() -> None:
        with lock:
            last[0] = time.monotonic()

    answer_in_background(lambda: searcher, listener, on_question=asked)
    try:
        while True:
            time.sleep(min(CHECK_EVERY, idle))
            with lock:
                quiet = time.monotonic() - last[0]
            if quiet >= idle or _moved(h, generation) or code_stamp() != stamp:
                return 0
    finally:
        listener.close()


def _moved(home, generation: Path) -> bool:
    try:
        return home.current() != generation
    except Exception:  # the home was removed, or its link is unreadable
        return True


def main(argv: list[str]) -> int:
    """``python -m web.clidaemon HOME`` (how kb.remote.start_daemon starts it)."""
    from kb.errors import RulekbError

    if len(argv) != 1:
        print("usage: python -m web.clidaemon HOME", file=sys.stderr)
        return 2
    from kb import remote

    try:
        return run(argv[0])
    except RulekbError as exc:  # nothing built, or the home went away: nothing to answer with
        print(f"rulekb: {exc}", file=sys.stderr)
        return 1
    finally:  # failed or done: the next search neither waits for this daemon nor is kept from starting one
        with contextlib.suppress(OSError):
            remote.socket_path(argv[0]).with_suffix(".starting").unlink()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
