"""A word tier's top hits scored on arrays: the numbers Whoosh gives, without its per-document walk.

A search runs its word tiers (kb.search.searcher) as Whoosh queries of words, ``AND``, ``OR`` and
``DisMax``. Whoosh scores them by walking a tree of matchers document by document in Python: for two
glossary words that walk was 40 % of a web search's CPU (issue 20), the ``all words but one`` and the
loose tier above all. Here each word's postings and their BM25F scores are read once, through Whoosh's
own matcher (kept for the next queries: the index never changes under a searcher), and the tree is
combined on dense arrays over the index's documents.

The result is Whoosh's, number for number and in the same order, because the same floating-point
operations run in the same order:

- the matcher tree has Whoosh's shape: ``AND``, ``OR`` and ``DisMax`` build a weighted (Huffman-like)
  tree of binary matchers over their parts' size estimates, a stable sort (Whoosh's matchers compare
  equal), and a union adds its two sides' scores, an intersection too, a boost multiplies;
- an ``OR`` of three or more parts in an index of at most 5,000 documents is Whoosh's preloaded union
  instead: each part's score times the boost, added in the parts' order, and a document whose sum is
  not above 0 is no match;
- Whoosh's ``DisMax`` matcher takes the larger of its sides' *current* scores, and a side that does not
  match the document being scored sits on its next match: that side's score there counts (a quirk of
  Whoosh kept on purpose: the ranking was tuned on it);
- the top N are ordered by score, then by document number, as Whoosh's top-N collector keeps them.

Anything else (a phrase, a prefix, a scaled ``OR``, an index of several segments) returns None and the
caller asks Whoosh. tests/test_scores.py checks the equality on random trees over two indexes (above and
below 5,000 documents); bench/search.py shows the time. numpy is imported on first use.
"""

from __future__ import annotations

import threading
from bisect import insort
from collections import OrderedDict
from typing import Any

from whoosh.query import And, DisjunctionMax, NullQuery, Or, Query, Term

MAX_POSTINGS = 2_000_000  # (document, score) pairs kept in all (16 bytes each), least recently used dropped first
SMALL_INDEX = 5000  # Whoosh's Or preloads its parts' scores at or below this many documents
TOO_MANY_CLAUSES = Or.TOO_MANY_CLAUSES


class Unsupported(Exception):
    """A query part this module does not score (the caller asks Whoosh)."""


class _Key:
    """A matcher-tree entry of make_weighted_tree: ordered by weight alone (Whoosh's matchers compare
    equal to each other), so ``insort`` places a new entry after the entries of equal weight."""

    __slots__ = ("weight", "node")

    def __init__(self, weight: int, node) -> None:
        self.weight, self.node = weight, node

    def __lt__(self, other: _Key) -> bool:
        return self.weight < other.weight


