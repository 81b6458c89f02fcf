"""What the store hands out (VersionInfo, NodeRecord), and the one home of the ``nodes JOIN contents`` query."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date

from kb.model import Reference

LABEL_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:\.\d+)?$")

# A node with its text: texts are stored once per distinct content (kb.store.schema), so every read of a
# clause's words goes through this join.
NODES_WITH_CONTENT = "nodes n JOIN contents c ON c.hash = n.hash"
NODE_COLUMNS = "n.version_id, n.rule, n.parent, n.hash, n.position, n.line, n.truncated, c.title, c.text, c.examples, c.notes, c.refs"


def joined(columns: str, where: str = "", *, join: str = "", tail: str = "") -> str:
    """``SELECT columns FROM nodes n JOIN contents c … [join] [WHERE where] [tail]``."""
    sql = f"SELECT {columns} FROM {NODES_WITH_CONTENT}"
    return " ".join(part for part in (sql, join, f"WHERE {where}" if where else "", tail) if part)


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


def node_from_row(row) -> NodeRecord:
    """A NodeRecord from the ``NODE_COLUMNS`` of one row."""
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


def vid_of(version: VersionInfo | int) -> int:
    """A version's row id, given the version or the id."""
    return version if isinstance(version, int) else version.id


def sort_date_for(label: str, effective: date | None) -> str:
    """Order key: a Japanese ``YYYYMMDD.N`` sorts with its English ``YYYYMMDD`` edition."""
    m = LABEL_DATE.match(label)
    if m:
        return f"{m.group(1)}-{m.group(2)}-{m.group(3)}"
    return effective.isoformat() if effective else ""


def dumps(value) -> str:
    """JSON as the store keeps it (non-ASCII kept readable)."""
    return json.dumps(value, ensure_ascii=False)
