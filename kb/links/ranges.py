"""Ranges of clause ids ("Rules 702.170-702.176", "119.9–10", "Rule 506-511"): the ids a version holds between them."""

from __future__ import annotations

import bisect
import dataclasses

from kb import ruleid
from kb.links.extract import Cite

MAX_SPAN = 300  # "Rules 100-905" names a book, not clauses: keep its two ends only
_DEPTH = {"section": 0, "rule": 1, "clause": 2, "subclause": 3}


class Ids:
    """The ids of one version in document order, for spans."""

    def __init__(self, ids):
        self.ids = sorted({r for r in ids if ruleid.parse(r)}, key=ruleid.sort_key)
        self.keys = [ruleid.sort_key(r) for r in self.ids]

    def span(self, first: str, last: str) -> list[str]:
        """``first``, the ids between at the endpoints' depths, and ``last`` (the ends even if absent)."""
        if ruleid.parse(first) is None or ruleid.parse(last) is None:
            return [first, last]
        lo, hi = sorted((_DEPTH[ruleid.level(first)], _DEPTH[ruleid.level(last)]))
        a = bisect.bisect_right(self.keys, ruleid.sort_key(first))
        b = bisect.bisect_left(self.keys, ruleid.sort_key(last))
        inner = [r for r in self.ids[a:b] if lo <= _DEPTH[ruleid.level(r)] <= hi]
        if len(inner) > MAX_SPAN:
            inner = []
        return [first, *inner, last]


def expand(cites: list[Cite], ids_of) -> list[Cite]:
    """Each range citation as one citation per id it spans in ``ids_of(game)`` (an ``Ids``); labels stay one."""
    out = []
    for c in cites:
        if not c.range_to:
            out.append(c)
            continue
        c.in_range = f"{c.rule}-{c.range_to}"
        ids = ids_of(c.game)
        span = ids.span(c.rule, c.range_to) if ids is not None else [c.rule, c.range_to]
        if c.kind == "label":
            c.span = span
            out.append(c)
            continue
        out.extend(dataclasses.replace(c, rule=r, range_to="") for r in span)
    return out
