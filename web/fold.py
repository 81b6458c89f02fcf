"""Fold what a reader can skip: edits of cited rule numbers alone, and editorial (wording-only) edits.

A change is *editorial* when the link service says so (``"editorial": true``: pronouns, quote style,
examples, notes, typos, reference renumbering) or when only typography changed; *reference-only*
when only cited rule numbers changed. Absent keys count as false.
"""

from __future__ import annotations

KINDS = ("moved", "edited", "added", "removed")


def is_reference_only(change: dict) -> bool:
    return bool(change.get("reference_only"))


def is_editorial(change: dict) -> bool:
    return bool(change.get("editorial") or change.get("typography_only"))


def is_folded(change: dict) -> bool:
    """A change of wording or cited numbers only; renumbering (moved) stays visible in a history."""
    return change.get("kind") in ("edited", "moved") and (is_reference_only(change) or is_editorial(change))


def split_changes(changes: list[dict]) -> tuple[dict[str, list[dict]], list[dict]]:
    """(changes to show, by kind; the folded ones)."""
    groups: dict[str, list[dict]] = {k: [] for k in KINDS}
    folded = []
    for c in changes:
        c["folded"] = is_folded(c)
        (folded if c["folded"] else groups.setdefault(c.get("kind", "edited"), [])).append(c)
    return groups, folded


def summary(groups: dict[str, list[dict]], folded: list[dict]) -> dict:
    """Counts the page shows: each kind without the folded changes, then the folded ones by why."""
    ref_only = sum(1 for c in folded if is_reference_only(c))
    return {k: len(groups.get(k, [])) for k in KINDS} | {
        "reference_only": ref_only,
        "editorial": len(folded) - ref_only,
        "folded": len(folded),
        "total": sum(len(g) for g in groups.values()) + len(folded),
    }


def fold_history(hist: dict) -> dict:
    """Mark each edit of wording or cited numbers alone as folded and count what is left."""
    events = []
    for ev in hist.get("events", []):
        ev = dict(ev)
        ev["folded"] = ev.get("kind") == "edited" and (is_reference_only(ev) or is_editorial(ev))
        events.append(ev)
    counts = {k: sum(1 for e in events if e.get("kind") == k and not e["folded"]) for k in KINDS}
    counts["folded"] = sum(1 for e in events if e["folded"])
    return {**hist, "events": events, "counts": counts}


def runs(events: list[dict]) -> list[tuple[bool, list[dict]]]:
    """Consecutive events grouped as (folded, events): a run of folded edits shows as one line."""
    out: list[tuple[bool, list[dict]]] = []
    for ev in events:
        folded = bool(ev.get("folded"))
        if out and out[-1][0] == folded and folded:
            out[-1][1].append(ev)
        else:
            out.append((folded, [ev]))
    return out
