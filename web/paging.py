"""Long lists of clauses cut into parts of bounded size, never between a clause and its sub-clauses.

A page over ~300 KB (an alignment section, the clauses of rule 702) shows one part at a time and
lists them all; ``part=all`` still gives the whole. Each part is named by its number and the first
and last clause it holds ("702.1 – 702.36").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_CLAUSE = re.compile(r"^(\d+(?:\.\d+)?)")  # 702.19b -> 702.19: a clause and its sub-clauses stay together


def group_key(rule: str) -> str:
    m = _CLAUSE.match(rule or "")
    return m.group(1) if m else rule or ""


def cut(items: list[T], rule_of: Callable[[T], str], limit: int) -> list[tuple[int, int]]:
    """``[start, end)`` slices of ``items`` of at most ``limit`` (a clause with more sub-clauses than that is
    one slice of its own), cut only where the clause (``group_key``) changes."""
    slices: list[tuple[int, int]] = []
    start = 0
    group_start = 0
    for i in range(1, len(items) + 1):
        if i < len(items) and group_key(rule_of(items[i])) == group_key(rule_of(items[i - 1])):
            continue
        # items[group_start:i] is one clause with its sub-clauses
        if i - start > limit and group_start > start:
            slices.append((start, group_start))
            start = group_start
        group_start = i
    if start < len(items):
        slices.append((start, len(items)))
    return slices


def parts(items: list[T], rule_of: Callable[[T], str], limit: int, url: str) -> list[dict]:
    """The parts of ``items`` (``cut``): ``{key, first, last, count, start, end, url}``; one part when they fit."""
    out = []
    for n, (start, end) in enumerate(cut(items, rule_of, limit), 1):
        out.append(
            {
                "key": str(n),
                "first": rule_of(items[start]),
                "last": rule_of(items[end - 1]),
                "count": end - start,
                "start": start,
                "end": end,
                "url": f"{url}part={n}",
            }
        )
    return out


def choose(parts_: list[dict], wanted: str | None) -> dict | None:
    """The part ``wanted`` names (default: the first); None when there is no such part."""
    if not parts_:
        return None
    return next((p for p in parts_ if p["key"] == (wanted or "1")), None)
