"""SQLite store of versions, rule nodes (content-addressed texts), terms and articles."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, TypeVar

from kb import ruleid
from kb.errors import InputError, NotFound, StoreError
from kb.model import Article, ParsedVersion, ParseResult, Reference, RuleNode

SCHEMA_VERSION = 2

# What ``rulekb versions`` counts per version, kept by ``Store.add``: counting on every open scanned
# every node (0.1-0.3 s on the full KB, most of a `rulekb show`).
VERSION_COUNTS = """
CREATE TABLE IF NOT EXISTS version_counts(
    version_id INTEGER PRIMARY KEY, clauses INTEGER NOT NULL, headings INTEGER NOT NULL,
    terms INTEGER NOT NULL, documents INTEGER NOT NULL);
"""
_COUNT_VERSIONS = (
    "INSERT OR REPLACE INTO version_counts SELECT v.id,"
    " (SELECT COUNT(*) FROM nodes n WHERE n.version_id=v.id AND instr(n.rule, '.') > 0),"
    " (SELECT COUNT(*) FROM nodes n WHERE n.version_id=v.id AND instr(n.rule, '.') = 0),"
    " (SELECT COUNT(*) FROM terms t WHERE t.version_id=v.id),"
    " (SELECT COUNT(*) FROM version_documents d WHERE d.version_id=v.id)"
    " FROM versions v WHERE v.id IN ({})"
)

SCHEMA = (
    """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE documents(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, format TEXT NOT NULL, kind TEXT NOT NULL,
    sha256 TEXT NOT NULL, options TEXT NOT NULL DEFAULT '', encoding TEXT, ingested_at TEXT NOT NULL,
    UNIQUE(sha256, options));
CREATE TABLE versions(
    id INTEGER PRIMARY KEY, game TEXT NOT NULL, lang TEXT NOT NULL, label TEXT NOT NULL,
    effective TEXT, partial INTEGER NOT NULL, sort_date TEXT NOT NULL DEFAULT '', meta TEXT NOT NULL DEFAULT '{}',
    UNIQUE(game, lang, label));
CREATE TABLE version_documents(version_id INTEGER NOT NULL, document_id INTEGER NOT NULL,
    PRIMARY KEY(version_id, document_id));
-- Texts are stored once per distinct content: most clauses repeat unchanged across editions.
CREATE TABLE contents(
    hash TEXT PRIMARY KEY, title TEXT NOT NULL, text TEXT NOT NULL,
    examples TEXT NOT NULL, notes TEXT NOT NULL, refs TEXT NOT NULL);
CREATE TABLE nodes(
    version_id INTEGER NOT NULL, rule TEXT NOT NULL, parent TEXT, hash TEXT NOT NULL,
    position INTEGER NOT NULL, line INTEGER NOT NULL, document_id INTEGER, truncated INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY(version_id, rule)) WITHOUT ROWID;
CREATE INDEX nodes_by_rule ON nodes(rule, version_id);
CREATE INDEX nodes_by_hash ON nodes(hash);
CREATE TABLE terms(
    id INTEGER PRIMARY KEY, version_id INTEGER, game TEXT NOT NULL, lang TEXT NOT NULL,
    term TEXT NOT NULL, reading TEXT, english TEXT, definition TEXT, rule TEXT, source TEXT, line INTEGER,
    document_id INTEGER);
CREATE INDEX terms_by_term ON terms(term);
CREATE TABLE articles(
    id INTEGER PRIMARY KEY, game TEXT NOT NULL, lang TEXT NOT NULL, title TEXT NOT NULL, text TEXT NOT NULL,
    revision TEXT, cites_version TEXT, data TEXT NOT NULL, document_id INTEGER);
