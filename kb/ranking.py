"""Ranking priors: how hits found in one tier are reordered before a page is cut.

A hit's place is (tier, score inside the tier); the tiers come from kb.query, the nudges below
prefer clauses over their sub-clauses, current over superseded texts, and the game the query names.
"""

from __future__ import annotations

from kb import ruleid

SUPERSEDED = 0.8  # a text shown only for want of a newer one (the 2008 translation beside 2026's)
POOL = 3.0  # hits read per tier, per hit wanted: the priors below reorder them
HIER = 0.6  # a clause scoring at least this share of its sub-clause's score is put above it
GAME_BIAS = 1.3  # hits of the game the query's words point to (see Searcher._game_of)

Scored = dict[int, tuple[float, float]]  # doc number -> (tier, score inside the tier)


def prior(kind: str | None, rule: str) -> float:
    """Headings and clauses state the rule their sub-clauses refine: a slight preference."""
    if kind != "rule":
        return 1.0
    return 1.35 if "." not in rule else 1.25 if rule[-1].isdigit() else 1.0


def lift_parents(scored: Scored, where: dict[int, tuple[str, str, str]]) -> None:
    """Put a clause just above its best sub-clause when both match in the same tier and the clause
    scores nearly as well: the clause states the rule its sub-clauses refine ("rule in context")."""
    where = {d: w for d, w in where.items() if d in scored}
    docs = {w: d for d, w in where.items()}
    for d, (game, lang, rule) in sorted(where.items(), key=lambda kv: -scored[kv[0]][1]):
        p = docs.get((game, lang, ruleid.parent(rule) or ""))
        if p is None or scored[p][0] != scored[d][0]:
            continue
        tier, raw = scored[d]
        if scored[p][1] >= HIER * raw:
            scored[p] = (tier, max(scored[p][1], raw * 1.001))


def settled(scored: Scored, tier: float) -> int:
    """How many hits no tier below ``tier`` can overtake."""
    return sum(1 for t, _ in scored.values() if t >= tier)
