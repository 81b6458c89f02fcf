"""Forked workers that do not outlive the process that made them.

A build forks workers (parses, Janome analyses, lineage diffs, the index's second writer), and a server
forks its worker processes. When the parent is killed outright (SIGKILL, the OOM killer), nothing tells
them: a build's workers stayed blocked on a pipe nobody would read, holding the data home's writer lock
they inherited at the fork, and every later build was refused as "another rulekb build or ingest is
running" until someone found and killed them. Each child now asks the kernel for a signal when its
parent dies (Linux ``PR_SET_PDEATHSIG``), or, where that is not to be had, watches its parent's pid.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import sys
import threading
import time

_PR_SET_PDEATHSIG = 1


@functools.cache
def _libc():
    """The C library's functions, from this process's own symbols (``find_library`` would run ``ldconfig``
    in every new worker)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def die_with_parent(parent: int, sig: int = signal.SIGKILL) -> None:
    """Call first thing in a child forked by ``parent`` (its pid): ``sig`` reaches the child when it dies.

    The kernel sends ``sig`` when the *thread* that forked the child ends: fork from a thread that outlives
    the child (the main thread, or the one a pool is used from)."""
    libc = _libc()
    if libc is not None and libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0:
        if os.getppid() != parent:  # the parent died before the call: nobody will send the signal
            os._exit(1)
        return
    threading.Thread(target=_watch, args=(parent, sig), name="die-with-parent", daemon=True).start()


def _watch(parent: int, sig: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    if sig == signal.SIGKILL:
        os._exit(1)
    os.kill(os.getpid(), sig)
