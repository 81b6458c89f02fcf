"""Every search is bounded: no Whoosh call may loop, and a query stops adding tiers once its time is spent.

Whoosh's block-quality skipping (``optimize=True``, its default) can loop for good on a union of
terms whose blocks all score below the running minimum: ``カキ`` under the loose query's count spun
one CPU at 100 % indefinitely (issue 19). Every Whoosh search in kb.search goes through ``whoosh_search``,
which turns that skipping off: a search then scores each posting it matches once (the loose count
reads them all anyway), so its cost is bounded by the postings of its terms.

``Deadline`` is the per-query budget on top: the tiers of a query run best first, and once the budget
is spent the remaining (lower) tiers are skipped and the page says so. The budget is the CPU time of
the query's own thread: a loop burns it, while waiting for the GIL behind other clients' queries or
for the embedder (its own thread) does not, so a busy server slows answers down but does not cut
them short. bench/fuzz.py checks the bound on ten thousand random short queries.
"""

from __future__ import annotations

import time
from typing import Any

from whoosh import collectors
from whoosh.query import Query

from kb.loadtime import load_time

BUDGET_S = 1.0  # CPU seconds: a query's tiers stop after this much (the page says it is partial)


def whoosh_search(s: Any, q: Query, **kw: Any) -> Any:
    """``s.search(q, **kw)`` without block-quality skipping (the loop above), and without rebuilding the
    matcher tree each time the top N's lowest score rises (``_PlainTop``)."""
    collector = s.collector(optimize=False, **kw)
    inner = collector
    while isinstance(inner, collectors.WrappingCollector):  # a filter wraps the top-N collector
        inner = inner.child
    if type(inner) is collectors.TopCollector:
        inner.__class__ = _PlainTop
    s.search_with_collector(q, collector)
    return collector.results()


class _PlainTop(collectors.TopCollector):
    """Whoosh's top-N collector whose running minimum score stays 0. Without quality skipping, that
    minimum is used only by ``matcher.replace(minscore)``, which Whoosh calls again whenever the
    minimum rises. Each call walks the whole union tree asking every sub-matcher for its best
    possible score, to drop the ones that cannot reach it. For a query of many common words over the
    whole index (a version filter), that walk was half of a search's CPU: 0.27 s, past the budget
    under load. Without it the top N is exact. The pruning was not always exact: it can drop a
    sub-matcher that only counts together with another, and 2 of 672 tuning pages differed, past
    their third hit. Whoosh still replaces the tree every ten matches, to drop exhausted sub-matchers."""

    def _collect(self, global_docnum: int, score: float) -> float:
        key = super()._collect(global_docnum, score)
        self.minscore = 0
        return key


class Deadline:
    """A query's CPU-time budget, started when the query is (on the thread that runs it). Time spent
    loading what stays loaded (kb.loadtime: dictionaries, the model) is not counted."""

    def __init__(self, budget: float | None = None) -> None:
        self.budget = BUDGET_S if budget is None else budget
        self.ends = time.thread_time() + self.budget
        self._loads = load_time()
        self.hit = False  # set once a tier was skipped for time

    def _used_up(self) -> bool:
        return time.thread_time() - (load_time() - self._loads) >= self.ends

    def left(self) -> bool:
        """True while budget is left (without marking the page partial: for work that is not hits)."""
        return not self._used_up()

    def spent(self) -> bool:
        if self._used_up():
            self.hit = True
        return self.hit
