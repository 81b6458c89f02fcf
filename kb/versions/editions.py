"""The English edition each translation renders, stored once per version, and lookups through it.

A Japanese text translates one English edition: 和訳 ``20260116.0`` renders ``20260116``; the old
private translation 5.5.0.0 renders the edition its clause ids match (kb.versions.order's estimate, 20081001);
a text dated between two held editions but naming neither is read against the edition in force on
its date (``exact`` false: its numbering may differ, so its references are not resolved there); a text
newer than every held edition (the wiki quote of 20260807.0) is only *estimated* to render the newest
one (``NEWER``): the edition it renders may be one the KB has never seen, and pages say so.
Everything that crosses languages — references, lineage, the other-language panel, the alignment —
goes through this pairing, never through a bare clause number.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from kb.store import Store, VersionInfo
from kb.versions import order

SAME_EDITION = "same edition"
BY_CONTENT = "estimated by content"
BY_DATE = "in force on its date"
NEWER = "newer than every held edition"  # an estimate: the edition it renders may be one the KB lacks


@dataclass
class Rendering:
    """The English edition a translation renders, and how that was found."""

    label: str
    method: str
    exact: bool  # the translation numbers its clauses as this edition does
    wanted: str | None = None  # the edition its label names, when the KB does not hold it


def find_rendering(store: Store, v: VersionInfo) -> Rendering | None:
    """Work out which held English edition version ``v`` renders (None for English or without editions)."""
    if v.lang == "en":
        return None
    editions = [e for e in store.versions(v.game, "en") if not e.partial and e.sort_date]
    labels = {e.label for e in editions}
    named = order.english_label(v.label)
    if named in labels:
        return Rendering(named, SAME_EDITION, True)
    best = (v.meta.get("estimated") or {}).get("best")
    if best in labels:
        return Rendering(best, BY_CONTENT, True)
    when = v.sort_date or (v.effective.isoformat() if v.effective else "")
    in_force = [e for e in editions if when and e.sort_date <= when]
    if not in_force:
        return None
    # Only a held edition after the date shows which one was in force then: a text newer than every
    # held edition (the wiki quote of 20260807.0) may render one the KB has never seen.
    method = BY_DATE if len(in_force) < len(editions) else NEWER
    return Rendering(in_force[-1].label, method, False, named)


def pair_translations(store: Store) -> dict[str, str]:
    """Record in each translation's meta the edition it renders (a build step, after dates are placed)."""
    out = {}
    for v in store.versions():
        if v.lang == "en":
            continue
        r = find_rendering(store, v)
        store.update_version_meta(v.id, renders=asdict(r) if r else None)
        if r:
            out[f"{v.game}/{v.lang}/{v.label}"] = r.label
    return out


def rendering(v: VersionInfo) -> Rendering | None:
    """The stored pairing of version ``v`` (None for English editions and unpaired texts)."""
    data = v.meta.get("renders")
    return Rendering(**data) if data else None


def rendered_edition(store: Store, v: VersionInfo, *, exact: bool = False) -> VersionInfo | None:
    """The English edition ``v`` renders (only an exact pairing when ``exact``)."""
    r = rendering(v)
    if r is None or (exact and not r.exact):
        return None
    return next((e for e in store.versions(v.game, "en") if e.label == r.label), None)


def translations_of(store: Store, edition: VersionInfo) -> list[VersionInfo]:
    """Versions that render ``edition``, best first: whole texts before fragments, then newest."""
    found = [v for v in store.versions(edition.game) if (r := rendering(v)) and r.label == edition.label]
    return sorted(found, key=lambda v: (not v.partial, bool(rendering(v).exact), v.sort_date), reverse=True)


def resolve_reference(store: Store, v: VersionInfo, rule: str, held: set[str]) -> tuple[VersionInfo, str] | None:
    """Where a reference to ``rule`` in a clause of ``v`` points: its own text first (``held`` are the
    ids ``v`` holds), then the English edition it renders exactly; None when neither holds it."""
    if rule in held:
        return v, rule
    edition = rendered_edition(store, v, exact=True)
    if edition is not None and store.node(edition, rule) is not None:
        return edition, rule
    return None
