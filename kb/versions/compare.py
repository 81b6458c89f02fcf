"""The diff of two stored versions: the item diff (kb.versions.diff) over what the lineage did not settle."""

from __future__ import annotations

from kb.store import Store, VersionInfo
from kb.versions import diffparts, editorial, lineage
from kb.versions.diff import diff_items, forced_for, load_items


def diff_versions(
    store: Store,
    game: str,
    lang: str,
    old_label: str,
    new_label: str,
    forced: list[tuple[str, str]] | None = None,
    *,
    inline: bool = True,
) -> dict:
    """DESIGN.md diff JSON between two versions (labels may be ``latest``); unchanged clauses omitted."""
    old_v = store.get_version(game, lang, old_label)
    new_v = store.get_version(game, lang, new_label)
    if forced is None:
        forced = forced_for(game, lang, old_v.label, new_v.label)
    known = lineage.editorial_paths(store, old_v, new_v)
    # The lineage already pairs what survived between the two: the matcher looks only at the rest.
    decided_old, decided_new = {o for o, _ in forced if o}, {n for _, n in forced if n}
    forced = forced + [(o, n) for o, n in known if o not in decided_old and n not in decided_new]
    changes = diff_items(
        load_items(store, old_v),
        load_items(store, new_v),
        forced,
        old_partial=old_v.partial,
        new_partial=new_v.partial,
        inline=inline,
        vocab=editorial.vocabulary(store),
        known=known,
    )
    return {
        "game": game,
        "lang": lang,
        "old": old_v.label,
        "new": new_v.label,
        "changes": changes,
        "summary": diffparts.summarize(changes),
    }


def prepare(store: Store, version: VersionInfo) -> int:
    """Compute the comparison features of every item of a version now (a server warming up); returns the count."""
    items = load_items(store, version)
    for item in items:
        item.tokens  # noqa: B018 - computed and cached per content hash on first use
    return len(items)
