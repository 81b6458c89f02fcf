"""Version order, and the estimated place of undated versions (the old private translation 5.5.0.0).

Dated versions sort by their edition date (a Japanese ``YYYYMMDD.N`` with its English ``YYYYMMDD``,
see kb.store.sort_date_for). An undated version is placed by its content: the English edition whose
clause ids and heading ids agree best with it (Jaccard similarity of the id sets, restricted to the
part of the rules the undated text covers, since old texts are often cut off).
"""

from __future__ import annotations

import json
import re

from kb import ruleid
from kb.store import Store, VersionInfo

_DATED = re.compile(r"^\d{8}(?:\.\d+)?$")
TIE = 0.005  # editions scoring within this of the best are equally likely: they form the range
# Below this the text shares too few ids with every edition held to be placed by them (a 2008
# translation next to only post-2009 editions scores under 0.25; against its own era, ~0.99).
MIN_SCORE = 0.5
METHOD = "clause-id and heading-id Jaccard against each English edition (within the range the text covers)"


def english_label(label: str) -> str | None:
    """The English edition a Japanese ``YYYYMMDD.N`` label pairs with."""
    return label.split(".")[0] if _DATED.match(label) else None


def is_undated(v: VersionInfo) -> bool:
    """True for versions with neither an effective date nor a dated label."""
    return v.effective is None and not _DATED.match(v.label)


def _ids(store: Store, v: VersionInfo) -> tuple[set[str], set[str]]:
    """Clause ids and heading ids of a version (headings include its table of contents, if kept)."""
    rows = store.rules(v)
    clauses = {r for r in rows if ruleid.is_clause(r)}
    headings = {r for r in rows if not ruleid.is_clause(r)}
    contents = v.meta.get("contents") or []
    if isinstance(contents, str):
        contents = json.loads(contents)
    headings |= {str(entry[0]) for entry in contents if ruleid.parse(str(entry[0]))}
    return clauses, headings


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def score_editions(store: Store, v: VersionInfo, editions: list[VersionInfo]) -> list[tuple[float, VersionInfo]]:
    """How well each English edition's ids agree with version ``v`` (1.0 = the same ids)."""
    a_clauses, a_heads = _ids(store, v)
    if not a_clauses and not a_heads:
        return []
    last = max((ruleid.sort_key(r) for r in a_clauses), default=None)
    out = []
    for e in editions:
        e_clauses, e_heads = _ids(store, e)
        if last is not None:
            e_clauses = {r for r in e_clauses if ruleid.sort_key(r) <= last}
        score = 0.7 * _jaccard(a_clauses, e_clauses) + 0.3 * _jaccard(a_heads, e_heads)
        out.append((score, e))
    return out


def estimate(store: Store, v: VersionInfo) -> dict | None:
    """The estimated place of an undated version among the English editions, or None."""
    editions = [e for e in store.versions(v.game, "en") if not e.partial and e.sort_date]
    scored = score_editions(store, v, editions)
    if not scored:
        return None
    best_score, best = max(scored, key=lambda p: p[0])
    if best_score < MIN_SCORE:
        return None
    i = next(k for k, (_, e) in enumerate(scored) if e.id == best.id)
    lo = hi = i
    while lo > 0 and scored[lo - 1][0] >= best_score - TIE:
        lo -= 1
    while hi + 1 < len(scored) and scored[hi + 1][0] >= best_score - TIE:
        hi += 1
    return {
        "from": scored[lo][1].sort_date,
        "to": scored[hi][1].sort_date,
        "best": best.label,
        "score": round(best_score, 4),
        "method": METHOD,
    }


def place_undated(store: Store) -> None:
    """Estimate and record the date of each undated version (no-op without English editions)."""
    for v in store.versions():
        if not is_undated(v):
            continue
        est = estimate(store, v)
        if est is not None:
            best = store.get_version(v.game, "en", est["best"])
            store.set_version_estimate(v.id, best.sort_date, est)
