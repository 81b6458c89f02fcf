"""One-time loads are not charged to the query that happens to trigger them.

A search has a CPU budget (kb.search.bounded.Deadline). The first search of a process also pays for
loading things that stay loaded: Janome's dictionary, Sudachi's, the embedding model, the vectors,
and the ranker. That can take 0.4 s of a 1 s budget on a quiet machine and all of it on a busy one.
Code that loads such a thing wraps the load in ``one_time_load()``. The thread's CPU time spent
there is added up, and a deadline does not count it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

_local = threading.local()


@contextmanager
def one_time_load() -> Iterator[None]:
    """Mark a load that happens once per process (or per searcher): its CPU time is not a query's.
    When loads are nested, the time is counted once."""
    depth = getattr(_local, "depth", 0)
    _local.depth = depth + 1
    start = time.thread_time()
    try:
        yield
    finally:
        _local.depth = depth
        if depth == 0:
            _local.spent = getattr(_local, "spent", 0.0) + time.thread_time() - start


def load_time() -> float:
    """CPU seconds this thread has spent in one-time loads so far."""
    return getattr(_local, "spent", 0.0)
