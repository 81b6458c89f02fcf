"""The set each English edition came with (``kb/data/edition_sets.csv``), to label updates the way
players name them: 20090708 is "Magic 2010", 20251114 "Avatar: The Last Airbender".

The table is data a person wrote (its header says from what, and how each name was checked against the
KB); an edition it leaves blank has no name, never a guessed one. A translation takes the name of the
edition it renders.
"""

from __future__ import annotations

import csv
import functools
from pathlib import Path

from kb.errors import InputError
from kb.store import VersionInfo
from kb.versions import editions

TABLE = Path(__file__).resolve().parent.parent / "data" / "edition_sets.csv"
COLUMNS = ("edition", "set", "code", "source", "checked", "note")


@functools.cache
def table(path: Path = TABLE) -> dict[str, dict]:
    """Rows by edition label; a malformed row is an InputError naming the file and line."""
    rows: dict[str, dict] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        lines = [(i, line) for i, line in enumerate(fh, 1) if line.strip() and not line.startswith("#")]
    reader = csv.DictReader((line for _, line in lines), strict=True)
    if tuple(reader.fieldnames or ()) != COLUMNS:
        raise InputError(f"expected the columns {','.join(COLUMNS)}", path=str(path), line=lines[0][0] if lines else 1)
    for (line, _), row in zip(lines[1:], reader, strict=True):
        label = row["edition"]
        if not (len(label) == 8 and label.isdigit()) or label in rows or None in row.values():
            raise InputError(f"bad or repeated row for edition {label!r}", path=str(path), line=line)
        if row["set"] and not row["source"]:
            raise InputError(f"edition {label} names a set without a source", path=str(path), line=line)
        rows[label] = row
    return rows


def release(v: VersionInfo) -> dict | None:
    """``{"set", "code", "source"}`` for an English edition (or the edition a translation renders), None
    when the table names no set for it."""
    label = v.label
    if v.lang != "en":
        r = editions.rendering(v)
        label = r.label if r and r.exact else ""
    row = table().get(label)
    if not row or not row["set"]:
        return None
    return {"set": row["set"], "code": row["code"], "source": row["source"], "edition": label}


def name(v: VersionInfo) -> str:
    """The set name of ``v``'s release, or "" when unknown."""
    found = release(v)
    return found["set"] if found else ""