class TierScorer:
    """Scores Whoosh queries of one searcher's index on arrays; thread-safe, one per index."""

    def __init__(self, max_postings: int = MAX_POSTINGS) -> None:
        self.max_postings = max_postings
        self._terms: OrderedDict[tuple[str, bytes], tuple[Any, Any]] = OrderedDict()
        self._df: dict[tuple[str, str], int] = {}
        self._held = 0
        self._lock = threading.Lock()
        self._masks: OrderedDict[int, tuple[set, Any]] = OrderedDict()

    def top(
        self, s, q: Query, docs: set[int] | None, limit: int, memo: dict | None = None
    ) -> list[tuple[int, float]] | None:
        """The ``limit`` best (document number, score) of ``q`` in searcher ``s`` (within ``docs`` when
        given), best first, as Whoosh's ``search(q, filter=docs, limit=limit)`` gives them; None when
        the query or index is not one this module scores. ``memo`` (a dict kept for one search's tiers)
        keeps the words they share: a word's DisMax is in the all-words, all-but-one and loose tiers."""
        try:
            import numpy as np
        except ImportError:
            return None
        if not s.is_atomic():
            return None
        try:
            match, score = self._node(s, q, {} if memo is None else memo)
        except Unsupported:
            return None
        if docs is not None:
            match = match & self._mask(s, docs)
        found = np.flatnonzero(match)
        if found.size == 0:
            return []
        values = score[found]
        if found.size > limit:
            # the limit-th best score; every document scoring above it is in, ties by document number
            cut = np.partition(values, found.size - limit)[found.size - limit]
            keep = values >= cut
            found, values = found[keep], values[keep]
        order = np.lexsort((found, -values))[:limit]
        return list(zip(found[order].tolist(), values[order].tolist(), strict=True))

    def postings(self, s, field: str, text: str):
        """(sorted document numbers, BM25F scores) of one term, as its Whoosh matcher scores them;
        (None, None) when the index lacks it; None without numpy or for an index of several segments."""
        try:
            import numpy  # noqa: F401
        except ImportError:
            return None
        return self._postings(s, field, text) if s.is_atomic() else None

    # -- the tree ------------------------------------------------------------------------------
    def _node(self, s, q: Query, memo: dict):
        """(match, score): dense arrays over the documents, score 0 where there is no match (read-only:
        a part's arrays may be another part's too)."""
        kind = type(q)
        if q is NullQuery:
            return self._nothing(s)
        if kind not in (Term, And, Or, DisjunctionMax) or (kind is Or and q.scale):
            raise Unsupported(kind.__name__ + (" (scaled)" if kind is Or else ""))
        if kind is Term:
            return self._leaf(s, q)
        if kind is not DisjunctionMax:
            return self._compound(s, q, memo)
        # a word's DisMax (its fields) recurs in a search's tiers: kept for the search, ~80 KB a word
        key = (kind, q)  # Whoosh's queries compare by content (fields, words, boosts, parts)
        found = memo.get(key)
        if found is None:
            found = memo[key] = self._compound(s, q, memo)
        return found

    def _compound(self, s, q: Query, memo: dict):
        kind = type(q)
        subs = q.subqueries
        if not subs:
            return self._nothing(s)
        if len(subs) == 1:
            return self._node(s, subs[0], memo)  # Whoosh drops a one-part compound's boost
        n = s.doc_count_all()
        if kind is Or and (len(subs) >= TOO_MANY_CLAUSES or (len(subs) != 2 and n <= SMALL_INDEX)):
            return self._preloaded(s, subs, q.boost, memo)
        parts = [self._node(s, sub, memo) for sub in subs]
        if kind is And:
            weights = [0 - self._estimate(s, sub) for sub in subs]
            join = _intersection
        elif kind is Or:
            weights = [self._estimate(s, sub) for sub in subs]
            join = _union
        else:
            weights = [self._estimate(s, sub) for sub in subs]
            join = _dismax
        match, score = _weighted_tree(join, weights, parts)
        if q.boost != 1.0:
            score = score * q.boost
        return match, score

    def _preloaded(self, s, subs, boost: float, memo: dict):
        """Whoosh's ArrayUnionMatcher: each part's score times the boost, added in order; a match is
        a sum above 0."""
        import numpy as np

        total = np.zeros(s.doc_count_all())
        for sub in subs:
            match, score = self._node(s, sub, memo)
            total += np.where(match, score * boost, 0.0)
        return total > 0, total

    def _nothing(self, s):
        import numpy as np

        n = s.doc_count_all()
        return np.zeros(n, dtype=bool), np.zeros(n)

    def _leaf(self, s, q: Term):
        import numpy as np

        ids, scores = self._postings(s, q.fieldname, q.text)
        n = s.doc_count_all()
        match, score = np.zeros(n, dtype=bool), np.zeros(n)
        if ids is not None and ids.size:
            match[ids] = True
            score[ids] = scores if q.boost == 1.0 else scores * q.boost
        return match, score

    def _postings(self, s, field: str, text):
        """(document numbers, BM25F scores) of one term, read through Whoosh's matcher once;
        (None, None) when the term does not exist (Whoosh's NullMatcher)."""
        import numpy as np

        if field not in s.schema:
            return None, None
        try:
            btext = s.schema[field].to_bytes(text)
        except ValueError:
            return None, None
        key = (field, btext)
        with self._lock:
            held = self._terms.get(key)
            if held is not None:
                self._terms.move_to_end(key)
                return held
        if key not in s.reader():
            return None, None
        m = s.postings(field, btext, weighting=s.weighting)
        ids, scores = [], []
        while m.is_active():
            ids.append(m.id())
            scores.append(m.score())
            m.next()
        held = (np.array(ids, dtype=np.int64), np.array(scores, dtype=np.float64))
        with self._lock:
            if key not in self._terms:
                self._terms[key] = held
                self._held += len(ids)
                while self._held > self.max_postings and len(self._terms) > 1:
                    _, (old, _) = self._terms.popitem(last=False)
                    self._held -= old.size
        return held

    def _estimate(self, s, q: Query) -> int:
        """Whoosh's ``estimate_size``: a term's document frequency, the smallest part of an AND, the
        sum of the parts of an OR or DisMax (at most the documents)."""
        kind = type(q)
        if kind is Term:
            key = (q.fieldname, q.text)
            if key not in self._df:
                self._df[key] = q.estimate_size(s.reader())
            return self._df[key]
        if q is NullQuery:
            return 0
        if kind is And:
            return min(self._estimate(s, sub) for sub in q.subqueries)
        if kind in (Or, DisjunctionMax):
            return min(sum(self._estimate(s, sub) for sub in q.subqueries), s.reader().doc_count())
        raise Unsupported(kind.__name__)

    def _mask(self, s, docs: set[int]):
        """A boolean array of ``docs`` (the scope's filter), kept for the next queries of that scope."""
        import numpy as np

        with self._lock:
            held = self._masks.get(id(docs))
            if held is not None and held[0] is docs:
                return held[1]
        mask = np.zeros(s.doc_count_all(), dtype=bool)
        if docs:
            mask[np.fromiter(docs, dtype=np.int64, count=len(docs))] = True
        with self._lock:
            self._masks[id(docs)] = (docs, mask)  # the set is held: its id is not reused meanwhile
            while len(self._masks) > 16:
                self._masks.popitem(last=False)
        return mask


