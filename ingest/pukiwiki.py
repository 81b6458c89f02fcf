"""Duel Masters wiki pages in PukiWiki source (seed 001).

What is read: ``#author("2021-09-11T…")`` (the page revision), ``*heading [#id]`` (``*`` is the page
title, ``**``/``***`` sections), ``[[page]]``/``[[alias>page]]`` links, ``((footnotes))`` (moved to
``extra["footnotes"]``, marked ``*1`` in the text), ``+``/``-`` lists (ordered/bulleted, nested by
repeating the mark), plain lines directly under a list item (they continue it, as PukiWiki renders
them), ``|…|`` tables (cell formats such as ``BGCOLOR(pink):``, ``>`` and ``~`` spans dropped) and
``//`` comment lines. A run of comment lines is the page's older text, kept out of the article text
in ``extra["old_text"]``; its lines written ``// note`` (a space after the slashes) are the editor's
note about it, whereas commented-out markup starts right after ``//``.
"""

from __future__ import annotations

import html
import os
import re

from ingest.common import Hints, find_references, harvest_terms
from kb import ruleid
from kb.model import Article, Diagnostic, ParseResult, Section

NAME = "pukiwiki"
PROVENANCE = "wiki-quote"

_AUTHOR = re.compile(r'^#author\("([^"]*)"')
_HEADING = re.compile(r"^(\*{1,3})\s*(.*?)\s*(?:\[#([\w\-]+)\])?\s*$")
_LIST = re.compile(r"^(-{1,3}|\+{1,3})(?!-)\s*(.*)$")
_TABLE = re.compile(r"^\|(.*)\|([hfcHFC]?)\s*$")
# Inline patterns stay linear: each is applied only up to its closer's last occurrence (an opener
# that never closes is not rescanned to the end of the line from every later opener), and plugin
# arguments are bounded.
_FOOTNOTE = re.compile(r"\(\((.+?)\)\)")
_LINK = re.compile(r"\[\[(?!\[)([^\]]+)\]\]")
_CELL_FORMAT = re.compile(r"^(?:(?:BG)?COLOR\([^)]*\)|SIZE\(\d+\)|LEFT|CENTER|RIGHT|TOP|MIDDLE|BOTTOM|BOLD)\s*:")
_PLUGIN_TOKEN = re.compile(r"&\w+(?:\([^)]{0,200}\))?\{|\};")  # an inline plugin's opening or its close
_BARE_PLUGIN = re.compile(r"&(?!br;)(?:\w+)\([^)]{0,200}\);")
_EMPHASIS = re.compile(r"'''(.+?)'''|''(.+?)''|%%(.+?)%%")
_DATE = re.compile(r"(\d{4})年(\d{1,2})月(?:(\d{1,2})日)?")
_VERSION = re.compile(r"総合ゲームルール\s*(?:Ver\.?|ver\.?)\s*(\d+\.\d+)")


_HTML = re.compile(r"(?i)<(?:!doctype\s+html|html|head|body)\b")


def sniff(text: str, filename: str = "") -> float:
    """High for PukiWiki source, about 0 for rendered pages, MediaWiki source and rules texts."""
    head = text[:6000]
    if head.lstrip().startswith("#author("):
        return 0.95
    if re.search(r"(?m)^\*{1,3}[^*\n]*\[#[\w\-]+\]\s*$", head):
        return 0.9
    if re.search(r"(?m)^={2,}[^=\n]+={2,}\s*$", head) or "{{" in head:
        return 0.0  # MediaWiki source
    links = len(_LINK.findall(head))
    lists = len(re.findall(r"(?m)^(?:-{1,3}|\+{1,3})(?!-)\S", head))
    return 0.6 if links >= 5 and lists >= 2 else 0.0


def parse(text: str, hints: Hints) -> ParseResult:
    """Read one PukiWiki page into an article."""
    if _HTML.search(text[:2000]):
        # A rendered page would become an article of raw markup; the wiki source is what this reads.
        why = "an HTML page, not PukiWiki source: save the page's source (?cmd=source) instead"
        return ParseResult(format=NAME, kind="article", diagnostics=[Diagnostic(hints.path, 1, why)])
    page = _Page()
    comment: list[tuple[int, str]] = []
    for lineno, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip()
        if line.startswith("//"):
            comment.append((lineno, line))
            continue
        if comment:
            page.old_text(comment)
            comment = []
        page.feed(lineno, line)
    if comment:
        page.old_text(comment)
    return page.result(hints)


