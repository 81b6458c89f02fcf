"""How many documents a query matches, from each word's postings kept as sorted arrays.

A search page says how many clauses match its loose query (every word, any of them). Whoosh counts by
walking the query's matcher tree document by document in Python (``len(searcher.search(q, limit=None,
scored=False))``): for two common words that was 40 % of a web search's CPU (issue 20). Here the
postings of each word are read once into a sorted array (kept for the next queries: the index never
changes under a searcher), and the query tree is counted with array unions and intersections.
Anything but words, ``AND``, ``OR`` and ``DisMax`` (a phrase, a prefix) is matched by Whoosh itself.
Without numpy (the semantic extra brings it) the count is Whoosh's. numpy is imported on first use:
a rule number's search loads none of it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from whoosh.query import And, DisjunctionMax, NullQuery, Or, Query, Term

from kb.search.bounded import whoosh_search

MAX_IDS = 4_000_000  # document numbers kept in all (4 bytes each), least recently used dropped first


class MatchCounter:
    """Counts a query's matches in one index; thread-safe, one per index a searcher reads."""

    def __init__(self, max_ids: int = MAX_IDS) -> None:
        self.max_ids = max_ids
        self._postings: OrderedDict[tuple[str, str], object] = OrderedDict()  # sorted numpy arrays
        self._held = 0
        self._lock = threading.Lock()

    def count(self, s, q: Query, docs: set[int] | None = None) -> int:
        """The number of documents of searcher ``s`` matching ``q`` (within ``docs`` when given)."""
        try:
            import numpy  # noqa: F401
        except ImportError:
            return len(whoosh_search(s, q, filter=docs, limit=None, scored=False))
        ids = self.ids(s, q)
        if docs is None:
            return int(ids.size)
        if ids.size <= len(docs):
            return sum(1 for d in ids.tolist() if d in docs)
        return sum(1 for d in docs if _holds(ids, d))

    def ids(self, s, q: Query):
        """The sorted document numbers matching ``q`` (a numpy array)."""
        import numpy as np

        if isinstance(q, Term):
            return self._term(s, q.fieldname, q.text)
        if q is NullQuery:
            return _empty()
        if isinstance(q, (Or, DisjunctionMax)) and not getattr(q, "minmatch", 0):
            parts = [self.ids(s, sub) for sub in q.subqueries]
            return _union(parts) if parts else _empty()
        if type(q) is And:
            parts = sorted((self.ids(s, sub) for sub in q.subqueries), key=len)
            if not parts:
                return _empty()
            out = parts[0]
            for p in parts[1:]:
                if not out.size:
                    break
                out = np.intersect1d(out, p, assume_unique=True)
            return out
        return np.array(sorted(q.docs(s)), dtype=np.int32)

    def _term(self, s, field: str, text):
        import numpy as np

        key = (field, text)
        with self._lock:
            hit = self._postings.get(key)
            if hit is not None:
                self._postings.move_to_end(key)
                return hit
        r = s.reader()
        try:
            found = (field, text) in r
        except (KeyError, ValueError):  # a field this index does not have, a text it cannot encode
            found = False
        ids = np.fromiter(r.postings(field, text).all_ids(), dtype=np.int32) if found else _empty()
        with self._lock:
            if key not in self._postings:
                self._postings[key] = ids
                self._held += ids.size
                while self._held > self.max_ids and len(self._postings) > 1:
                    _, old = self._postings.popitem(last=False)
                    self._held -= old.size
        return ids


def _empty():
    import numpy as np

    return np.zeros(0, dtype=np.int32)


def _union(parts: list):
    """The sorted distinct numbers of sorted arrays: ``np.unique`` of their concatenation, without the
    masked-array module it loads on first use (numpy 2: 50 ms of a command-line search)."""
    import numpy as np

    ids = np.concatenate(parts)
    if ids.size < 2:
        return ids
    ids.sort()
    return ids[np.concatenate(([True], ids[1:] != ids[:-1]))]


def _holds(ids, d: int) -> bool:
    import numpy as np

    i = int(np.searchsorted(ids, d))
    return i < ids.size and int(ids[i]) == d