def _weighted_tree(join, weights: list[int], parts: list):
    """Whoosh's make_weighted_tree: sort by weight (stable), join the two lightest, put the join back
    after the entries of equal weight, until one is left."""
    entries = sorted((_Key(w, p) for w, p in zip(weights, parts, strict=True)), key=lambda e: e.weight)
    while len(entries) > 1:
        a, b = entries.pop(0), entries.pop(0)
        insort(entries, _Key(a.weight + b.weight, join(a.node, b.node)))
    return entries[0].node


def _intersection(a, b):
    import numpy as np

    match = a[0] & b[0]
    return match, np.where(match, a[1] + b[1], 0.0)


def _union(a, b):
    return a[0] | b[0], a[1] + b[1]  # 0 where a side does not match: x + 0.0 is x


def _dismax(a, b):
    """The larger of the two sides' current scores: a side that does not match sits on its next match."""
    import numpy as np

    match = a[0] | b[0]
    at = np.flatnonzero(match)
    best = np.full(at.size, -np.inf)
    for side_match, side_score in (a, b):
        hits = np.flatnonzero(side_match)
        nxt = np.searchsorted(hits, at)
        live = nxt < hits.size
        here = np.full(at.size, -np.inf)
        here[live] = side_score[hits[nxt[live]]]
        best = np.maximum(best, here)
    score = np.zeros(match.size)
    score[at] = best
    return match, score