class _Page:
    """Accumulates one page: title, sections, rendered text and the side tables."""

    def __init__(self, keep_links: bool = True) -> None:
        self.title = ""
        self.revision = ""
        self.extra: dict = {"footnotes": [], "old_text": [], "tables": [], "terms": []}
        self.links: list[str] = []
        self.keep_links = keep_links
        self.lead: list[str] = []
        self.sections: list[Section] = []
        self.counters = [0, 0, 0]  # ordered-list numbers per level
        self.in_list = False
        self.table: list[list[str]] | None = None
        self.headings = 0
        self.term_pairs: set[tuple[str, str]] = set()
        self.bodies: list[list[str]] = []  # each section's lines (joined once, in ``result``)

    # --- block level ---

    def feed(self, lineno: int, line: str) -> None:
        if not line.strip():
            self._end_blocks()
            return
        if line.startswith("#"):
            if m := _AUTHOR.match(line):
                self.revision = m.group(1)[:10]
                self.extra["revised_at"] = m.group(1)
            self._end_blocks()
            return  # other block plugins (#contents, #freeze, #br) carry no text
        if m := _TABLE.match(line):
            self._table_row(lineno, m.group(1), m.group(2).lower())
            return
        self.table = None
        heading = _HEADING.match(line) if line.startswith("*") else None
        if re.match(r"^-{4,}", line):
            self._end_blocks()  # a horizontal rule
        elif heading:
            self._end_blocks()
            self._heading(lineno, len(heading.group(1)), heading.group(2), heading.group(3) or "")
        elif m := _LIST.match(line):
            level = len(m.group(1))
            ordered = m.group(1)[0] == "+"
            if ordered:
                self.counters[level - 1] += 1
                self.counters[level:] = [0] * (3 - level)
            mark = f"{self.counters[level - 1]}. " if ordered else "・"
            self._emit("  " * (level - 1) + mark + self._inline(lineno, m.group(2)))
            self.in_list = True
        elif m := re.match(r"^:([^|]*)\|(.*)$", line):  # definition list ":term|description"
            self._end_blocks()
            self._emit(f"{self._inline(lineno, m.group(1))}: {self._inline(lineno, m.group(2))}")
        elif self.in_list:
            self._emit("  " + self._inline(lineno, line))  # PukiWiki keeps a plain line inside the item above
        else:
            self._emit(self._inline(lineno, re.sub(r"^(?:[><]+|(?:LEFT|CENTER|RIGHT):)\s*", "", line).strip()))

    def _end_blocks(self) -> None:
        self.in_list = False
        self.counters = [0, 0, 0]
        self.table = None

    def _heading(self, lineno: int, level: int, title: str, anchor: str) -> None:
        title = self._inline(lineno, title)
        self.headings += 1
        if self.headings == 1 and level == 1 and not self.title:
            self.title = title
            return
        self.sections.append(Section(title=title, level=level, text="", anchor=anchor))
        self.bodies.append([])

    def _table_row(self, lineno: int, body: str, kind: str) -> None:
        if kind == "c":
            return  # a format row: column widths and alignment
        cells = []
        for cell in body.split("|"):
            cell = cell.strip()
            if cell in (">", "~"):
                continue  # joined with the cell to the right / above
            while m := _CELL_FORMAT.match(cell):
                cell = cell[m.end() :]
            cell = cell[1:] if cell.startswith("~") else cell  # ~ starts a header cell
            if cleaned := self._inline(lineno, cell).replace("\n", " ").strip():
                cells.append(cleaned)
        if self.table is None:
            self.table = []
            self.extra["tables"].append(self.table)
        if cells:
            self.table.append(cells)
            self._emit(" | ".join(cells))

    def _emit(self, text: str) -> None:
        if not text.strip():
            return
        if self.sections:
            self.bodies[-1].append(text)
        else:
            self.lead.append(text)

    # --- inline ---

    def _inline(self, lineno: int, s: str) -> str:
        """Plain text of a line: footnotes moved out, links resolved, inline markup dropped."""

        def footnote(m: re.Match) -> str:
            notes = self.extra["footnotes"]
            notes.append({"n": len(notes) + 1, "text": self._inline(lineno, m.group(1)), "line": lineno})
            return f"*{len(notes)}"

        for m in _LINK.finditer(s, 0, _closed(s, "]]")):
            self._link(m)  # register links in reading order, footnotes' links where the footnote stands
        s = _sub_closed(_FOOTNOTE, footnote, s, "))")
        s = _sub_closed(_LINK, self._link, s, "]]")
        s = _sub_closed(_EMPHASIS, lambda m: next(g for g in m.groups() if g is not None), s, "''", "%%")
        s = _strip_plugins(s)
        s = _BARE_PLUGIN.sub("", s).replace("&br;", "\n")
        s = re.sub(r"~$", "", s)  # forced line break at the end of a line
        text = html.unescape(s).strip()
        for t in harvest_terms(text, line=lineno):
            if (t.term, t.english) not in self.term_pairs:
                self.term_pairs.add((t.term, t.english))
                self.extra["terms"].append({"term": t.term, "english": t.english, "source": "article", "line": lineno})
        return text

    def _link(self, m: re.Match) -> str:
        body = m.group(1)
        alias, sep, target = body.partition(">")
        if not sep:
            # [[alias:page]] is the older alias form; a URL's "http:" is not one
            alias, sep, target = body.partition(":") if re.match(r"^[^:/]+:(?!//)[^:]+$", body) else (body, "", body)
        target = target.split("#", 1)[0].strip() if not re.match(r"^\w+://", target) else ""
        if target and self.keep_links and target not in self.links:
            self.links.append(target)
        return alias.strip() if sep else body.split("#", 1)[0].strip()

    # --- comments ---

    def old_text(self, lines: list[tuple[int, str]]) -> None:
        """Keep a run of ``//`` lines as older text of the page, with its editor's note."""
        old = _Page(keep_links=False)
        notes = []
        for lineno, line in lines:
            body = line[2:]
            if not body.strip() or body[0].isspace():
                notes.append(body.strip())
            else:
                old.feed(lineno, body)
        note = " ".join(n for n in notes if n)
        entry = {"line": lines[0][0], "text": "\n".join(old.lead), "note": note}
        if m := _DATE.search(note):
            entry["date"] = "-".join(p.zfill(2) for p in m.groups() if p)
        self.extra["old_text"].append(entry)

    # --- result ---

    def result(self, hints: Hints) -> ParseResult:
        title = self.title or _title_from_path(hints.path)
        for section, body in zip(self.sections, self.bodies, strict=True):
            section.text = "\n".join(body)
        text = "\n".join(self.lead + [f"{s.title}\n{s.text}".strip() for s in self.sections])
        # footnotes are where a wiki page usually names the rule it relies on
        cited = "\n".join([text] + [f["text"] for f in self.extra["footnotes"]])
        cites = [r.rule for r in find_references(cited) if ruleid.is_clause(r.rule)]
        version = _VERSION.search(cited)
        article = Article(
            title=title,
            game="dm",
            lang="ja",
            text=text,
            sections=self.sections,
            links=self.links,
            cites=list(dict.fromkeys(cites)),
            cites_version=version.group(1) if version else "",
            revision=self.revision,
            extra=self.extra,
        )
        return ParseResult(format=NAME, kind="article", articles=[article])


