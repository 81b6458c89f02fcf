"""Clause history across editions, walked over the lineage links (kb.versions.lineage).

A query walks the links from one clause backward to its creation and forward to its removal or the
newest edition: a handful of indexed lookups.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from kb.errors import NotFound
from kb.store import Store, VersionInfo
from kb.versions import diffparts, editions, editorial, lineage


# -- the thread of one clause ---------------------------------------------------------------------
@dataclass
class Step:
    """The clause as it stood in one version."""

    version: VersionInfo
    rule: str
    hash: str


_THREADS = 256  # threads kept per read-only store: a clause page asks for the same one four times
_threads_lock = threading.Lock()


def thread(store: Store, game: str, lang: str, rule: str, version: str | None = None) -> tuple[list[Step], dict]:
    """Every version's id and text hash of the clause ``rule`` (held by ``version``, else the newest
    version holding that id), oldest first; plus how it began and ended (``created``/``removed`` versions)."""
    if store.writable:  # a build is still changing what the thread follows
        return _thread(store, game, lang, rule, version)
    kept: OrderedDict = store.derived("history_threads", OrderedDict)
    key = (game, lang, rule, version)
    with _threads_lock:
        hit = kept.get(key)
        if hit is not None:
            kept.move_to_end(key)
    if hit is None:
        hit = _thread(store, game, lang, rule, version)
        with _threads_lock:
            kept[key] = hit
            while len(kept) > _THREADS:
                kept.popitem(last=False)
    steps, ends = hit
    return list(steps), dict(ends)


def _thread(store: Store, game: str, lang: str, rule: str, version: str | None) -> tuple[list[Step], dict]:
    every = store.versions(game, lang)
    if not every:
        raise NotFound(f"no versions of {game}/{lang}")
    if any(editions.rendering(v) for v in every):
        return _translation_thread(store, game, lang, rule, version)
    chain = [v for v in every if v.sort_date]  # the order lineage follows; undated versions stand alone
    hashes_cache: dict[str, dict[int, str]] = {}

    def holds(i: int, r: str) -> str | None:
        if r not in hashes_cache:
            hashes_cache[r] = store.rule_hashes(r)
        return hashes_cache[r].get(chain[i].id)

    if version:
        v = store.get_version(game, lang, version)
        if not v.sort_date:
            chain = [v]
        k = next(i for i, c in enumerate(chain) if c.id == v.id)
        if holds(k, rule) is None:
            raise NotFound(f"rule {rule} not in {game}/{lang} {v.label}")
    else:
        k = next((i for i in range(len(chain) - 1, -1, -1) if holds(i, rule)), None)
        if k is None:
            chain = [v for v in every if not v.sort_date and v.id in store.rule_hashes(rule)][-1:]
            k = 0 if chain else None
        if k is None:
            raise NotFound(f"unknown rule {rule!r} in {game}/{lang}")
    steps = [Step(chain[k], rule, holds(k, rule) or "")]
    ends: dict = {"created": None, "removed": None}
    cur = rule
    for i in range(k, 0, -1):  # backward to where it began
        link = lineage.link(store, "back", chain[i].id, cur) if holds(i, cur) else None
        if link and link[0] == "added":
            ends["created"] = chain[i]
            break
        prev = link[1] if link else cur
        h = holds(i - 1, prev)
        if h is not None:
            steps.append(Step(chain[i - 1], prev, h))
            cur = prev
    steps.reverse()
    if ends["created"] is None:
        ends["created"] = steps[0].version
    cur = rule
    for i in range(k + 1, len(chain)):  # forward to its removal or the newest edition
        link = lineage.link(store, "fwd", chain[i - 1].id, cur) if holds(i - 1, cur) else None
        if link and link[0] == "removed":
            ends["removed"] = chain[i]
            break
        nxt = link[1] if link else cur
        h = holds(i, nxt)
        if h is not None:
            steps.append(Step(chain[i], nxt, h))
            cur = nxt
    return steps, ends


def _translation_thread(store: Store, game: str, lang: str, rule: str, version: str | None) -> tuple[list[Step], dict]:
    """The thread of a translated clause, read from the English lineage: the clause ↔ the same id in
    the edition its version renders, that clause's English thread, and back to every translation
    rendering an edition of that thread. Never matched by number across a renumbering: a clause whose
    edition lacks its id stands alone."""
    paired = [v for v in store.versions(game, lang) if editions.rendering(v)]
    holding = store.rule_hashes(rule)
    if version:
        start = store.get_version(game, lang, version)
    else:
        start = next((v for v in reversed(paired) if v.id in holding), None)
    if start is None or start.id not in holding:
        raise NotFound(f"rule {rule} not in {game}/{lang} {start.label if start else 'any version'}")
    edition = editions.rendered_edition(store, start)
    if edition is None or store.node(edition, rule) is None:
        return [Step(start, rule, holding[start.id])], {"created": start, "removed": None}
    en_steps, en_ends = thread(store, game, "en", rule, edition.label)
    at = {s.version.label: s.rule for s in en_steps}
    steps = []
    for v in paired:
        r = at.get(editions.rendering(v).label)
        if r is not None and (h := store.rule_hashes(r).get(v.id)) is not None:
            steps.append(Step(v, r, h))
    gone = None
    if en_ends["removed"] is not None:  # the first whole translation of an edition without the clause
        dates = {e.label: e.sort_date for e in store.versions(game, "en")}
        after = [v for v in paired if not v.partial and v.sort_date > steps[-1].version.sort_date]
        gone = next((v for v in after if dates[editions.rendering(v).label] >= en_ends["removed"].sort_date), None)
    return steps, {"created": steps[0].version, "removed": gone}


def _item(store: Store, step: Step) -> diffparts.Item:
    n = store.node(step.version, step.rule)
    assert n is not None
    return diffparts.make_item(n.rule, n.parent, n.hash, n.position, n.title, n.text, n.examples, n.references)


def history(store: Store, game: str, lang: str, rule: str, *, version: str | None = None, inline: bool = True) -> dict:
    """DESIGN.md history JSON: created / edited / moved / removed events of one clause, oldest first."""
    steps, ends = thread(store, game, lang, rule, version)
    events = [
        {
            "version": ends["created"].label,
            "kind": "created",
            "rule": steps[0].rule,
            "old_rule": None,
            "editorial": False,
        }
    ]
    for a, b in zip(steps, steps[1:], strict=False):
        if a.rule == b.rule and a.hash == b.hash:
            continue
        old, new = _item(store, a), _item(store, b)
        change = diffparts.describe(old, new, inline=inline, vocab=editorial.vocabulary(store))
        assert change is not None
        events.append(
            {
                "version": b.version.label,
                "kind": change.pop("kind"),
                "rule": b.rule,
                "old_rule": a.rule,
                **{k: v for k, v in change.items() if k not in ("old_rule", "new_rule")},
            }
        )
    if ends["removed"] is not None:
        last = steps[-1].rule
        events.append(
            {"version": ends["removed"].label, "kind": "removed", "rule": last, "old_rule": last, "editorial": False}
        )
    return {
        "game": game,
        "lang": lang,
        "rule": rule,
        "events": events,
        "lineage": [{"version": s.version.label, "rule": s.rule} for s in steps],
        "current": None if ends["removed"] else steps[-1].rule,
    }


def lineage_ids(store: Store, game: str, lang: str, rule: str, version: str | None = None) -> list[tuple[str, str]]:
    """The same clause under its ids across editions: ``[(version_label, rule), ...]`` oldest first."""
    steps, _ = thread(store, game, lang, rule, version)
    return [(s.version.label, s.rule) for s in steps]


def valid_window(store: Store, game: str, lang: str, rule: str, version_label: str) -> tuple[str | None, str | None]:
    """First and last edition labels in which ``rule`` held the text it has in ``version_label``.

    Same text means equal once cited rule numbers are masked (a renumbered cross-reference does not
    change what a citation of the clause means). ``(None, None)`` when the version lacks the rule.
    """
    try:
        label = store.get_version(game, lang, version_label).label
        steps, _ = thread(store, game, lang, rule, label)
    except NotFound:
        return None, None
    k = next(i for i, s in enumerate(steps) if s.version.label == label)
    anchor = _item(store, steps[k]).masked

    def same(s: Step) -> bool:
        return s.rule == rule and (s.hash == steps[k].hash or _item(store, s).masked == anchor)

    lo = k
    while lo > 0 and same(steps[lo - 1]):
        lo -= 1
    hi = k
    while hi + 1 < len(steps) and same(steps[hi + 1]):
        hi += 1
    return steps[lo].version.label, steps[hi].version.label


def successor(store: Store, game: str, lang: str, rule: str, from_label: str) -> list[tuple[str | None, str]]:
    """Where the clause ``rule`` of version ``from_label`` went: ``[(new_rule, label), ...]``, one per
    renumbering, ``label`` being the first edition with the new id; ends with ``(None, label)`` when the
    clause was removed in edition ``label``. Empty when it kept its id to the newest edition (or the
    version lacks the rule)."""
    try:
        label = store.get_version(game, lang, from_label).label
        steps, ends = thread(store, game, lang, rule, label)
    except NotFound:
        return []
    k = next(i for i, s in enumerate(steps) if s.version.label == label)
    out: list[tuple[str | None, str]] = []
    for a, b in zip(steps[k:], steps[k + 1 :], strict=False):
        if a.rule != b.rule:
            out.append((b.rule, b.version.label))
    if ends["removed"] is not None:
        out.append((None, ends["removed"].label))
    return out


def now(store: Store, game: str, lang: str, rule: str, label: str) -> dict | None:
    """Where the clause ``rule`` of version ``label`` stands today, when not where it was: under
    another id (``{"rule", "version"}``, the newest version holding it) or removed (``{"removed": label}``).
    None when it is unchanged in id and still held by the newest version of its thread."""
    try:
        steps, ends = thread(store, game, lang, rule, label)
    except NotFound:
        return None
    if ends["removed"] is not None:
        return {"rule": None, "version": None, "removed": ends["removed"].label}
    last = steps[-1]
    if last.rule == rule:
        return None
    return {"rule": last.rule, "version": last.version.label, "removed": None}


def carry(
    store: Store, game: str, lang: str, rules: list[str], from_label: str, to_label: str
) -> dict[str, str | None]:
    """Map clause ids of edition ``from_label`` to their ids in ``to_label`` along the lineage links
    (None for a clause removed on the way). Works in either direction."""
    chain = [v for v in store.versions(game, lang) if v.sort_date]
    labels = [v.label for v in chain]
    try:
        i, j = labels.index(from_label), labels.index(to_label)
    except ValueError:
        raise NotFound(f"{from_label} or {to_label} is not a {game}/{lang} version") from None
    step, direction, gone = (1, "fwd", "removed") if j >= i else (-1, "back", "added")
    cur: dict[str, str | None] = {r: r for r in rules}
    for k in range(i, j, step):
        a, b = chain[k], chain[k + step]
        held = set(store.rules(b))
        for r, now in cur.items():
            if now is None:
                continue
            link = lineage.link(store, direction, a.id, now)
            if link and link[0] == gone:
                cur[r] = None
            elif link:
                cur[r] = link[1]
            elif now not in held and not b.partial:
                cur[r] = None
    return cur
