"""Keep a link result in the KB for the web app, and read it back (tables in kb.store.links)."""

from __future__ import annotations

from kb import ruleid
from kb.store import Store


def save(store: Store, result: dict) -> int:
    """Store ``result`` as the newest run of its game; returns the run id."""
    game = result.get("game", "mtg")
    citations = [
        (c.get("game") or game, c["rule"], c)
        for c in result["citations"]
        if c.get("kind") != "label"  # a group's label cites no clause
    ]
    run = store.add_link_run(game, result.get("against"), result, citations)
    store.commit()
    return run


def saved(store: Store) -> dict | None:
    """The last saved link result, or None when nothing was saved."""
    return store.last_link_result()


def citations_for(store: Store, game: str, rule: str) -> list[dict]:
    """Citations of one clause (or of a rule heading) in the last saved run that has the game."""
    return store.link_citations(game, ruleid.normalize(rule))
