"""Link an engine's tests to the clauses they cite, and say which links are broken.

``scan`` needs no knowledge base; ``link`` resolves what ``scan`` finds against a version, adds
JUnit results and coverage, and can save the result for the web app (``saved``, ``citations_for``).
"""

from __future__ import annotations

from kb.model import Citation


def scan(paths: list[str], game: str = "mtg") -> list[Citation]:
    """Citations found under ``paths`` (no store needed)."""
    from kb.links.extract import scan_tree

    return list(scan_tree(paths, game).citations)


def link(
    store,
    paths: list[str],
    *,
    game: str = "mtg",
    against: str | None = None,
    junit=(),
    save: bool = False,
    git: bool = True,
) -> dict:
    """DESIGN.md link JSON: every citation resolved against ``against`` (default the newest), plus coverage."""
    from kb.links.run import run

    return run(store, paths, game=game, against=against, junit=list(junit), save=save, git=git)


def saved(store) -> dict | None:
    """The last link result saved in the KB, or None."""
    from kb.links.persist import saved as read_saved

    return read_saved(store)


def citations_for(store, game: str, rule: str) -> list[dict]:
    """The saved citations of one clause (for the clause page)."""
    from kb.links.persist import citations_for as read

    return read(store, game, rule)
