"""The live KB generation behind each request, reopened when a rebuild swaps ``current``."""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kb.errors import StoreError
from kb.home import HELD_BACK_META, INDEX_DIR, STORE_FILE, Home, identity
from kb.search.searcher import Searcher
from kb.store import Store

log = logging.getLogger(__name__)

# Computed pages kept per generation (a generation never changes once swapped in). Whole-version
# pages (diffs, alignments, contents, glossary) can weigh megabytes: few of them; clauses and
# search results are small: many.
HEAVY = {"diff", "align", "contents", "contents-html", "contents-outline", "glossary", "tests"}
HEAVY |= {f"page-{kind}" for kind in HEAVY}
# Rendered pages ("page-<view>", keyed by URL) when web.pagecache is off: a clause page weighs some 30 KB.
CACHE_SIZES = {"heavy": 32, "pages": 512, "light": 4096}


_UNSET = object()


class Generation:
    """One built generation: per-thread stores, one shared searcher, and a cache of computed results."""

    def __init__(self, path: Path):
        self.path = path
        self.name = path.name
        self._local = threading.local()
        self._caches: dict[str, OrderedDict[tuple, Any]] = {k: OrderedDict() for k in CACHE_SIZES}
        self._lock = threading.Lock()
        self._searcher_lock = threading.Lock()
        self._searcher: Any = _UNSET
        self._failed: set[str] = set()
        self._versions = None
        self._memo: dict[str, Any] = {}  # values derived from the contents, shared by every connection

    def store(self) -> Store:
        """This thread's read-only connection (sqlite connections are not shared across threads)."""
        store = getattr(self._local, "store", None)
        if store is None:
            path = self.path / STORE_FILE
            if not path.exists():
                raise StoreError(f"{path}: missing; run `rulekb build`")
            store = self._local.store = Store.open(str(path))
            self._share_versions(store)
        return store

    def _share_versions(self, store: Store) -> None:
        """Give a new connection what is read once for the generation: the version list (a scan of every
        node) and the values derived from the contents (``Store.derived``)."""
        with self._lock:
            if self._versions is None:
                self._versions = store.versions()
            store.use_versions(self._versions)
            store.share_memo(self._memo)

    @functools.cached_property
    def held_back(self) -> int:
        """How many corpus documents a build of today's editions left out (0 for a whole KB): the whole
        KB is still being built (``rulekb serve --build``) or was never built."""
        return int(self.store().get_meta(HELD_BACK_META) or 0)

    @functools.cached_property
    def identity(self) -> str:
        """The generation's content hash (kb.home.identity): the same in every worker process."""
        return identity(self.path)

    def searcher(self):
        """The generation's searcher, or None when the search service or the index is missing.

        One for all threads: kb.search.searcher.Searcher keeps a Whoosh searcher per thread itself, and opening
        one reads the index's vocabulary and thesaurus (seconds on the full KB)."""
        if self._searcher is _UNSET:
            with self._searcher_lock:
                if self._searcher is _UNSET:
                    path = self.path / STORE_FILE
                    if not path.exists():
                        raise StoreError(f"{path}: missing; run `rulekb build`")
                    shared = Store.open(str(path))  # read-only and serialised: safe across threads
                    self._share_versions(shared)
                    self._searcher = _open_searcher(shared, self.path / INDEX_DIR)
        return self._searcher

    def report_failure(self, what: str, exc: Exception) -> None:
        """Log a service failure with its traceback once per generation, then one line each time."""
        with self._lock:
            first = what not in self._failed
            self._failed.add(what)
        if first:
            log.error("%s failed in %s; falling back", what, self.name, exc_info=exc)
        else:
            log.warning("%s failed in %s: %s", what, self.name, exc)

    def cached(self, key: tuple, compute: Callable[[], Any], keep: Callable[[Any], bool] | None = None) -> Any:
        """Compute once per generation (least recently used entries dropped first); a value ``keep``
        refuses is returned but not kept."""
        kind = "heavy" if key[0] in HEAVY else "pages" if key[0].startswith("page-") else "light"
        cache = self._caches[kind]
        with self._lock:
            if key in cache:
                cache.move_to_end(key)
                return cache[key]
        value = compute()
        if keep is not None and not keep(value):
            return value
        with self._lock:
            cache[key] = value
            while len(cache) > CACHE_SIZES[kind]:
                cache.popitem(last=False)
        return value


def _open_searcher(store: Store, index_dir: Path) -> Searcher | None:
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
        self._warm_app = None
        self.warmed = threading.Event()  # set when a warm-up finished (tests and benchmarks wait on it)

    def current(self) -> Generation:
        """The generation live now; a request keeps the one it started with."""
        path = self.home.current()
        with self._lock:
            gen = self._gens.get(path.name)
            if gen is None:
                gen = self._gens[path.name] = Generation(path)
                # Older generations stay referenced by in-flight requests only; drop ours.
                while len(self._gens) > 2:
                    self._gens.popitem(last=False)
                if self._warm_app is not None and len(self._gens) > 1:  # a rebuild was swapped in
                    self._start_warmup()
            return gen

    def warm_in_background(self, app) -> None:
        """Warm the live generation now, and each one a rebuild swaps in later (see web.warmup)."""
        self._warm_app = app
        self._start_warmup()

    def _start_warmup(self) -> None:
        from web.warmup import warm

        self.warmed.clear()
        threading.Thread(target=warm, args=(self._warm_app, self), name="rulekb-warmup", daemon=True).start()
