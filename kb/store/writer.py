"""Writing parsed documents into the store: the statements that carry out kb.store.merge's plans."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

from kb.model import Article, ParsedVersion, ParseResult, RuleNode
from kb.store import merge, schema
from kb.store.records import dumps, sort_date_for


class Writer:
    """The writing half of the Store (mixed into kb.store.db.Store)."""

    conn: sqlite3.Connection
    _versions_cache: list | None
    _contents_known: set[str] | None = None

    def has_document(self, sha256: str, options: str = "") -> bool:
        """True if these bytes were already ingested with the same overrides (``options``)."""
        q = "SELECT 1 FROM documents WHERE sha256=? AND options=?"
        return self.conn.execute(q, (sha256, options)).fetchone() is not None

    def add(
        self,
        result: ParseResult,
        *,
        path: str,
        sha256: str,
        encoding: str = "",
        options: str = "",
        replace: bool = False,
    ) -> list[str]:
        """Store one parsed document in the current transaction; returns notes for the user.

        A whole stored text is replaced only by a whole text with at least as many clauses; a
        truncated or shorter one is refused (InputError at its file and line) unless ``replace``.
        """
        self._versions_cache = None
        now = datetime.now(UTC).isoformat(timespec="seconds")
        cur = self.conn.execute(
            "INSERT INTO documents(path, format, kind, sha256, options, encoding, ingested_at) VALUES(?,?,?,?,?,?,?)",
            (path, result.format, result.kind, sha256, options, encoding, now),
        )
        doc_id = cur.lastrowid
        notes: list[str] = []
        touched = [self._add_version(version, doc_id, notes, path, replace) for version in result.versions]
        for article in result.articles:
            self._add_article(article, doc_id)
        self._count(touched)
        self._versions_cache = None
        return notes

    def _count(self, vids: list[int]) -> None:
        """Recount the versions ``vids`` in ``version_counts`` (what ``versions`` reads)."""
        for i in range(0, len(vids), 500):
            chunk = vids[i : i + 500]
            self.conn.execute(f"{schema.COUNT_VERSIONS} WHERE v.id IN ({','.join('?' * len(chunk))})", chunk)

    def _add_version(self, pv: ParsedVersion, doc_id: int, notes: list[str], path: str, replace: bool) -> int:
        """Store one parsed version (new, merged into or replacing a stored one), adding to ``notes``; its id."""
        row = self.conn.execute(
            "SELECT id, partial, meta FROM versions WHERE game=? AND lang=? AND label=?", (pv.game, pv.lang, pv.label)
        ).fetchone()
        if row is None:
            vid, plan = self._insert_version(pv), merge.Plan(replacing=False, partial=pv.partial)
        else:
            vid, was_partial, meta = row
            plan = merge.plan(pv, bool(was_partial), lambda: self._stored_rules(vid), path, replace)
            self._update_version(vid, pv, plan, json.loads(meta))
        self.conn.execute("INSERT OR IGNORE INTO version_documents VALUES(?, ?)", (vid, doc_id))
        stored = dict(self.conn.execute("SELECT rule, hash FROM nodes WHERE version_id=?", (vid,)))
        fresh, fresh_notes = merge.fresh_nodes(stored, pv.nodes)
        self._insert_nodes(vid, doc_id, fresh)
        if plan.merging and stored:
            self._renumber(vid)
        self._insert_terms(vid, pv, doc_id)
        notes.extend(plan.notes + fresh_notes)
        return vid

    def _stored_rules(self, vid: int) -> list[str]:
        return [r for (r,) in self.conn.execute("SELECT rule FROM nodes WHERE version_id=? ORDER BY position", (vid,))]

    def _insert_version(self, pv: ParsedVersion) -> int:
        return self.conn.execute(
            "INSERT INTO versions(game, lang, label, effective, partial, sort_date, meta) VALUES(?,?,?,?,?,?,?)",
            (
                pv.game,
                pv.lang,
                pv.label,
                pv.effective.isoformat() if pv.effective else None,
                int(pv.partial),
                sort_date_for(pv.label, pv.effective),
                dumps(pv.meta),
            ),
        ).lastrowid

    def _update_version(self, vid: int, pv: ParsedVersion, plan: merge.Plan, meta: dict) -> None:
        if plan.replacing:
            self.conn.execute("DELETE FROM nodes WHERE version_id=?", (vid,))
            self.conn.execute("DELETE FROM terms WHERE version_id=?", (vid,))
        self.conn.execute(
            "UPDATE versions SET partial=?, effective=COALESCE(?, effective), meta=? WHERE id=?",
            (
                int(plan.partial),
                pv.effective.isoformat() if pv.effective else None,
                dumps(merge.merged_meta(meta, pv.meta, plan)),
                vid,
            ),
        )
        if merge.dated_by_effective(pv):
            self.conn.execute("UPDATE versions SET sort_date=? WHERE id=?", (pv.effective.isoformat(), vid))

    def _insert_nodes(self, vid: int, doc_id: int, nodes: list[RuleNode]) -> None:
        # Most clauses come back unchanged in the next edition: a text already stored is not encoded and
        # offered again (contents rows are never deleted, and a failed build discards its whole store).
        known = self._known_contents()
        contents, rows = [], []
        for node in nodes:
            h = node.content_hash()
            if h not in known:
                known.add(h)
                refs = dumps([r.__dict__ for r in node.references])
                contents.append((h, node.title, node.text, dumps(node.examples), dumps(node.notes), refs))
            rows.append((vid, node.rule, node.parent, h, node.position, node.line, doc_id, int(node.truncated)))
        self.conn.executemany("INSERT OR IGNORE INTO contents VALUES(?,?,?,?,?,?)", contents)
        self.conn.executemany("INSERT INTO nodes VALUES(?,?,?,?,?,?,?,?)", rows)

    def _known_contents(self) -> set[str]:
        """Content hashes this store holds (read once per store, then kept up to date by _insert_nodes)."""
        if self._contents_known is None:
            self._contents_known = {h for (h,) in self.conn.execute("SELECT hash FROM contents")}
        return self._contents_known

    def _insert_terms(self, vid: int, pv: ParsedVersion, doc_id: int) -> None:
        self.conn.executemany(
            "INSERT INTO terms(version_id, game, lang, term, reading, english, definition, rule, source, line, document_id)"
            " VALUES(?,?,?,?,?,?,?,?,?,?,?)",
            [
                (vid, pv.game, pv.lang, t.term, t.reading, t.english, t.definition, t.rule, t.source, t.line, doc_id)
                for t in pv.terms
            ],
        )

    def _renumber(self, vid: int) -> None:
        """After merging fragments, order a version's nodes by clause id and relink parents."""
        rules = [r for (r,) in self.conn.execute("SELECT rule FROM nodes WHERE version_id=?", (vid,))]
        self.conn.executemany(
            "UPDATE nodes SET position=?, parent=? WHERE version_id=? AND rule=?",
            [(i, parent, vid, rule) for i, rule, parent in merge.renumbered(rules)],
        )

    def _add_article(self, article: Article, doc_id: int) -> None:
        data = {"sections": [s.__dict__ for s in article.sections], "links": article.links, "extra": article.extra}
        aid = self.conn.execute(
            "INSERT INTO articles(game, lang, title, text, revision, cites_version, data, document_id)"
            " VALUES(?,?,?,?,?,?,?,?)",
            (
                article.game,
                article.lang,
                article.title,
                article.text,
                article.revision,
                article.cites_version,
                dumps(data),
                doc_id,
            ),
        ).lastrowid
        self.conn.executemany(
            "INSERT INTO article_cites VALUES(?, ?)", [(aid, r) for r in dict.fromkeys(article.cites)]
        )
        for pair in article.extra.get("terms", []):
            self.conn.execute(
                "INSERT INTO terms(game, lang, term, english, source, document_id) VALUES(?,?,?,?,?,?)",
                (article.game, article.lang, pair.get("term", ""), pair.get("english", ""), "article", doc_id),
            )

    def set_version_estimate(self, vid: int, sort_date: str, estimate: dict) -> None:
        """Record where an undated version sits among dated ones (set by the versions service)."""
        meta = self._version_meta(vid)
        meta["estimated"] = estimate
        self.conn.execute("UPDATE versions SET sort_date=?, meta=? WHERE id=?", (sort_date, dumps(meta), vid))
        self._versions_cache = None

    def update_version_meta(self, vid: int, **items) -> None:
        """Set keys of a version's meta (None removes a key)."""
        meta = self._version_meta(vid)
        for key, value in items.items():
            if value is None:
                meta.pop(key, None)
            else:
                meta[key] = value
        self.conn.execute("UPDATE versions SET meta=? WHERE id=?", (dumps(meta), vid))
        self._versions_cache = None

    def _version_meta(self, vid: int) -> dict:
        return json.loads(self.conn.execute("SELECT meta FROM versions WHERE id=?", (vid,)).fetchone()[0])
