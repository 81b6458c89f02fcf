"""The ``lineage`` table: each change between adjacent editions, written once per build (kb.versions.lineage)."""

from __future__ import annotations

import sqlite3

LINK_COLUMNS = (
    "game",
    "lang",
    "old_vid",
    "new_vid",
    "old_rule",
    "new_rule",
    "kind",
    "similarity",
    "reference_only",
    "editorial",
)


class LineageTable:
    """Lineage statements of the Store (mixed into kb.store.db.Store)."""

    conn: sqlite3.Connection
    writable: bool
    memo: dict
    _lineage_known: bool

    def clear_lineage(self) -> None:
        """Forget every stored link (a build writes them all again)."""
        self.conn.execute("DELETE FROM lineage")
        self.conn.execute("DELETE FROM meta WHERE key='lineage_built'")

    def add_lineage(self, rows: list[tuple]) -> None:
        """Store links, each a tuple in ``LINK_COLUMNS`` order."""
        marks = ",".join("?" * len(LINK_COLUMNS))
        self.conn.executemany(f"INSERT INTO lineage({', '.join(LINK_COLUMNS)}) VALUES({marks})", rows)

    def lineage_done(self) -> None:
        """Record that every link was written (a store without this mark has no lineage to read)."""
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES('lineage_built', '1')")

    def has_lineage(self) -> bool:
        """True when every link was written (a read-only store remembers it: asked before every link read)."""
        if self._lineage_known:
            return True
        found = self.conn.execute("SELECT 1 FROM meta WHERE key='lineage_built'").fetchone() is not None
        self._lineage_known = found and not self.writable
        return found

    def lineage_link(self, direction: str, vid: int, rule: str) -> tuple[str, str | None, float, int] | None:
        """``(kind, rule on the other side, similarity, reference_only)`` of the stored change that leads into
        (``back``) or out of (``fwd``) clause ``rule`` of version ``vid``; None when it did not change."""
        if not self.writable:  # history walks ask hundreds of thousands of times: read the table once
            return self._lineage_links()[direction].get((vid, rule))
        if direction == "back":
            q = "SELECT kind, old_rule, similarity, reference_only FROM lineage WHERE new_vid=? AND new_rule=?"
        else:
            q = "SELECT kind, new_rule, similarity, reference_only FROM lineage WHERE old_vid=? AND old_rule=?"
        return self.conn.execute(q, (vid, rule)).fetchone()

    def _lineage_links(self) -> dict[str, dict[tuple[int, str], tuple[str, str | None, float, int]]]:
        """Every stored change by its new and by its old clause (a read-only store's lineage never changes;
        the bundled corpus has some 19,000 rows, read in 30 ms)."""
        links = self.memo.get("lineage_links")
        if links is None:
            links = {"back": {}, "fwd": {}}
            q = "SELECT kind, old_vid, old_rule, new_vid, new_rule, similarity, reference_only FROM lineage"
            for kind, old_vid, old_rule, new_vid, new_rule, sim, ref in self.conn.execute(q):
                if new_rule is not None:
                    links["back"].setdefault((new_vid, new_rule), (kind, old_rule, sim, ref))
                if old_rule is not None:
                    links["fwd"].setdefault((old_vid, old_rule), (kind, new_rule, sim, ref))
            self.memo["lineage_links"] = links
        return links

    def lineage_step(self, old_vid: int, new_vid: int) -> dict[str, tuple[str | None, str, float, int, int]]:
        """``{old_rule: (new_rule, kind, similarity, reference_only, editorial)}`` of the changes from
        version ``old_vid`` to ``new_vid`` (additions have no old rule and are left out)."""
        q = (
            "SELECT old_rule, new_rule, kind, similarity, reference_only, editorial FROM lineage"
            " WHERE old_vid=? AND new_vid=? AND old_rule IS NOT NULL"
        )
        return {o: rest for o, *rest in self.conn.execute(q, (old_vid, new_vid))}

    def lineage_counts(self) -> list[tuple[int, int, str, int, int, int]]:
        """``(old_vid, new_vid, kind, changes, reference-only ones, editorial ones)`` per step and kind."""
        q = (
            "SELECT old_vid, new_vid, kind, COUNT(*), SUM(reference_only), SUM(editorial) FROM lineage"
            " GROUP BY old_vid, new_vid, kind"
        )
        return self.conn.execute(q).fetchall()

    def lineage_into(self, new_vid: int) -> list[tuple[str, str | None, str | None, float, int, int]]:
        """``(kind, old_rule, new_rule, similarity, reference_only, editorial)`` of the changes that lead into
        version ``new_vid``."""
        q = "SELECT kind, old_rule, new_rule, similarity, reference_only, editorial FROM lineage WHERE new_vid=?"
        return self.conn.execute(q, (new_vid,)).fetchall()
