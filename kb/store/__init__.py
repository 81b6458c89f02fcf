"""The SQLite store: every SQL statement of the knowledge base lives in this package."""

from kb.store.db import NodeRecord, Store, VersionInfo

__all__ = ["NodeRecord", "Store", "VersionInfo"]
