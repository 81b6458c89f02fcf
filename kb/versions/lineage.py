"""Clause lineage: the links between adjacent editions, computed once per build and read per query.

``build`` diffs every adjacent pair of versions of each game/language once (kb.versions.diff, no
inline text) and stores the changes (moved, edited, added, removed; unchanged clauses are implied)
in the store's ``lineage`` table (kb.store.lineage). Readers walk those links (kb.versions.history)
or read what one update changed (``update_counts``, ``update_changes``) and which steps were
editorial (``editorial_paths``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from kb.children import die_with_parent
from kb.errors import StoreError
from kb.model import Progress
from kb.store import Store, VersionInfo
from kb.versions import diffparts, editions, editorial
from kb.versions.diff import diff_items, forced_for, load_forced, load_items


def chains(store: Store) -> list[list[VersionInfo]]:
    """Versions of each game/language, oldest first (the order lineage links follow).

    Translations that render a held English edition get no links of their own: their lineage is the
    English one, read through that pairing (``_translation_thread``)."""
    groups: dict[tuple[str, str], list[VersionInfo]] = {}
    for v in store.versions():
        if v.sort_date and editions.rendering(v) is None:  # undated and paired versions stand apart
            groups.setdefault((v.game, v.lang), []).append(v)
    return list(groups.values())


def _pair_rows(old: VersionInfo, new: VersionInfo, forced_entries: list[dict], store: Store) -> list[tuple]:
    forced = forced_for(old.game, old.lang, old.label, new.label, forced_entries)
    changes = diff_items(
        load_items(store, old),
        load_items(store, new),
        forced,
        old_partial=old.partial,
        new_partial=new.partial,
        inline=False,
        vocab=editorial.vocabulary(store),
    )
    return [
        (
            old.game,
            old.lang,
            old.id,
            new.id,
            c["old_rule"],
            c["new_rule"],
            c["kind"],
            c["similarity"],
            int(c["reference_only"]),
            int(c["editorial"]),
        )
        for c in changes
    ]


def build(store: Store, progress: Progress | None = None, *, workers: int = 1) -> dict:
    """Diff every adjacent pair of versions once and store the links; returns counts.

    With ``workers`` > 1 the pairs are diffed in that many processes, each reading the committed store
    (runs of ``_RUN`` adjacent pairs each, so that a worker compares an edition's features it just made)."""
    store.clear_lineage()
    pairs = [(a, b) for chain in chains(store) for a, b in zip(chain, chain[1:], strict=False)]
    rows = 0
    for done, ((a, b), batch) in enumerate(zip(pairs, _diffed(store, pairs, workers), strict=True)):
        if progress:
            progress(done, len(pairs), f"{a.game}/{a.lang} {a.label} -> {b.label}")
        store.add_lineage(batch)
        rows += len(batch)
    if progress:
        progress(len(pairs), len(pairs), "lineage done")
    store.lineage_done()
    return {"pairs": len(pairs), "links": rows}


_RUN = 6  # adjacent pairs a worker diffs in a row
_worker: dict = {}  # in a worker process: its own read-only store and the forced matches


def _diffed(store: Store, pairs: list[tuple[VersionInfo, VersionInfo]], workers: int) -> Iterator[list[tuple]]:
    """The rows of each pair, in order: here, or in ``workers`` processes."""
    if workers <= 1 or len(pairs) <= _RUN:
        forced_entries = load_forced()
        return (_pair_rows(a, b, forced_entries, store) for a, b in pairs)
    store.commit()  # the workers read what is stored so far (texts, dates, pairings, word counts)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork") if hasattr(os, "fork") else None
    pool = ProcessPoolExecutor(
        workers, mp_context=context, initializer=_open_worker, initargs=(store.path, os.getpid())
    )

    def results() -> Iterator[list[tuple]]:
        with pool:
            yield from pool.map(_worker_rows, pairs, chunksize=_RUN)

    return results()


def _open_worker(path: str, parent: int) -> None:
    die_with_parent(parent)
    _worker["store"] = Store.open(path)
    _worker["forced"] = load_forced()


def _worker_rows(pair: tuple[VersionInfo, VersionInfo]) -> list[tuple]:
    return _pair_rows(pair[0], pair[1], _worker["forced"], _worker["store"])


# -- reading links ------------------------------------------------------------------------------
def require(store: Store) -> None:
    """Lineage is part of every generation (kb.build builds it): a store without it is not a KB."""
    if not store.has_lineage():
        raise StoreError("this knowledge base has no clause lineage: rebuild it with `rulekb build`")


def link(store: Store, direction: str, vid: int, rule: str) -> tuple | None:
    """The stored change that leads into (back) or out of (fwd) a clause of version ``vid``."""
    require(store)
    return store.lineage_link(direction, vid, rule)


def editorial_paths(store: Store, old: VersionInfo, new: VersionInfo) -> dict[tuple[str, str], bool]:
    """For every clause of ``old`` that the lineage carries to ``new``: whether each step on the way
    that changed its words was editorial. ``{(old_rule, new_rule): editorial}``; empty when the two
    versions are not on one lineage chain (translations, undated texts, older after newer).

    A diff across many editions reads its editorial verdicts here instead of comparing the two
    wordings again: the verdicts of the steps were made once, at build."""
    require(store)
    chain = next((c for c in chains(store) if any(v.id == old.id for v in c)), [])
    ids = [v.id for v in chain]
    if old.id not in ids or new.id not in ids or ids.index(new.id) <= ids.index(old.id):
        return {}
    steps = ids[ids.index(old.id) : ids.index(new.id) + 1]
    cur = {r: (r, True) for r in store.rules(old)}  # original id -> (id now, editorial so far)
    for a, b in zip(steps, steps[1:], strict=False):
        rows = store.lineage_step(a, b)
        for r, (now, ok) in list(cur.items()):
            link = rows.get(now)
            if link is None:
                continue  # unchanged in this step
            n, kind, sim, ref, ed = link
            if kind == "removed" or not n:
                del cur[r]
            else:  # a move that kept every word is no change of wording
                cur[r] = (n, ok and bool(ed or ref or (kind == "moved" and sim >= 0.999)))
    held = set(store.rules(new))
    return {(r, n): ok for r, (n, ok) in cur.items() if n in held}


# -- what each update changed (read from the stored links) -------------------------------------------
def update_counts(store: Store) -> dict[int, dict]:
    """For each version with a predecessor in its chain: that predecessor's id and how many clauses each
    kind of change touched (``reference_only``: edits of cited numbers alone; ``editorial``: wording-only
    edits, reference-only ones included)."""
    require(store)
    out: dict[int, dict] = {}
    for old_vid, new_vid, kind, n, ref_only, wording in store.lineage_counts():
        entry = out.setdefault(
            new_vid,
            {
                "previous": old_vid,
                "added": 0,
                "removed": 0,
                "edited": 0,
                "moved": 0,
                "reference_only": 0,
                "editorial": 0,
            },
        )
        entry[kind] = n
        entry["reference_only"] += ref_only or 0
        entry["editorial"] += wording or 0
    return out


def update_changes(store: Store, new_vid: int) -> list[dict]:
    """The stored changes that lead into version ``new_vid`` from its predecessor, in document order."""
    require(store)
    changes = [
        {"kind": k, "old_rule": o, "new_rule": n, "similarity": sim, "reference_only": bool(ref), "editorial": bool(ed)}
        for k, o, n, sim, ref, ed in store.lineage_into(new_vid)
    ]
    return diffparts.sort_changes(changes)
