"""What the code around a citation is about: the names of its test (with the describe blocks or class holding
it) and of its file, and the identifiers on the cited line and on the declaration a doc comment documents.

``battle_cry_count=1``, ``test_horsemanship.py``, ``SWITCH = 'e'  // Rule 613.1ge`` and
``/// CR 702.74a: …`` above ``Hideaway(u32),`` say which mechanic a citation means even when its own
words do not; identifiers are split into words (``clashLog`` -> clash log, ``SET_TO_VALUE`` -> set to value).
"""

from __future__ import annotations

import re

from kb.links import evidence

# Words of the languages themselves, never of the code's subject.
_SYNTAX_WORDS = """abstract and as assert async await bool boolean break byte case catch char class const continue crate def
    default del do double dyn elif else enum export extends false final finally float fn for from func function if
    impl implements import in instanceof int interface is let long match mod module mut new none not null object
    or override package pass private protected pub public raise readonly record ref return self static str string
    struct super switch test this throw throws trait true try type typeof u32 u64 unsafe use usize val var vec void
    where while with yield Self String None True False Some Ok Err Option Result Vec Box List Map"""
_SYNTAX = frozenset(_SYNTAX_WORDS.split())
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_STRING = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`")
_COMMENT_START = re.compile(r"//|#(?![\[!])|/\*|\"\"\"|'''")
_COMMENT_LINE = re.compile(r"^\s*(?://|#(?![\[!])|/\*|\*|\"\"\"|'''|--)")
_ATTRIBUTE = re.compile(r"^\s*(?:#\[|@\w)")  # Rust attributes and Java/Python annotations sit between
LOOK_AHEAD = 8  # lines below a comment searched for the declaration it documents


def test_parts(test_id: str) -> str:
    """Every part of a test id as words: ``Rule 701.26: Tap and Untap > should untap`` and ``Class#method``."""
    parts = re.split(r"::| > |#", test_id)
    return " ".join(p.rsplit("/", 1)[-1] for p in parts)


def identifiers(code: str) -> list[str]:
    """Identifiers of a piece of code (strings and comments dropped), language keywords left out."""
    code = _STRING.sub(" ", code)
    m = _COMMENT_START.search(code)
    code = code[: m.start()] if m else code
    return [w for w in _IDENT.findall(code) if w not in _SYNTAX]


def nearby_code(lines: list[str], line_no: int) -> str:
    """The identifiers next to a citation: the code of its own line when it has some (``SWITCH = 'e'  // …``),
    else the first code line below its comment (the declaration it documents), else the code line above."""
    if not 1 <= line_no <= len(lines):
        return ""
    if not _COMMENT_LINE.match(lines[line_no - 1]) and (own := identifiers(lines[line_no - 1])):
        return " ".join(own)
    for text in lines[line_no : line_no + LOOK_AHEAD]:
        if text.strip() and not _COMMENT_LINE.match(text) and not _ATTRIBUTE.match(text):
            return " ".join(identifiers(text))
    above = lines[line_no - 2] if line_no >= 2 else ""
    return " ".join(identifiers(above)) if not _COMMENT_LINE.match(above) else ""


def words(text: str) -> set[str]:
    """The stems of names and identifiers (camelCase and snake_case split)."""
    return set(evidence.stems(text))
