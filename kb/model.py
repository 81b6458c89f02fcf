"""The knowledge base's data model: what every ingestor produces and the store keeps."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import date

# Long work reports (done, total, what) as it goes: kb.build.ConsoleProgress draws it on stderr.
Progress = Callable[[int, int, str], None]

# The month names English rules texts date themselves with ("effective as of November 14, 2025").
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)

GAMES = ("mtg", "dm")
LANGS = ("ja", "en")
# What kind of text a version is: the publisher's own text (English MTG rules, the Japanese Duel
# Masters rules), the official Japanese translation, a private translation, a rules viewer's copy,
# or clauses quoted on a wiki page.
PROVENANCES = ("official", "official-translation", "private-translation", "viewer", "wiki-quote")
# A version label is a URL path segment and a file-name-safe word. ``fullmatch``: "$" would accept a
# final newline ("20991231\n"), which then lands in a URL.
LABEL_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
# Kana and CJK ideographs: the characters that make a text Japanese (punctuation and full-width Latin do not).
JAPANESE_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def has_japanese(text: str) -> bool:
    """True when ``text`` holds a kana or a CJK ideograph."""
    return JAPANESE_CHAR.search(text) is not None


def is_label(label: str) -> bool:
    """True for a well-formed version label (``20231117``, ``20231117.0``, ``5.5.0.0``, ``1.48``)."""
    return LABEL_RE.fullmatch(label) is not None


@dataclass
class Reference:
    """A clause id cited inside a text, with the raw span that cited it."""

    rule: str
    raw: str
    start: int = -1  # offset of ``raw`` in the node's text; -1 when not located
    end: int = -1


@dataclass
class RuleNode:
    """One numbered unit of a rules text: section ``5``, rule ``509``, clause ``509.1c``."""

    rule: str
    text: str = ""
    title: str = ""  # headings (sections and rules) carry a title
    examples: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # translator notes (訳注) and the like
    references: list[Reference] = field(default_factory=list)
    parent: str | None = None
    position: int = 0  # document order within its version
    line: int = 0  # 1-based source line where the node starts
    truncated: bool = False  # the source ends inside this node

    def content_hash(self) -> str:
        """Hash what a reader sees: title, text, examples and notes."""
        payload = json.dumps([self.title, self.text, self.examples, self.notes], ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:20]


@dataclass
class Term:
    """A glossary entry or a bilingual pair harvested from running text."""

    term: str
    english: str = ""
    reading: str = ""
    definition: str = ""
    rule: str = ""  # clause id where the pair was found ("" for glossary entries)
    source: str = "glossary"  # "glossary" | "inline" | "article"
    line: int = 0


@dataclass
class Section:
    """A headed part of a wiki article."""

    title: str
    level: int
    text: str
    anchor: str = ""


@dataclass
class Article:
    """A wiki page: its sections, links and the clauses it cites."""

    title: str
    game: str
    lang: str = "ja"
    text: str = ""  # plain text of the current page (no markup, no commented-out text)
    sections: list[Section] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    cites: list[str] = field(default_factory=list)  # clause ids the page cites or quotes
    cites_version: str = ""  # version label of a quoted rules text
    revision: str = ""  # page revision date (ISO) when known
    extra: dict = field(default_factory=dict)  # format-specific: cards, history notes, old text, footnotes


@dataclass
class ParsedVersion:
    """One version of one game's rules in one language, as read from one document.

    ``partial``: the document holds only part of the version (a quote, one page, a piece of a text).
    ``truncated_at``: the 1-based line where the document was found to end early (inside the rules or
    the glossary), 0 when it is whole as far as its format can tell. Each parser sets it for its own
    format; ``ingest.common.finish`` then marks the version partial, and the store refuses to let a
    truncated text, or one with fewer clauses, replace a whole stored text unless asked to.
    """

    game: str
    lang: str
    label: str
    effective: date | None = None
    partial: bool = False
    nodes: list[RuleNode] = field(default_factory=list)
    terms: list[Term] = field(default_factory=list)
    meta: dict = field(default_factory=dict)  # title, translator, ...
    truncated_at: int = 0
    truncated_why: str = ""  # what shows it ("no Glossary heading", "rules 411-609 missing", ...)


@dataclass
class Diagnostic:
    """A problem found in an input file; ``level`` is "error" or "warning"."""

    path: str
    line: int
    message: str
    level: str = "error"

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.level}: {self.message}"


@dataclass
class ParseResult:
    """Everything one ingestor read from one document."""

    format: str
    kind: str  # "cr" | "quote" | "article"
    versions: list[ParsedVersion] = field(default_factory=list)
    articles: list[Article] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.level == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.level == "warning"]


@dataclass
class Citation:
    """A place in an engine's source or test tree that cites a clause."""

    file: str
    line: int
    rule: str
    raw: str
    test: str = ""  # enclosing test id; "" for code links
    kind: str = "test"  # "test" | "code"


def to_jsonable(obj):
    """Turn model dataclasses (and dates) into plain JSON values."""
    if isinstance(obj, date):
        return obj.isoformat()
    if hasattr(obj, "__dataclass_fields__"):
        return {k: to_jsonable(v) for k, v in asdict(obj).items()}
    if isinstance(obj, dict):
        return {k: to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    return obj


def default_workers() -> int:
    """One worker process per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)
