"""Tables outside the rule texts: saved ``rulekb link`` runs and the precomputed alignments."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

from kb.store.records import dumps


class LinkTables:
    """Link-run and alignment statements of the Store (mixed into kb.store.db.Store)."""

    conn: sqlite3.Connection

    # -- saved link runs (kb.links.persist) -------------------------------------------------------
    def add_link_run(self, game: str, against: str | None, result: dict, citations: list[tuple[str, str, dict]]) -> int:
        """Store a link result and its ``(game, rule, citation)`` rows as the newest run; returns its id."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        run = self.conn.execute(
            "INSERT INTO link_runs(game, against, created, result) VALUES(?,?,?,?)", (game, against, now, dumps(result))
        ).lastrowid
        self.conn.executemany(
            "INSERT INTO link_citations VALUES(?,?,?,?)", [(run, g, rule, dumps(c)) for g, rule, c in citations]
        )
        return run

    def last_link_result(self) -> dict | None:
        """The newest saved link result, or None."""
        row = self.conn.execute("SELECT result FROM link_runs ORDER BY id DESC LIMIT 1").fetchone()
        return json.loads(row[0]) if row else None

    def link_citations(self, game: str, rule: str) -> list[dict]:
        """The citations of ``rule`` in the newest saved run that has the game, in their order."""
        q = (
            "SELECT data FROM link_citations WHERE game=? AND rule=?"
            " AND run_id=(SELECT MAX(run_id) FROM link_citations WHERE game=?) ORDER BY rowid"
        )
        return [json.loads(data) for (data,) in self.conn.execute(q, (game, rule, game))]

    # -- alignments (kb.versions.align) -------------------------------------------------------------
    def clear_alignments(self) -> None:
        self.conn.execute("DELETE FROM alignments")

    def add_alignment(self, a_vid: int, b_vid: int, data: dict) -> None:
        self.conn.execute("INSERT INTO alignments VALUES(?,?,?)", (a_vid, b_vid, dumps(data)))

    def alignment(self, a_vid: int, b_vid: int) -> dict | None:
        """The stored alignment of version ``a_vid`` against ``b_vid``, or None."""
        row = self.conn.execute("SELECT data FROM alignments WHERE a_vid=? AND b_vid=?", (a_vid, b_vid)).fetchone()
        return json.loads(row[0]) if row else None
