"""Ingestors: one module per input format, a registry, and format detection.

Each format module defines ``NAME`` (the ``--format`` value), ``PROVENANCE`` (what kind of text its
versions are, kb.model.PROVENANCES), ``sniff(text, filename) -> float``
(0 = surely not, 1 = surely this format) and ``parse(text, hints) -> ParseResult``. Parsers are
pure: decoded text in, model objects out; they never touch the store.
"""

from __future__ import annotations

import importlib
import os

from ingest.common import Hints, finish
from kb.errors import InputError
from kb.model import ParseResult, is_label
from kb.textio import decode, read_input

# --format name -> module (imported lazily: no work at import time)
FORMATS = {
    "viewer": "ingest.viewer",
    "legacy-ja": "ingest.legacy_ja",
    "cr-en": "ingest.cr_en",
    "cr-ja": "ingest.cr_ja",
    "mtgwiki": "ingest.mtgwiki",
    "pukiwiki": "ingest.pukiwiki",
    "dm-rules": "ingest.dm_comprehensive",
}


def format_module(name: str):
    """The module implementing format ``name``."""
    try:
        return importlib.import_module(FORMATS[name])
    except KeyError:
        raise InputError(f"unknown format {name!r} (known: {', '.join(FORMATS)})") from None


def detect(text: str, filename: str = "") -> tuple[str, float]:
    """Best-matching format for a decoded text, with its confidence."""
    scores = [(format_module(name).sniff(text, filename), name) for name in FORMATS]
    score, name = max(scores)
    return name, score


def parse_text(text: str, hints: Hints) -> ParseResult:
    """Parse decoded text: detect the format unless given, then run that parser and the checks."""
    if hints.version and not is_label(hints.version):
        raise InputError(
            f"bad --version {hints.version!r}: letters, digits, '.', '_' and '-' only (e.g. 20231117.0)",
            path=hints.path,
        )
    fmt = hints.format
    if not fmt:
        fmt, score = detect(text, os.path.basename(hints.path))
        if score <= 0:
            raise InputError("cannot tell the format of this file; give --format", path=hints.path)
    module = format_module(fmt)
    result = module.parse(text, hints)
    for version in result.versions:
        version.meta.setdefault("provenance", module.PROVENANCE)
    return finish(result, hints)


def parse_file(path: str, hints: Hints | None = None) -> ParseResult:
    """Read, decode and parse one file."""
    hints = hints or Hints()
    if not hints.path or hints.path == Hints.path:  # Hints.path defaults to "<input>"
        hints.path = path
    return parse_data(read_input(path, hints.path), hints)


def parse_data(data: bytes, hints: Hints) -> ParseResult:
    """Decode and parse the bytes of one file (``hints.path`` names it in errors)."""
    decoded = decode(data, hints.path)
    hints.encoding = decoded.encoding
    return parse_text(decoded.text, hints)
