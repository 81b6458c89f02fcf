"""The history of a translated clause, told by the English lineage it translates.

A Japanese text dates nothing by itself: 5.5.0.0 (a 2008 translation) and 和訳 20260116.0 are the
only whole Japanese texts, so a history read from them alone says mana burn (5.5.0.0's 300.3) was
"removed in 20260116.0" and that 702.2c was "created in 20260116.0". The English lineage knows when
each happened (mana burn went in 20090708, with Magic 2010). So the events of a Japanese clause are the
events of the English clause its edition renders (kb.versions.editions), dated by English editions,
and the Japanese editions the KB holds are marked on that timeline where they stand (a translation
sits at the edition it renders), each with the id the clause has there.
"""

from __future__ import annotations

from kb.errors import NotFound
from kb.store import Store, VersionInfo
from kb.versions import diffparts, editions
from kb.versions import history as en_history

TRANSLATION = "translation"  # the kind of a timeline mark: a Japanese edition holding the clause


def _start(store: Store, game: str, lang: str, rule: str, version: str | None) -> VersionInfo | None:
    """The translation the history starts from: ``version``, else the newest one holding ``rule`` that
    renders a held edition exactly (a quote newer than every edition is only estimated to)."""
    if version:
        v = store.get_version(game, lang, version)
        return v if store.holds(v, rule) else None
    exact = [v for v in store.versions(game, lang) if (r := editions.rendering(v)) and r.exact]
    return next((v for v in reversed(exact) if store.holds(v, rule)), None)


def history(
    store: Store, game: str, lang: str, rule: str, *, version: str | None = None, inline: bool = True
) -> dict | None:
    """kb.versions.history's history JSON for a translated clause, its events those of the English
    clause it renders (``lang: "en"``, English edition labels) and the Japanese editions holding it as
    ``translation`` marks; None when the clause has no English counterpart in a held edition (then
    only its own text can speak for it)."""
    if lang == "en":
        return None
    start = _start(store, game, lang, rule, version)
    edition = editions.rendered_edition(store, start, exact=True) if start is not None else None
    if edition is None or not store.holds(edition, rule):
        return None
    english = en_history.history(store, game, "en", rule, version=edition.label, inline=inline)
    at = {step["version"]: step["rule"] for step in english["lineage"]}
    dates = {e.label: e.sort_date for e in store.versions(game, "en")}
    events = [{**ev, "lang": "en"} for ev in english["events"]]
    marks: list[dict] = []
    before = None  # the previous mark's clause: a translation that words it otherwise shows how
    for v in store.versions(game, lang):
        r = editions.rendering(v)
        own = at.get(r.label) if r else None
        node = store.node(v, own) if own is not None else None
        if node is None:
            continue
        mark = {
            "version": v.label,
            "kind": TRANSLATION,
            "rule": own,
            "old_rule": None,
            "lang": lang,
            "renders": r.label,
            "method": r.method,
            "exact": r.exact,
            "partial": v.partial,
            "provenance": v.meta.get("provenance"),
            "editorial": False,
            "changed": before is not None and before.hash != node.hash,
        }
        if mark["changed"] and inline:
            mark["inline"] = diffparts.inline_diff(before.text, node.text)
        marks.append(mark)
        before = node
    # A mark stands after the English events of the edition it renders (that text is what it translates).
    timeline = sorted(
        [(dates.get(ev["version"], ""), 0, i, ev) for i, ev in enumerate(events)]
        + [(dates.get(m["renders"], ""), 1, i, m) for i, m in enumerate(marks)],
        key=lambda t: t[:3],
    )
    ja_steps, _ = en_history.thread(store, game, lang, rule, start.label)
    removed = next((ev["version"] for ev in events if ev["kind"] == "removed"), None)
    return {
        "game": game,
        "lang": lang,
        "rule": rule,
        "events": [t[3] for t in timeline],
        "lineage": [{"version": s.version.label, "rule": s.rule} for s in ja_steps],
        "current": None if removed else ja_steps[-1].rule,
        "english": {"rule": at[edition.label], "version": edition.label, "current": english["current"]},
        "translations": [m["version"] for m in marks],
    }


def now(store: Store, game: str, lang: str, rule: str, label: str) -> dict | None:
    """kb.versions.history.now for a translated clause, a removal dated by the English edition that
    removed it (``removed_lang: "en"``); None when the English lineage has nothing to say."""
    try:
        v = store.get_version(game, lang, label)
    except NotFound:
        return None
    edition = editions.rendered_edition(store, v, exact=True)
    if lang == "en" or edition is None or not store.holds(edition, rule):
        return None
    english = en_history.now(store, game, "en", rule, edition.label)
    if english is not None and english.get("removed"):
        return {"rule": None, "version": None, "removed": english["removed"], "removed_lang": "en"}
    return None