CREATE TABLE article_cites(article_id INTEGER NOT NULL, rule TEXT NOT NULL);
CREATE INDEX article_cites_by_rule ON article_cites(rule);
"""
    + VERSION_COUNTS
)

_LABEL_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:\.\d+)?$")


@dataclass
class VersionInfo:
    """A version with its counts, as ``rulekb versions`` lists it."""

    id: int
    game: str
    lang: str
    label: str
    effective: date | None
    partial: bool
    sort_date: str
    meta: dict = field(default_factory=dict)
    clauses: int = 0
    headings: int = 0
    terms: int = 0
    documents: int = 0

    def as_json(self) -> dict:
        return {
            "game": self.game,
            "lang": self.lang,
            "version": self.label,
            "effective": self.effective.isoformat() if self.effective else None,
            "partial": self.partial,
            "clauses": self.clauses,
            "headings": self.headings,
            "terms": self.terms,
            "documents": self.documents,
            "estimated": self.meta.get("estimated"),
            "provenance": self.meta.get("provenance"),
            "renders": (self.meta.get("renders") or {}).get("label"),
        }


@dataclass
class NodeRecord:
    """A stored rule node joined with its content."""

    version_id: int
    rule: str
    parent: str | None
    hash: str
    position: int
    line: int
    truncated: bool
    title: str
    text: str
    examples: list[str]
    notes: list[str]
    references: list[Reference]


def sort_date_for(label: str, effective: date | None) -> str:
    """Order key: a Japanese ``YYYYMMDD.N`` sorts with its English ``YYYYMMDD`` edition."""
    m = _LABEL_DATE.match(label)
    if m:
        return f"{m.group(1)}-{m.group(2)}-{m.group(3)}"
    return effective.isoformat() if effective else ""


_NODE_SELECT = (
    "SELECT n.version_id, n.rule, n.parent, n.hash, n.position, n.line, n.truncated,"
    " c.title, c.text, c.examples, c.notes, c.refs FROM nodes n JOIN contents c ON c.hash = n.hash"
)


def _node(row) -> NodeRecord:
    return NodeRecord(
        version_id=row[0],
        rule=row[1],
        parent=row[2],
        hash=row[3],
        position=row[4],
        line=row[5],
        truncated=bool(row[6]),
        title=row[7],
        text=row[8],
        examples=json.loads(row[9]),
        notes=json.loads(row[10]),
        references=[Reference(**r) for r in json.loads(row[11])],
    )


T = TypeVar("T")


class Store:
    """One ``kb.sqlite`` file. Open read-only to serve, writable only while building."""

    def __init__(self, conn: sqlite3.Connection, path: str, writable: bool):
        self.conn = conn
        self.path = path
        self.writable = writable
        self._versions_cache: list[VersionInfo] | None = None
        self.memo: dict[str, Any] = {}  # values derived from the contents (kb.versions.editorial's word counts)
        self._tables: set[str] = set()

    # -- opening ---------------------------------------------------------------------------
    @classmethod
    def create(cls, path: str) -> Store:
        """Create an empty store at ``path`` (which must not exist)."""
        conn = sqlite3.connect(path)
        conn.executescript(SCHEMA)
        conn.execute("INSERT INTO meta VALUES('schema_version', ?)", (str(SCHEMA_VERSION),))
        conn.commit()
        return cls(conn, path, writable=True)

    @classmethod
    def open(cls, path: str, *, write: bool = False) -> Store:
        """Open an existing store; read-only unless ``write``."""
        try:
            if write:
                conn = sqlite3.connect(path)
            else:
                conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.Error as exc:
            raise StoreError(f"{path}: not a rulekb store ({exc})") from None
        if row is None or int(row[0]) != SCHEMA_VERSION:
            raise StoreError(f"{path}: schema version {row and row[0]} (this rulekb reads {SCHEMA_VERSION}); rebuild")
        return cls(conn, path, writable=write)

    def close(self) -> None:
        self.conn.close()

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (key, value))

    # -- writing ---------------------------------------------------------------------------
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
        """Recount the versions ``vids`` (every version when the store predates the counts table)."""
        if not self.has_table("version_counts"):
            self.conn.executescript(VERSION_COUNTS)
            vids = [r[0] for r in self.conn.execute("SELECT id FROM versions")]
        for i in range(0, len(vids), 500):
            chunk = vids[i : i + 500]
            self.conn.execute(_COUNT_VERSIONS.format(",".join("?" * len(chunk))), chunk)

    def _add_version(self, pv: ParsedVersion, doc_id: int, notes: list[str], path: str, replace: bool) -> int:
        """Store one parsed version (new, merged into or replacing a stored one); returns its id."""
        row = self.conn.execute(
            "SELECT id, partial FROM versions WHERE game=? AND lang=? AND label=?", (pv.game, pv.lang, pv.label)
        ).fetchone()
        effective = pv.effective.isoformat() if pv.effective else None
        if row is None:
            vid = self.conn.execute(
                "INSERT INTO versions(game, lang, label, effective, partial, sort_date, meta) VALUES(?,?,?,?,?,?,?)",
                (
                    pv.game,
                    pv.lang,
                    pv.label,
                    effective,
                    int(pv.partial),
                    sort_date_for(pv.label, pv.effective),
                    json.dumps(pv.meta, ensure_ascii=False),
                ),
            ).lastrowid
            merge = False
        else:
            vid, was_partial = row
            if not was_partial and (pv.truncated_at or not pv.partial):
                notes.extend(self._check_replacement(vid, pv, path, replace))  # refuses unless allowed
                replacing = True
            else:
                # A whole text supersedes the fragments (quotes, single pages) seen so far; fragments merge.
                replacing = was_partial and not pv.partial
            if replacing:
                self.conn.execute("DELETE FROM nodes WHERE version_id=?", (vid,))
                self.conn.execute("DELETE FROM terms WHERE version_id=?", (vid,))
            merge = not replacing
            meta = json.loads(self.conn.execute("SELECT meta FROM versions WHERE id=?", (vid,)).fetchone()[0])
            meta.update({k: v for k, v in pv.meta.items() if k not in meta or not merge})
            self.conn.execute(
                "UPDATE versions SET partial=?, effective=COALESCE(?, effective), meta=? WHERE id=?",
                (int(pv.partial and (was_partial or replacing)), effective, json.dumps(meta, ensure_ascii=False), vid),
            )
            if pv.effective and not _LABEL_DATE.match(pv.label):
                self.conn.execute("UPDATE versions SET sort_date=? WHERE id=?", (pv.effective.isoformat(), vid))
        self.conn.execute("INSERT OR IGNORE INTO version_documents VALUES(?, ?)", (vid, doc_id))
        existing = {r[0]: r[1] for r in self.conn.execute("SELECT rule, hash FROM nodes WHERE version_id=?", (vid,))}
        contents, nodes = [], []
        for node in pv.nodes:
            h = node.content_hash()
            if node.rule in existing:
                if existing[node.rule] != h:
                    notes.append(
                        f"{node.rule}: this document's text differs from the one already stored; kept the stored text"
                    )
                continue
            contents.append(
                (
                    h,
                    node.title,
                    node.text,
                    json.dumps(node.examples, ensure_ascii=False),
                    json.dumps(node.notes, ensure_ascii=False),
                    json.dumps([r.__dict__ for r in node.references], ensure_ascii=False),
                )
            )
            nodes.append((vid, node.rule, node.parent, h, node.position, node.line, doc_id, int(node.truncated)))
        self.conn.executemany("INSERT OR IGNORE INTO contents VALUES(?,?,?,?,?,?)", contents)
        self.conn.executemany("INSERT INTO nodes VALUES(?,?,?,?,?,?,?,?)", nodes)
        if merge and existing:
            self._renumber(vid)
        self.conn.executemany(
            "INSERT INTO terms(version_id, game, lang, term, reading, english, definition, rule, source, line, document_id)"
            " VALUES(?,?,?,?,?,?,?,?,?,?,?)",
            [
                (vid, pv.game, pv.lang, t.term, t.reading, t.english, t.definition, t.rule, t.source, t.line, doc_id)
                for t in pv.terms
            ],
        )
        return vid

    def _check_replacement(self, vid: int, pv: ParsedVersion, path: str, replace: bool) -> list[str]:
        """Refuse to replace a whole stored text with a truncated or shorter one unless ``replace``."""
        name = f"{pv.game}/{pv.lang}/{pv.label}"
        stored = [
            r[0] for r in self.conn.execute("SELECT rule FROM nodes WHERE version_id=? ORDER BY position", (vid,))
        ]
        stored_clauses = sum(1 for r in stored if "." in r)
        new_clauses = sum(1 for n in pv.nodes if "." in n.rule)
        if pv.truncated_at:
            if not replace:
                raise InputError(
                    f"the text ends early ({pv.truncated_why or 'cut off'}; {new_clauses} clauses) but the KB holds "
                    f"a whole text of {name} ({stored_clauses} clauses): not replacing it (--replace to do so)",
                    path=path,
                    line=pv.truncated_at,
                )
            return [
                f"version {name} held a whole text ({stored_clauses} clauses): replaced it with this truncated "
                f"one ({new_clauses} clauses), kept as partial"
            ]
        if new_clauses < stored_clauses and not replace:
            have = {n.rule for n in pv.nodes}
            missing = next((r for r in stored if "." in r and r not in have), None) or "?"
            before = [n for n in pv.nodes if ruleid.sort_key(n.rule) < ruleid.sort_key(missing)]
            line = before[-1].line if before else (pv.nodes[0].line if pv.nodes else 1)
            raise InputError(
                f"{new_clauses} clauses where the KB's {name} has {stored_clauses} ({missing} is missing here): "
                "not replacing a whole text with a shorter one (--replace to do so)",
                path=path,
                line=line,
            )
        return [
            f"version {name} already held a whole text ({stored_clauses} clauses): replaced it ({new_clauses} clauses)"
        ]

    def _renumber(self, vid: int) -> None:
        """After merging fragments, order a version's nodes by clause id and relink parents."""
        rules = [r[0] for r in self.conn.execute("SELECT rule FROM nodes WHERE version_id=?", (vid,))]
        rules.sort(key=ruleid.sort_key)
        present = set(rules)
        updates = []
        for i, rule in enumerate(rules):
            parent = next((a for a in reversed(ruleid.ancestors(rule)) if a in present), None)
            updates.append((i, parent, vid, rule))
        self.conn.executemany("UPDATE nodes SET position=?, parent=? WHERE version_id=? AND rule=?", updates)

    def _add_article(self, article: Article, doc_id: int) -> None:
        data = {
            "sections": [s.__dict__ for s in article.sections],
            "links": article.links,
            "extra": article.extra,
        }
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
                json.dumps(data, ensure_ascii=False),
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
        meta = json.loads(self.conn.execute("SELECT meta FROM versions WHERE id=?", (vid,)).fetchone()[0])
        meta["estimated"] = estimate
        self.conn.execute(
            "UPDATE versions SET sort_date=?, meta=? WHERE id=?", (sort_date, json.dumps(meta, ensure_ascii=False), vid)
        )
        self._versions_cache = None

    def update_version_meta(self, vid: int, **items) -> None:
        """Set keys of a version's meta (None removes a key)."""
        meta = json.loads(self.conn.execute("SELECT meta FROM versions WHERE id=?", (vid,)).fetchone()[0])
        for key, value in items.items():
            if value is None:
                meta.pop(key, None)
            else:
                meta[key] = value
        self.conn.execute("UPDATE versions SET meta=? WHERE id=?", (json.dumps(meta, ensure_ascii=False), vid))
        self._versions_cache = None

    def commit(self) -> None:
        self.conn.commit()

    # -- reading ---------------------------------------------------------------------------
    def versions(self, game: str | None = None, lang: str | None = None) -> list[VersionInfo]:
        """Versions oldest first (by edition date; undated first unless placed by an estimate)."""
        if self._versions_cache is None:
            self._versions_cache = self._load_versions()
        return [
            v for v in self._versions_cache if (game is None or v.game == game) and (lang is None or v.lang == lang)
        ]

    def use_versions(self, versions: list[VersionInfo]) -> None:
        """Adopt the version list another read-only connection to the same file read (it scans every node)."""
        self._versions_cache = versions

    def share_memo(self, memo: dict[str, Any]) -> None:
        """Keep derived values in ``memo``, shared with the other read-only connections to the same file."""
        self.memo = memo

    def derived(self, key: str, compute: Callable[[], T]) -> T:
        """The value ``compute()`` derives from the stored contents, computed once per memo."""
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]

    def _counts(self) -> dict[int, tuple[int, int, int, int]]:
        """Clauses, headings, terms and documents of each version id."""
        if self.has_table("version_counts"):
            return {r[0]: r[1:] for r in self.conn.execute("SELECT * FROM version_counts")}
        # a store written before the counts table: count now (it scans every node)
        nodes = {
            r[0]: (r[1], r[2])
            for r in self.conn.execute(
                "SELECT version_id, SUM(instr(rule, '.') > 0), SUM(instr(rule, '.') = 0) FROM nodes GROUP BY version_id"
            )
        }
        terms = dict(self.conn.execute("SELECT version_id, COUNT(*) FROM terms GROUP BY version_id"))
        docs = dict(self.conn.execute("SELECT version_id, COUNT(*) FROM version_documents GROUP BY version_id"))
        return {
            vid: (*nodes.get(vid, (0, 0)), terms.get(vid, 0), docs.get(vid, 0)) for vid in nodes.keys() | docs.keys()
        }

    def _load_versions(self) -> list[VersionInfo]:
        counts = self._counts()
        out = []
        for vid, game, lang, label, effective, partial, sort_date, meta in self.conn.execute(
            "SELECT id, game, lang, label, effective, partial, sort_date, meta FROM versions"
        ):
            c, h, n_terms, n_docs = counts.get(vid, (0, 0, 0, 0))
            out.append(
                VersionInfo(
                    id=vid,
                    game=game,
                    lang=lang,
                    label=label,
                    effective=date.fromisoformat(effective) if effective else None,
                    partial=bool(partial),
                    sort_date=sort_date,
                    meta=json.loads(meta),
                    clauses=c or 0,
                    headings=h or 0,
                    terms=n_terms,
                    documents=n_docs,
                )
            )
        # Undated versions with no estimate yet (an old translation) sort first: they are not current.
        out.sort(key=lambda v: (v.game, v.lang, v.sort_date, v.label))
        return out

    def get_version(self, game: str, lang: str, label: str) -> VersionInfo:
        """The version ``label`` (or ``latest``) of a game and language; NotFound otherwise."""
        candidates = self.versions(game, lang)
        if label in ("latest", "", None):
            if not candidates:
                raise NotFound(f"no versions of {game}/{lang}")
            # Prefer whole texts over fragments, and dated texts over undated ones.
            return max(candidates, key=lambda v: (not v.partial, bool(v.sort_date), v.sort_date))
        for v in candidates:
            if v.label == label:
                return v
        known = ", ".join(v.label for v in candidates[-5:]) or "none"
        raise NotFound(f"unknown version {label!r} of {game}/{lang} (newest: {known})")

    def find_version(self, label: str, game: str | None = None, lang: str | None = None) -> VersionInfo:
        """A version by label alone when game/lang are not given (unique match required)."""
        matches = [v for v in self.versions(game, lang) if v.label == label]
        if label == "latest" and game and lang:
            return self.get_version(game, lang, label)
        if not matches:
            raise NotFound(f"unknown version {label!r}")
        if len(matches) > 1:
            names = ", ".join(f"{v.game}/{v.lang}" for v in matches)
            raise NotFound(f"version {label!r} exists for {names}: give --game/--lang")
        return matches[0]

    def version_by_id(self, vid: int) -> VersionInfo:
        for v in self.versions():
            if v.id == vid:
                return v
        raise NotFound(f"no version with id {vid}")

    def latest(self, game: str, lang: str) -> VersionInfo | None:
        try:
            return self.get_version(game, lang, "latest")
        except NotFound:
            return None

    @staticmethod
    def _vid(version: VersionInfo | int) -> int:
        return version if isinstance(version, int) else version.id

    def nodes(self, version: VersionInfo | int) -> list[NodeRecord]:
        """All nodes of a version in document order."""
        rows = self.conn.execute(_NODE_SELECT + " WHERE n.version_id=? ORDER BY n.position", (self._vid(version),))
        return [_node(r) for r in rows]

    def outline(self, version: VersionInfo | int, head: int = 120) -> list[tuple[str, str, str]]:
        """``(rule, title, first characters of the text)`` of every node of a version in document order:
        what a table of contents needs, without reading whole texts."""
        q = (
            "SELECT n.rule, c.title, substr(c.text, 1, ?) FROM nodes n JOIN contents c ON c.hash = n.hash"
            " WHERE n.version_id=? ORDER BY n.position"
        )
        return list(self.conn.execute(q, (head, self._vid(version))))

    def has_table(self, name: str) -> bool:
        """True when the store has table ``name`` (derived tables are made by later build steps)."""
        if name in self._tables:
            return True
        found = (
            self.conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,)).fetchone()
            is not None
        )
        if found and not self.writable:  # read-only: it stays (asked before every lineage link read)
            self._tables.add(name)
        return found

    def rules(self, version: VersionInfo | int) -> list[str]:
        """The ids a version holds, in document order."""
        q = "SELECT rule FROM nodes WHERE version_id=? ORDER BY position"
        return [r for (r,) in self.conn.execute(q, (self._vid(version),))]

    def node(self, version: VersionInfo | int, rule: str) -> NodeRecord | None:
        row = self.conn.execute(
            _NODE_SELECT + " WHERE n.version_id=? AND n.rule=?", (self._vid(version), rule)
        ).fetchone()
        return _node(row) if row else None

    def node_at(self, version: VersionInfo | int, position: int) -> NodeRecord | None:
        """The node at ``position`` in document order (None past either end)."""
        row = self.conn.execute(
            _NODE_SELECT + " WHERE n.version_id=? AND n.position=?", (self._vid(version), position)
        ).fetchone()
        return _node(row) if row else None

    def holds(self, version: VersionInfo | int, rule: str) -> bool:
        """True when the version has a node ``rule``."""
        q = "SELECT 1 FROM nodes WHERE version_id=? AND rule=?"
        return self.conn.execute(q, (self._vid(version), rule)).fetchone() is not None

    def find_text(self, versions: list[int], needle: str, limit: int = 5000) -> list[tuple[int, str, str, str, str]]:
        """``(version id, rule, hash, title, text)`` of nodes of ``versions`` whose text or title contains
        ``needle``, middle dots ignored (a plain substring search, for a KB without its index)."""
        if not versions:
            return []
        like = "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        text_sql = "REPLACE(REPLACE(c.{0}, '・', ''), '･', '') LIKE ? ESCAPE '\\'"
        marks = ",".join("?" * len(versions))
        return self.conn.execute(
            "SELECT n.version_id, n.rule, n.hash, c.title, c.text FROM nodes n JOIN contents c ON c.hash = n.hash"
            f" WHERE n.version_id IN ({marks}) AND ({text_sql.format('text')} OR {text_sql.format('title')})"
            " LIMIT ?",
            [*versions, like, like, limit],
        ).fetchall()

    def children(self, version: VersionInfo | int, rule: str) -> list[NodeRecord]:
        rows = self.conn.execute(
            _NODE_SELECT + " WHERE n.version_id=? AND n.parent=? ORDER BY n.position", (self._vid(version), rule)
        )
        return [_node(r) for r in rows]

    def descendants(self, version: VersionInfo | int, rule: str) -> list[NodeRecord]:
        """Every node below a rule or clause (509: 509.1, 509.1a, 509.2 …; 509.1: 509.1a …), in document order."""
        # a key range on the (version_id, rule) primary key: '/' sorts right after '.', 'zz' after any letters
        lo, hi = (rule + ".", rule + "/") if "." not in rule else (rule + "a", rule + "zz")
        rows = self.conn.execute(
            _NODE_SELECT + " WHERE n.version_id=? AND n.rule >= ? AND n.rule <= ? ORDER BY n.position",
            (self._vid(version), lo, hi),
        )
        return [_node(r) for r in rows if rule in ruleid.ancestors(r[1])]

    def rule_versions(self, game: str, lang: str, rule: str) -> list[tuple[VersionInfo, NodeRecord]]:
        """Every version of a game/language holding ``rule``, oldest first."""
        by_id = {v.id: v for v in self.versions(game, lang)}
        rows = self.conn.execute(_NODE_SELECT + " WHERE n.rule=?", (rule,))
        found = [(by_id[r[0]], _node(r)) for r in rows if r[0] in by_id]
        order = {v.id: i for i, v in enumerate(self.versions(game, lang))}
        return sorted(found, key=lambda pair: order[pair[0].id])

    def hash_versions(self, hashes: list[str]) -> dict[str, list[int]]:
        """Version ids holding each content hash."""
        out: dict[str, list[int]] = {}
        for i in range(0, len(hashes), 500):
            chunk = hashes[i : i + 500]
            q = f"SELECT hash, version_id FROM nodes WHERE hash IN ({','.join('?' * len(chunk))})"
            for h, vid in self.conn.execute(q, chunk):
                out.setdefault(h, []).append(vid)
        return out

    def distinct_contents(self) -> Iterator[tuple[str, str, str, NodeRecord]]:
        """Each distinct (game, lang, rule, content) once, from its newest version: what the index holds."""
        q = (
            "SELECT v.game, v.lang, MAX(v.sort_date), n.version_id, n.rule, n.parent, n.hash, n.position, n.line,"
            " n.truncated, c.title, c.text, c.examples, c.notes, c.refs"
            " FROM nodes n JOIN contents c ON c.hash = n.hash JOIN versions v ON v.id = n.version_id"
            " GROUP BY v.game, v.lang, n.rule, n.hash ORDER BY v.game, v.lang, n.rule"
        )
        for row in self.conn.execute(q):
            yield row[0], row[1], row[2], _node(row[3:])

    def terms(
        self, game: str | None = None, lang: str | None = None, version: VersionInfo | int | None = None
    ) -> list[dict]:
        q = "SELECT id, version_id, game, lang, term, reading, english, definition, rule, source, line FROM terms WHERE 1=1"
        args: list = []
        if game:
            q += " AND game=?"
            args.append(game)
        if lang:
            q += " AND lang=?"
            args.append(lang)
        if version is not None:
            q += " AND version_id=?"
            args.append(self._vid(version))
        cols = (
            "id",
            "version_id",
            "game",
            "lang",
            "term",
            "reading",
            "english",
            "definition",
            "rule",
            "source",
            "line",
        )
        return [dict(zip(cols, r, strict=True)) for r in self.conn.execute(q + " ORDER BY id", args)]

    # -- the few columns a search hit shows (read per hit: one indexed lookup each) ----------------------
    def content(self, h: str) -> tuple[str, str]:
        """(title, text) of the clause text with content hash ``h``."""
        return self.conn.execute("SELECT title, text FROM contents WHERE hash=?", (h,)).fetchone()

    def term_entry(self, term_id: int) -> tuple[str, str | None, str | None]:
        """(term, English name, definition) of one glossary entry."""
        return self.conn.execute("SELECT term, english, definition FROM terms WHERE id=?", (term_id,)).fetchone()

    def article_text(self, article_id: int) -> tuple[str, str]:
        """(title, text) of one article."""
        return self.conn.execute("SELECT title, text FROM articles WHERE id=?", (article_id,)).fetchone()

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

    def articles(self, game: str | None = None) -> list[dict]:
        q = "SELECT id, game, lang, title, text, revision, cites_version, data FROM articles"
        rows = self.conn.execute(q + (" WHERE game=?" if game else "") + " ORDER BY id", (game,) if game else ())
        return [self._article(r) for r in rows]

    def article(self, article_id: int) -> dict | None:
        row = self.conn.execute(
            "SELECT id, game, lang, title, text, revision, cites_version, data FROM articles WHERE id=?", (article_id,)
        ).fetchone()
        return self._article(row) if row else None

    def articles_citing(self, game: str, rule: str) -> list[dict]:
        rows = self.conn.execute(
            "SELECT a.id, a.game, a.lang, a.title, a.text, a.revision, a.cites_version, a.data FROM articles a"
            " JOIN article_cites c ON c.article_id = a.id WHERE a.game=? AND c.rule=? ORDER BY a.id",
            (game, rule),
        )
        return [self._article(r) for r in rows]

    def _article(self, row) -> dict:
        cites = [r[0] for r in self.conn.execute("SELECT rule FROM article_cites WHERE article_id=?", (row[0],))]
        data = json.loads(row[7])
        return {
            "id": row[0],
            "game": row[1],
            "lang": row[2],
            "title": row[3],
            "text": row[4],
            "revision": row[5],
            "cites_version": row[6],
            "cites": cites,
            **data,
        }


def node_to_model(rec: NodeRecord) -> RuleNode:
    """A stored node as a model RuleNode (for services that work on model objects)."""
    return RuleNode(
        rule=rec.rule,
        text=rec.text,
        title=rec.title,
        examples=rec.examples,
        notes=rec.notes,
        references=rec.references,
        parent=rec.parent,
        position=rec.position,
        line=rec.line,
        truncated=rec.truncated,
    )
