"""Clauses ranked for a citation's words the way ``rulekb search`` ranks them.

The one place link code asks the search library: ``ranked`` opens a searcher on the index beside the store
(the generation's ``index`` directory) and returns clause ids best first, or nothing when the knowledge base
has no index (a test store, a bare SQLite file): suggestions then rest on lineage and wording alone.
"""

from __future__ import annotations

import logging
import os
import re
import threading

log = logging.getLogger(__name__)
MAX_QUERY = 200  # characters of a query: the line's gist, not a paragraph
_lock = threading.Lock()
_searchers: dict[str, object] = {}


def _searcher(store):
    """A searcher over the index beside ``store`` (one per store file), or None without a usable index."""
    path = getattr(store, "path", "") or ""
    with _lock:
        if _searchers.get(path) is None:
            _searchers[path] = _open(path)  # an index built later is found then
        return _searchers[path]


def _open(path: str):
    from kb.errors import RulekbError
    from kb.home import INDEX_DIR
    from kb.search.searcher import Searcher
    from kb.store import Store

    index_dir = os.path.join(os.path.dirname(path), INDEX_DIR) if path else ""
    if not index_dir or not os.path.isdir(index_dir):
        return None
    try:
        # its own read-only connection: the caller's store may be used from another thread meanwhile. Only the
        # public entry with its defaults and its hits: search's ranking is being rewritten (issue 19).
        return Searcher(Store.open(path), index_dir)
    except (RulekbError, OSError) as exc:
        log.info("no search ranking for link suggestions: %s", exc)
        return None


def ranked(store, text: str, *, game: str, lang: str, version: str, limit: int = 10) -> list[str]:
    """Clause ids of ``version`` for ``text``, in search's order (empty without an index or words)."""
    query = re.sub(r"\s+", " ", text).strip()[:MAX_QUERY]
    searcher = _searcher(store) if query else None
    if searcher is None:
        return []
    hits = searcher.search(query, game=game, lang=lang, version=version, limit=limit)
    return list(dict.fromkeys(h["rule"] for h in hits if h.get("rule")))
