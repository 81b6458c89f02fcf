"""The Store: one ``kb.sqlite`` file, opened read-only to serve and writable only while building.

Its methods come from one module per concern (writer, versions, nodes, articles, lineage, links);
this module opens, closes and copies the file and keeps its meta values.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from kb.errors import StoreError
from kb.store import schema
from kb.store.articles import ArticleReads
from kb.store.lineage import LineageTable
from kb.store.links import LinkTables
from kb.store.nodes import NodeReads
from kb.store.records import VersionInfo
from kb.store.versions import VersionReads
from kb.store.writer import Writer

T = TypeVar("T")


class Store(Writer, VersionReads, NodeReads, ArticleReads, LineageTable, LinkTables):
    """One ``kb.sqlite`` file. Open read-only to serve, writable only while building."""

    def __init__(self, conn: sqlite3.Connection, path: str, writable: bool):
        self.conn = conn
        self.path = path
        self.writable = writable
        self._versions_cache: list[VersionInfo] | None = None
        self.memo: dict[str, Any] = {}  # values derived from the contents (kb.versions.editorial's word counts)
        self._lineage_known = False  # a read-only store with lineage keeps it (LineageTable.has_lineage)

    # -- opening ---------------------------------------------------------------------------
    @classmethod
    def create(cls, path: str) -> Store:
        """Create an empty store at ``path`` (which must not exist)."""
        conn = sqlite3.connect(path)
        schema.create(conn)
        return cls(conn, path, writable=True)

    @classmethod
    def open(cls, path: str, *, write: bool = False) -> Store:
        """Open an existing store; read-only unless ``write`` (which first migrates an older schema)."""
        conn = None
        try:
            if write:
                conn = sqlite3.connect(path)
            else:
                conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            found = schema.version_of(conn)
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
            raise StoreError(f"{path}: not a rulekb store ({exc})") from None
        try:
            schema.check(conn, path, found, write=write)  # migrates an older store opened for writing
        except BaseException:
            conn.close()
            raise
        return cls(conn, path, writable=write)

    def close(self) -> None:
        self.conn.close()

    def commit(self) -> None:
        self.conn.commit()

    def backup(self, dest: str | Path) -> None:
        """Write a consistent copy of this store to the file ``dest``."""
        target = sqlite3.connect(dest)
        try:
            with target:
                self.conn.backup(target)
        finally:
            target.close()

    def has_table(self, name: str) -> bool:
        """True when the store has table ``name``."""
        q = "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?"
        return self.conn.execute(q, (name,)).fetchone() is not None

    # -- meta values -----------------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (key, value))

    # -- values derived from the contents, shared by the connections to one file ---------------
    def share_memo(self, memo: dict[str, Any]) -> None:
        """Keep derived values in ``memo``, shared with the other read-only connections to the same file."""
        self.memo = memo

    def derived(self, key: str, compute: Callable[[], T]) -> T:
        """The value ``compute()`` derives from the stored contents, computed once per memo."""
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]


def copy_database(src: str | Path, dest: str | Path) -> None:
    """Copy the store file ``src`` to ``dest`` consistently (SQLite's backup API), whatever its schema version."""
    source = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    try:
        target = sqlite3.connect(dest)
        try:
            with target:
                source.backup(target)
        finally:
            target.close()
    finally:
        source.close()
