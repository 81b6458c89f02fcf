"""The live KB generation behind each request, reopened when a rebuild swaps ``current``."""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kb.errors import StoreError
from kb.home import INDEX_DIR, STORE_FILE, Home
from kb.store import Store

log = logging.getLogger(__name__)

# Computed pages kept per generation (a generation never changes once swapped in). Whole-version
# pages (diffs, alignments, contents, glossary) can weigh megabytes: few of them; clauses and
# search results are small: many.
HEAVY = {"diff", "align", "contents", "glossary", "tests"}
CACHE_SIZES = {"heavy": 32, "light": 4096}


class Generation:
    """One built generation: per-thread store and searcher, plus a cache of computed results."""

    def __init__(self, path: Path):
        self.path = path
        self.name = path.name
        self._local = threading.local()
        self._caches: dict[str, OrderedDict[tuple, Any]] = {k: OrderedDict() for k in CACHE_SIZES}
        self._lock = threading.Lock()
        self._failed: set[str] = set()

    def store(self) -> Store:
        """This thread's read-only connection (sqlite connections are not shared across threads)."""
        store = getattr(self._local, "store", None)
        if store is None:
            path = self.path / STORE_FILE
            if not path.exists():
                raise StoreError(f"{path}: missing; run `rulekb build`")
            store = self._local.store = Store.open(str(path))
        return store

    def searcher(self):
        """This thread's searcher, or None when the search service or the index is missing."""
        if not hasattr(self._local, "searcher"):
            self._local.searcher = _open_searcher(self.store(), self.path / INDEX_DIR)
        return self._local.searcher

    def report_failure(self, what: str, exc: Exception) -> None:
        """Log a service failure with its traceback once per generation, then one line each time."""
        with self._lock:
            first = what not in self._failed
            self._failed.add(what)
        if first:
            log.error("%s failed in %s; falling back", what, self.name, exc_info=exc)
        else:
            log.warning("%s failed in %s: %s", what, self.name, exc)

    def cached(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """Compute once per generation (least recently used entries dropped first)."""
        kind = "heavy" if key[0] in HEAVY else "light"
        cache = self._caches[kind]
        with self._lock:
            if key in cache:
                cache.move_to_end(key)
                return cache[key]
        value = compute()
        with self._lock:
            cache[key] = value
            while len(cache) > CACHE_SIZES[kind]:
                cache.popitem(last=False)
        return value


def _open_searcher(store: Store, index_dir: Path):
    try:
        from kb.search import Searcher
    except ImportError:
        return None
    if not index_dir.is_dir():
        return None
    try:
        return Searcher(store, str(index_dir))
    except Exception:  # a missing or half-written index must not take the site down
        log.exception("cannot open the search index in %s", index_dir)
        return None


class KBState:
    """Follow ``HOME/current``: one readlink per request, generations opened on first use."""

    def __init__(self, home: str | os.PathLike | None):
        self.home = Home(home)
        self._gens: OrderedDict[str, Generation] = OrderedDict()
        self._lock = threading.Lock()

    def current(self) -> Generation:
        """The generation live now; a request keeps the one it started with."""
        try:
            name = os.readlink(self.home.link)
        except OSError:
            raise StoreError(f"no knowledge base in {self.home.path}: run `rulekb build` first") from None
        with self._lock:
            gen = self._gens.get(name)
            if gen is None:
                gen = self._gens[name] = Generation(self.home.path / name)
                # Older generations stay referenced by in-flight requests only; drop ours.
                while len(self._gens) > 2:
                    self._gens.popitem(last=False)
            return gen
