"""Reading rule nodes and their texts."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from kb import ruleid
from kb.store.records import NODE_COLUMNS, NodeRecord, VersionInfo, joined, node_from_row, vid_of


def _marks(values: list) -> str:
    return ",".join("?" * len(values))


class NodeReads:
    """The node-reading half of the Store (mixed into kb.store.db.Store)."""

    conn: sqlite3.Connection

    def nodes(self, version: VersionInfo | int) -> list[NodeRecord]:
        """All nodes of a version in document order."""
        q = joined(NODE_COLUMNS, "n.version_id=?", tail="ORDER BY n.position")
        return [node_from_row(r) for r in self.conn.execute(q, (vid_of(version),))]

    def item_rows(self, version: VersionInfo | int) -> list[tuple]:
        """``(rule, parent, hash, position, title, text, examples, refs)`` of a version's nodes in document
        order, examples and references as stored (JSON): a diff decodes only what it compares."""
        cols = "n.rule, n.parent, n.hash, n.position, c.title, c.text, c.examples, c.refs"
        return self.conn.execute(
            joined(cols, "n.version_id=?", tail="ORDER BY n.position"), (vid_of(version),)
        ).fetchall()

    def outline(self, version: VersionInfo | int, head: int = 120) -> list[tuple[str, str, str]]:
        """``(rule, title, first characters of the text)`` of every node of a version in document order:
        what a table of contents needs, without reading whole texts."""
        q = joined("n.rule, c.title, substr(c.text, 1, ?)", "n.version_id=?", tail="ORDER BY n.position")
        return list(self.conn.execute(q, (head, vid_of(version))))

    def rules(self, version: VersionInfo | int) -> list[str]:
        """The ids a version holds, in document order."""
        q = "SELECT rule FROM nodes WHERE version_id=? ORDER BY position"
        return [r for (r,) in self.conn.execute(q, (vid_of(version),))]

    def node(self, version: VersionInfo | int, rule: str) -> NodeRecord | None:
        row = self.conn.execute(joined(NODE_COLUMNS, "n.version_id=? AND n.rule=?"), (vid_of(version), rule)).fetchone()
        return node_from_row(row) if row else None

    def node_at(self, version: VersionInfo | int, position: int) -> NodeRecord | None:
        """The node at ``position`` in document order (None past either end)."""
        q = joined(NODE_COLUMNS, "n.version_id=? AND n.position=?")
        row = self.conn.execute(q, (vid_of(version), position)).fetchone()
        return node_from_row(row) if row else None

    def holds(self, version: VersionInfo | int, rule: str) -> bool:
        """True when the version has a node ``rule``."""
        q = "SELECT 1 FROM nodes WHERE version_id=? AND rule=?"
        return self.conn.execute(q, (vid_of(version), rule)).fetchone() is not None

    def rule_hashes(self, rule: str) -> dict[int, str]:
        """``{version id: content hash}`` of every version holding ``rule``."""
        return dict(self.conn.execute("SELECT version_id, hash FROM nodes WHERE rule=?", (rule,)))

    def find_text(self, versions: list[int], needle: str, limit: int = 5000) -> list[tuple[int, str, str, str, str]]:
        """``(version id, rule, hash, title, text)`` of nodes of ``versions`` whose text or title contains
        ``needle``, middle dots ignored (a plain substring search, for a KB without its index)."""
        if not versions:
            return []
        like = "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        text_sql = "REPLACE(REPLACE(c.{0}, '・', ''), '･', '') LIKE ? ESCAPE '\\'"
        where = f"n.version_id IN ({_marks(versions)}) AND ({text_sql.format('text')} OR {text_sql.format('title')})"
        q = joined("n.version_id, n.rule, n.hash, c.title, c.text", where, tail="LIMIT ?")
        return self.conn.execute(q, [*versions, like, like, limit]).fetchall()

    def children(self, version: VersionInfo | int, rule: str) -> list[NodeRecord]:
        q = joined(NODE_COLUMNS, "n.version_id=? AND n.parent=?", tail="ORDER BY n.position")
        return [node_from_row(r) for r in self.conn.execute(q, (vid_of(version), rule))]

    def descendants(self, version: VersionInfo | int, rule: str) -> list[NodeRecord]:
        """Every node below a rule or clause (509: 509.1, 509.1a, 509.2 …; 509.1: 509.1a …), in document order."""
        # a key range on the (version_id, rule) primary key: '/' sorts right after '.', 'zz' after any letters
        lo, hi = (rule + ".", rule + "/") if "." not in rule else (rule + "a", rule + "zz")
        q = joined(NODE_COLUMNS, "n.version_id=? AND n.rule >= ? AND n.rule <= ?", tail="ORDER BY n.position")
        rows = self.conn.execute(q, (vid_of(version), lo, hi))
        return [node_from_row(r) for r in rows if rule in ruleid.ancestors(r[1])]

    def clause_texts_under(self, prefix: str) -> list[tuple[int, str, str, str]]:
        """``(version id, rule, title, text)`` of every node, in any version, whose id starts with ``prefix``."""
        like = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return self.conn.execute(
            joined("n.version_id, n.rule, c.title, c.text", "n.rule LIKE ? ESCAPE '\\'"), (like,)
        ).fetchall()

    def distinct_contents(self) -> Iterator[tuple[str, str, str, NodeRecord]]:
        """Each distinct (game, lang, rule, content) once, from its newest version: what the index holds."""
        q = joined(
            f"v.game, v.lang, MAX(v.sort_date), {NODE_COLUMNS}",
            join="JOIN versions v ON v.id = n.version_id",
            tail="GROUP BY v.game, v.lang, n.rule, n.hash ORDER BY v.game, v.lang, n.rule",
        )
        for row in self.conn.execute(q):
            yield row[0], row[1], row[2], node_from_row(row[3:])

    # -- texts by content hash ----------------------------------------------------------------------
    def content(self, h: str) -> tuple[str, str]:
        """(title, text) of the clause text with content hash ``h``."""
        return self.conn.execute("SELECT title, text FROM contents WHERE hash=?", (h,)).fetchone()

    def content_texts(self) -> Iterator[tuple[str, str]]:
        """(title, text) of every distinct stored clause text."""
        yield from self.conn.execute("SELECT title, text FROM contents")

    def texts_in(self, versions: list[int]) -> list[tuple[str, str]]:
        """(content hash, text) of every distinct clause text the versions hold."""
        if not versions:
            return []
        q = joined("DISTINCT c.hash, c.text", f"n.version_id IN ({_marks(versions)})")
        return self.conn.execute(q, versions).fetchall()

    def headings_from(self, game: str, first: str) -> list[tuple[str, str]]:
        """(rule, title) of every titled three-digit rule of ``game`` numbered ``first`` or later, in any version
        and language (Magic's 800–999: its multiplayer and casual variants)."""
        q = (
            "SELECT DISTINCT n.rule, c.title FROM nodes n JOIN contents c ON c.hash=n.hash"
            " JOIN versions v ON v.id=n.version_id WHERE v.game=? AND length(n.rule)=3 AND n.rule >= ? AND c.title != ''"
        )
        return self.conn.execute(q, (game, first)).fetchall()

    def version_texts(self, versions: list[int]) -> list[tuple[int, str, str]]:
        """``(version id, rule, text)`` of every node of ``versions``."""
        if not versions:
            return []
        q = joined("n.version_id, n.rule, c.text", f"n.version_id IN ({_marks(versions)})")
        return self.conn.execute(q, versions).fetchall()

    def places(self, hashes: list[str], versions: list[int]) -> list[tuple[int, str]]:
        """(version id, rule) of every node of ``versions`` holding one of the texts ``hashes``."""
        if not hashes or not versions:
            return []
        q = f"SELECT version_id, rule FROM nodes WHERE hash IN ({_marks(hashes)}) AND version_id IN ({_marks(versions)})"
        return self.conn.execute(q, [*hashes, *versions]).fetchall()

    def newest_holding(self, rule: str, game: str, lang: str | None = None) -> tuple[str, str, str] | None:
        """(label, lang, content hash) of the newest version of ``game`` (in ``lang``) that holds ``rule``."""
        return self.conn.execute(
            "SELECT v.label, v.lang, n.hash FROM nodes n JOIN versions v ON v.id=n.version_id"
            " WHERE n.rule=? AND v.game=? AND (? IS NULL OR v.lang=?) ORDER BY v.sort_date DESC LIMIT 1",
            (rule, game, lang, lang),
        ).fetchone()

    def versions_with_text(self, h: str) -> list[tuple[int, str]]:
        """(id, label) of the versions holding the text with content hash ``h``, newest first."""
        q = "SELECT v.id, v.label FROM nodes n JOIN versions v ON v.id=n.version_id WHERE n.hash=? ORDER BY v.sort_date DESC"
        return self.conn.execute(q, (h,)).fetchall()
