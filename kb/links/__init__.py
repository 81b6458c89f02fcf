"""Link an engine's tests to the clauses they cite, and say which links are broken."""

from __future__ import annotations

from kb.model import Citation


def scan(paths: list[str], game: str = "mtg") -> list[Citation]:
    """Citations found under ``paths`` (no store needed)."""
    from kb.links.extract import scan_tree

    return list(scan_tree(paths, game).citations)