def _closed(s: str, *closers: str) -> int:
    """End of the last closer in ``s``: nothing after it can close a span."""
    return max((s.rfind(c) + len(c) if c in s else 0) for c in closers)


def _sub_closed(pattern: re.Pattern, repl, s: str, *closers: str) -> str:
    """``pattern.sub`` over the part of ``s`` that some closer still follows."""
    end = _closed(s, *closers)
    return pattern.sub(repl, s[:end]) + s[end:] if end else s


def _strip_plugins(s: str) -> str:
    """Drop inline plugins' markup (``&color(red){text};`` -> ``text``), nested ones too, in one pass."""
    opened: list[re.Match] = []
    drop: list[tuple[int, int]] = []
    for m in _PLUGIN_TOKEN.finditer(s):
        if m.group() != "};":
            opened.append(m)
        elif opened:
            drop += [opened.pop().span(), m.span()]
    if not drop:
        return s
    drop.sort()
    out, at = [], 0
    for start, end in drop:
        out.append(s[at:start])
        at = end
    out.append(s[at:])
    return "".join(out)


def _title_from_path(path: str) -> str:
    """PukiWiki stores a page as the upper-case hex of its name (``E38396….txt``); else use the stem."""
    stem = os.path.splitext(os.path.basename(path))[0]
    if re.fullmatch(r"(?:[0-9A-F]{2})+", stem):
        raw = bytes.fromhex(stem)
        for enc in ("utf-8", "euc_jp"):
            try:
                return raw.decode(enc)
            except UnicodeDecodeError:
                continue
    return "" if stem.startswith("<") else stem
