"""What each update changed: per row of /versions, and the latest update on the front page.

Read from the lineage links the build stores for every pair of adjacent versions (kb.versions.history), so
neither page runs a diff.
"""

from __future__ import annotations

from kb.store import Store, VersionInfo
from web import fold, services
from web.fold import KINDS
from web.pages import clause_url, version_json

LATEST_SHOWN = 12  # changed clauses listed on the front page card


def diff_url(old: VersionInfo, new: VersionInfo) -> str:
    return f"/diff/{new.game}/{new.lang}/{old.label}/{new.label}"


def _counts(s: Store) -> dict[int, dict]:
    try:
        return services.update_counts(s)
    except services.Unavailable:
        return {}


def versions_with_changes(s: Store) -> list[dict]:
    """Every version (oldest first) with ``update``: the version before it, change counts and the diff link."""
    counts = _counts(s)
    by_id = {v.id: v for v in s.versions()}
    rows = []
    for v in s.versions():
        row = version_json(v)
        c = counts.get(v.id)
        prev = by_id.get(c["previous"]) if c else None
        row["update"] = None
        if prev is not None:
            changed = {k: c[k] for k in KINDS}
            row["update"] = {
                "previous": prev.label,
                "diff_url": diff_url(prev, v),
                **changed,
                "reference_only": c["reference_only"],
                "editorial": c["editorial"],
                "total": sum(changed.values()),
            }
        rows.append(row)
    return rows


def latest(s: Store) -> list[dict]:
    """For each game and language: its newest whole version against the whole version before it."""
    counts = _counts(s)
    by_id = {v.id: v for v in s.versions()}
    cards = []
    seen: set[tuple[str, str]] = set()
    for v in reversed(s.versions()):
        c = counts.get(v.id)
        prev = by_id.get(c["previous"]) if c else None
        if (v.game, v.lang) in seen or v.partial or prev is None or prev.partial:
            continue
        seen.add((v.game, v.lang))
        try:
            changes = services.update_changes(s, v.id)
        except services.Unavailable:
            changes = []
        shown = [
            ch for ch in changes if not fold.is_folded(ch) and not (ch["kind"] == "moved" and ch["similarity"] >= 1)
        ]
        cards.append(
            {
                "old": version_json(prev),
                "new": version_json(v),
                "diff_url": diff_url(prev, v),
                "counts": {k: c[k] for k in KINDS}
                | {"reference_only": c["reference_only"], "editorial": c["editorial"]},
                "changes": [_link(prev, v, ch) for ch in shown[:LATEST_SHOWN]],
                "more": max(0, len(shown) - LATEST_SHOWN),
            }
        )
    return cards


def _link(old: VersionInfo, new: VersionInfo, ch: dict) -> dict:
    removed = ch["kind"] == "removed"
    rule = ch["old_rule"] if removed else ch["new_rule"]
    v = old if removed else new
    return {
        "kind": ch["kind"],
        "rule": rule,
        "old_rule": ch["old_rule"],
        "url": clause_url(v.game, v.lang, v.label, rule),
    }
