"""Every table of ``kb.sqlite``, the schema version, and the migrations that bring an older store up to it.

A store records its ``schema_version`` in ``meta``. Opening one for writing applies, in order, each
migration above its version (a KB copied for ``rulekb ingest`` is upgraded on the way); a read-only
open of another version is refused with one line saying what to run. Change the schema by adding a
migration here and raising ``SCHEMA_VERSION``: ``SCHEMA`` is what a new store gets, and a migrated
store must end with the same tables and columns (tests/test_store.py checks it).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from kb.errors import StoreError

SCHEMA_VERSION = 4

CORE = """
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

# Derived by the build after ingestion (kb.versions.lineage, kb.versions.align) and by `rulekb link --save`
# ("IF NOT EXISTS": migrations lay these out again in a store that has some of them).
DERIVED = """
CREATE TABLE IF NOT EXISTS lineage(
    game TEXT NOT NULL, lang TEXT NOT NULL, old_vid INTEGER NOT NULL, new_vid INTEGER NOT NULL,
    old_rule TEXT, new_rule TEXT, kind TEXT NOT NULL, similarity REAL NOT NULL, reference_only INTEGER NOT NULL,
    editorial INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS lineage_by_new ON lineage(new_vid, new_rule);
CREATE INDEX IF NOT EXISTS lineage_by_old ON lineage(old_vid, old_rule);
CREATE TABLE IF NOT EXISTS alignments(a_vid INTEGER, b_vid INTEGER, data TEXT NOT NULL, PRIMARY KEY(a_vid, b_vid));
CREATE TABLE IF NOT EXISTS link_runs(
    id INTEGER PRIMARY KEY, game TEXT NOT NULL, against TEXT, created TEXT NOT NULL, result TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS link_citations(
    run_id INTEGER NOT NULL, game TEXT NOT NULL, rule TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS link_citations_by_rule ON link_citations(game, rule, run_id);
"""

# What ``rulekb versions`` counts per version, kept by ``Store.add`` (kb.store.writer): counting on every
# open scanned every node (0.1-0.3 s on the full KB, most of a `rulekb show`).
VERSION_COUNTS = """
CREATE TABLE IF NOT EXISTS version_counts(
    version_id INTEGER PRIMARY KEY, clauses INTEGER NOT NULL, headings INTEGER NOT NULL,
    terms INTEGER NOT NULL, documents INTEGER NOT NULL);
"""
COUNT_VERSIONS = (
    "INSERT OR REPLACE INTO version_counts SELECT v.id,"
    " (SELECT COUNT(*) FROM nodes n WHERE n.version_id=v.id AND instr(n.rule, '.') > 0),"
    " (SELECT COUNT(*) FROM nodes n WHERE n.version_id=v.id AND instr(n.rule, '.') = 0),"
    " (SELECT COUNT(*) FROM terms t WHERE t.version_id=v.id),"
    " (SELECT COUNT(*) FROM version_documents d WHERE d.version_id=v.id)"
    " FROM versions v"
)

SCHEMA = CORE + DERIVED + VERSION_COUNTS


def _statements(script: str) -> list[str]:
    """The statements of a script without comments (executescript would commit the migration's transaction)."""
    lines = [line for line in script.splitlines() if not line.lstrip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _to_3(conn: sqlite3.Connection) -> None:
    """Version 2 made the derived tables in the build steps, each when first needed, and lineage lacked
    the ``editorial`` column before that verdict existed: create what is missing."""
    had_lineage = "kind" in _columns(conn, "lineage")
    for statement in _statements(DERIVED):
        conn.execute(statement)
    if "editorial" not in _columns(conn, "lineage"):
        conn.execute("ALTER TABLE lineage ADD COLUMN editorial INTEGER NOT NULL DEFAULT 0")
    if had_lineage:  # built by a version-2 build step, which always filled it
        conn.execute("INSERT OR REPLACE INTO meta VALUES('lineage_built', '1')")


def _to_4(conn: sqlite3.Connection) -> None:
    """Version 4 keeps each version's counts (``version_counts``): count every version once."""
    for statement in _statements(VERSION_COUNTS):
        conn.execute(statement)
    conn.execute(COUNT_VERSIONS)


# (the version a step brings a store to, the step), oldest first. A store older than the first step's
# starting point (version 1: the first days' documents table) is rebuilt, not migrated.
MIGRATIONS: list[tuple[int, Callable[[sqlite3.Connection], None]]] = [(3, _to_3), (4, _to_4)]
OLDEST_MIGRATABLE = MIGRATIONS[0][0] - 1


def create(conn: sqlite3.Connection) -> None:
    """Lay out an empty store at the current version."""
    conn.executescript(SCHEMA)
    conn.execute("INSERT INTO meta VALUES('schema_version', ?)", (str(SCHEMA_VERSION),))
    conn.commit()


def version_of(conn: sqlite3.Connection) -> int | None:
    """The schema version a store records (None when it records none); sqlite3.Error when not a store."""
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    return int(row[0]) if row and str(row[0]).isdigit() else None


def check(conn: sqlite3.Connection, path: str, found: int | None, *, write: bool) -> int:
    """The schema version of a store that records ``found``, when this rulekb can use it (after
    migrating, when ``write``); StoreError with what to do otherwise."""
    rebuild = "rebuild it with `rulekb build`"
    if found is None:
        raise StoreError(f"{path}: not a rulekb store (it records no schema version)")
    if found > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: schema version {found} is newer than this rulekb reads ({SCHEMA_VERSION}):"
            f" upgrade rulekb, or {rebuild}"
        )
    if found == SCHEMA_VERSION:
        return found
    if not write:
        raise StoreError(
            f"{path}: schema version {found} is older than this rulekb reads ({SCHEMA_VERSION}): {rebuild}"
            " (`rulekb ingest` upgrades a copy too)"
        )
    if found < OLDEST_MIGRATABLE:
        raise StoreError(f"{path}: schema version {found} is too old to upgrade: {rebuild}")
    migrate(conn, found)
    return SCHEMA_VERSION


def migrate(conn: sqlite3.Connection, found: int) -> None:
    """Apply every migration above version ``found``, in order, in one transaction: all or nothing."""
    conn.execute("BEGIN")  # DDL would otherwise run outside any transaction
    try:
        for version, step in MIGRATIONS:
            if version > found:
                step(conn)
                conn.execute("INSERT OR REPLACE INTO meta VALUES('schema_version', ?)", (str(version),))
    except BaseException:
        conn.rollback()
        raise
    conn.commit()
