"""Guarded fusion of the word ranking (kb.search.query tiers) with dense retrieval (kb.search.semantic).

Dense retrieval alone ranks worse than the words (a rule's own name beats a paraphrase of it), and
plain reciprocal-rank fusion lets a loosely similar clause pass an exact title match. So the strong
word tiers stay on top as they are: a rule number, a heading or term named by the query (exactly,
translated, or by a prefix), the query as a phrase, every word of the query. Below them, the weaker
word hits and the dense top-k are merged by RRF (Cormack et al. 2009): each list contributes
``weight / (k + rank)``, so a clause near the top of both lists rises above one high in only one.
"""

from __future__ import annotations

from dataclasses import dataclass

GUARD = 2.0  # word tiers at or above this stay on top, in their own order
RRF_K = 60  # the usual constant: damps the difference between rank 1 and rank 2
DENSE_WEIGHT = 1.0  # the dense list's weight against the word list's 1.0
POOL = 50  # hits taken from each list below the guard
FUSED_TOP = 1.9  # fused hits are shown scored in [1.0, 1.9): below every guarded tier

TIER_NAMES = {
    3.0: "rule number",
    2.9: "nearest rule number",
    2.8: "exact name",
    2.7: "translated name",
    2.65: "name read alike",
    2.6: "name prefix",
    2.5: "phrase",
    2.0: "all words",
    1.6: "all words but one",
    1.3: "translation",
    1.25: "renamed wording",
    1.2: "old vocabulary",
    1.0: "bigrams",
    0.0: "any word",
}


def tier_name(tier: float) -> str:
    """What a word tier means, for a hit's ``why``."""
    return TIER_NAMES.get(round(tier, 2), f"tier {tier:g}")


@dataclass
class Fused:
    """A fused order: documents best first, each with its shown score and why it is there."""

    order: list[int]
    score: dict[int, float]
    why: dict[int, list[str]]


def lexical_order(scored: dict[int, tuple[float, float]]) -> list[int]:
    return sorted(scored, key=lambda d: scored[d], reverse=True)


def shown_score(tier: float, raw: float) -> float:
    """The tier plus the score inside it squashed into [0, 0.04): tiers are at least 0.05 apart."""
    return tier + 0.04 * raw / (1.0 + raw)


def fuse(
    scored: dict[int, tuple[float, float]],
    dense: list[tuple[int, float]],
    *,
    guard: float = GUARD,
    k: int = RRF_K,
    weight: float = DENSE_WEIGHT,
    pool: int = POOL,
) -> Fused:
    """Guarded fusion of word hits ``scored`` (doc -> (tier, score)) with ``dense`` ((doc, cosine), best first)."""
    lex = lexical_order(scored)
    guarded = [d for d in lex if scored[d][0] >= guard]
    held = set(guarded)
    below = [d for d in lex if d not in held][:pool]
    dense_ranked = [d for d, _ in dense[:pool] if d not in held]
    cos = dict(dense)
    rrf: dict[int, float] = {}
    for rank, d in enumerate(below, 1):
        rrf[d] = rrf.get(d, 0.0) + 1.0 / (k + rank)
    for rank, d in enumerate(dense_ranked, 1):
        rrf[d] = rrf.get(d, 0.0) + weight / (k + rank)
    fused = sorted(rrf, key=lambda d: (-rrf[d], d))
    best = (1.0 + weight) / (k + 1)
    score = {d: shown_score(*scored[d]) for d in guarded}
    why = {d: [tier_name(scored[d][0])] for d in guarded}
    dense_rank = {d: r for r, d in enumerate((d for d, _ in dense[:pool]), 1)}
    for d in guarded:
        if d in dense_rank:
            why[d].append(f"meaning #{dense_rank[d]}")
    for d in fused:
        score[d] = 1.0 + (FUSED_TOP - 1.0) * min(1.0, rrf[d] / best)
        why[d] = ([tier_name(scored[d][0])] if d in scored else []) + (
            [f"meaning #{dense_rank[d]} (cosine {cos[d]:.2f})"] if d in dense_rank else []
        )
    rest = [d for d in lex if d not in held and d not in rrf]  # word hits past the pool keep their order
    for d in rest:
        score[d] = min(0.99, shown_score(*scored[d]) / 3.0)
        why[d] = [tier_name(scored[d][0])]
    return Fused(guarded + fused + rest, score, why)


def words_only(scored: dict[int, tuple[float, float]]) -> Fused:
    """The word ranking alone, in the same shape (no dense list: rule numbers, uncovered scopes, extra missing)."""
    lex = lexical_order(scored)
    return Fused(lex, {d: shown_score(*scored[d]) for d in lex}, {d: [tier_name(scored[d][0])] for d in lex})
