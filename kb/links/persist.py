"""Keep a link result in the KB (own tables) for the web app, and read it back."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from kb import ruleid
from kb.store import Store

SCHEMA = """
CREATE TABLE IF NOT EXISTS link_runs(
    id INTEGER PRIMARY KEY, game TEXT NOT NULL, against TEXT, created TEXT NOT NULL, result TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS link_citations(
    run_id INTEGER NOT NULL, game TEXT NOT NULL, rule TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS link_citations_by_rule ON link_citations(game, rule, run_id);
"""


def save(store: Store, result: dict) -> int:
    """Store ``result`` as the newest run of its game; returns the run id."""
    store.conn.executescript(SCHEMA)
    now = datetime.now(UTC).isoformat(timespec="seconds")
    run = store.conn.execute(
        "INSERT INTO link_runs(game, against, created, result) VALUES(?,?,?,?)",
        (result.get("game", "mtg"), result.get("against"), now, json.dumps(result, ensure_ascii=False)),
    ).lastrowid
    store.conn.executemany(
        "INSERT INTO link_citations VALUES(?,?,?,?)",
        [
            (run, c.get("game") or result.get("game", "mtg"), c["rule"], json.dumps(c, ensure_ascii=False))
            for c in result["citations"]
            if c.get("kind") != "label"
        ],  # a group's label cites no clause
    )
    store.commit()
    return run


def saved(store: Store) -> dict | None:
    """The last saved link result, or None when nothing was saved."""
    if not store.has_table("link_runs"):
        return None
    row = store.conn.execute("SELECT result FROM link_runs ORDER BY id DESC LIMIT 1").fetchone()
    return json.loads(row[0]) if row else None


def citations_for(store: Store, game: str, rule: str) -> list[dict]:
    """Citations of one clause (or of a rule heading) in the last saved run that has the game."""
    if not store.has_table("link_runs"):
        return []
    rule = ruleid.normalize(rule)
    row = store.conn.execute("SELECT MAX(run_id) FROM link_citations WHERE game=?", (game,)).fetchone()
    if not row or row[0] is None:
        return []
    rows = store.conn.execute(
        "SELECT data FROM link_citations WHERE run_id=? AND game=? AND rule=? ORDER BY rowid", (row[0], game, rule)
    )
    return [json.loads(r[0]) for r in rows]
