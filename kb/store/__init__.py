"""The SQLite store: every SQL statement of the knowledge base lives in this package."""

from kb.store.db import Store, copy_database
from kb.store.records import NodeRecord, VersionInfo
from kb.store.schema import SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION", "NodeRecord", "Store", "VersionInfo", "copy_database"]
