"""Read デュエル・マスターズ総合ゲームルール: text extracted from the official PDF.

Nothing here depends on one edition's page layout: page furniture is recognised by its kind
(page numbers in any common form, running headers that repeat the document title, form feeds) and
by repetition (a short line that recurs on many pages, digits aside), wherever it falls, even
inside もくじ or in the middle of a paragraph.
"""

from __future__ import annotations

import os
import re
import unicodedata
from datetime import date

from ingest.common import Hints, harvest_terms
from kb import ruleid
from kb.model import Diagnostic, ParsedVersion, ParseResult, RuleNode

NAME = "dm-rules"
PROVENANCE = "official"

_TITLE = re.compile(r"デュエル・マスターズ\s*総合ゲームルール")
_VERSION = re.compile(r"Ver\.?\s*(\d+(?:\.\d+)+)", re.I)
_UPDATED = re.compile(
    r"(?:最終)?(?:更新|改訂|改定)日?\s*[:：]?\s*(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日"
    r"|(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日\s*(?:最終)?(?:更新|改訂|改定)"
)
_CONTENTS = re.compile(r"^\s*(?:も\s*く\s*じ|目\s*次)\s*$")
_ENTRY = re.compile(r"^\s*(\d{1,3})[.．]\s*(.*?)\s*$")
_LEADER = re.compile(r"\s*(?:[.．…‥・·]{2,}\s*|\s{2,})\d{1,3}$")  # "100. 総則 ……… 3": the page number
# 100.1. / 100.1 / 100.2a / 507.2a. / 103.2．/ 200.3C (capital typo) / 701.23 b (stray space)
_CLAUSE = re.compile(
    r"^\s*(?P<rule>\d{3})[.．](?P<num>\d{1,3})"
    r"(?:(?P<sub>[a-z]{1,2}|[A-Z](?=\s))|\s(?P<spaced>[a-z])(?=\s))?"
    r"(?P<dot>[.．])?(?P<text>.*)$"
)
_RULE_HEAD = re.compile(r"^\s*(?P<id>\d{3})[.．](?!\d)\s*(?P<title>.*?)\s*$")
_SECTION_HEAD = re.compile(r"^\s*(?P<id>\d)[.．](?!\d)\s*(?P<title>.*?)\s*$")
_EXAMPLE = re.compile(r"^\s*例\s*[：:]\s*")
_NUMBERED = re.compile(r"^\d{1,3}[.．]")
# Page furniture a PDF extraction may leave: "- 12 -", "－12－", "12 / 80", "P.12", "Page 12",
# "12ページ", "(12)", a bare page number; a running header "デュエル・マスターズ総合ゲームルール …"
# (no sentence in it: a rule may name the document in running text).
_PAGE_ARTIFACT = re.compile(
    r"^\s*(?:[-－―‐ー]\s*\d{1,3}\s*[-－―‐ー]|\d{1,3}\s*[/／]\s*\d{1,3}|(?:p\.?|page)\s*\d{1,3}"
    r"|\d{1,3}\s*(?:ページ|頁)|[(（]\d{1,3}[)）]|\d{1,3})\s*$",
    re.I,
)
_RUNNING_HEAD = re.compile(r"^\s*#*\s*(?:DUEL\s*MASTERS\s*)?デュエル・マスターズ\s*総合ゲームルール[^。]*$", re.I)
_FURNITURE_REPEATS = 3  # a short line met this often (digits aside) is a page header or footer
# Running text that merely wrapped before a cited id: "200.3a の例外です", "603.2e）".
# A sentence never opens with a bare particle, so "の例外" after an id means a citation.
_NOT_A_START = re.compile(r"^\s*(?:[)）」』、。,]|[のをにでとやがはも](?![\u3041-\u309f])|から|まで|参照|より)")
_SENTENCE_END = tuple("。）)」』》】：:")
TITLE_MAX = 30  # characters: a clause's words short enough to be a title (701.30. ＧＲ召喚する)


def sniff(text: str, filename: str) -> float:
    """Score how likely ``text`` is the Duel Masters comprehensive rules."""
    head = text[:3000]
    if _TITLE.search(head):
        return 0.95
    if "デュエル・マスターズ" in head and re.search(r"^\s*\d{3}\.\d+\.", text[:20000], re.M):
        return 0.6
    return 0.1 if "DM_SogoGameRule" in filename else 0.0


def _furniture(lines: list[str], start: int) -> set[int]:
    """Indices of page-furniture lines from ``start`` on (see the module docstring)."""
    out: set[int] = set()
    shapes: dict[str, list[int]] = {}
    for i in range(start, len(lines)):
        s = lines[i].replace("\f", "").strip()
        if not s:
            continue
        if (
            _PAGE_ARTIFACT.match(s)
            or _RUNNING_HEAD.match(s)
            or (_TITLE.search(s) and _VERSION.search(s) and "。" not in s)
        ):
            out.add(i)
        elif len(s) <= 60 and not s.endswith(_SENTENCE_END) and not _NUMBERED.match(s) and not _EXAMPLE.match(s):
            # Numbered lines are headings and clauses ("400. 総則" and "500. 総則" differ only in digits).
            shapes.setdefault(re.sub(r"\d+", "#", s), []).append(i)
    for where in shapes.values():
        if len(where) >= _FURNITURE_REPEATS:
            out.update(where)
    return out


def _width(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def _key(number: str) -> tuple[int, int]:
    """Order contents entries: sections "0"-"9", rules "000"-"999"."""
    v = int(number)
    return (v // 100, v) if len(number) == 3 else (v, -1)


def _join(left: str, right: str, spaced: bool = False) -> str:
    """Join a line the PDF wrapped: no space in Japanese, one between Latin words or inside a card name."""
    left, right = left.rstrip(), right.strip()
    latin = left[-1:].isascii() and left[-1:].isalnum() and right[:1].isascii() and right[:1].isalnum()
    in_name = spaced and left.rfind("《") > left.rfind("》")
    return f"{left} {right}" if latin or in_name else left + right


def _successors(last: str | None) -> set[str]:
    """List the ids that may follow ``last`` directly (to repair misnumbered clauses)."""
    p = ruleid.parse(last) if last else None
    if p is None or p[1] is None:
        return set()
    _, r, num, letters = p
    rule = f"{r:03d}"
    if num is None:
        return {f"{rule}.1"}
    out = {f"{rule}.{num + 1}"}
    if not letters:
        out.add(f"{rule}.{num}a")
    elif len(letters) == 1 and letters in ruleid.SUB_LETTERS[:-1]:
        out.add(f"{rule}.{num}{ruleid.SUB_LETTERS[ruleid.SUB_LETTERS.index(letters) + 1]}")
    if letters == "k":  # DM letters run on through l
        out.add(f"{rule}.{num}l")
    return out


class _Reader:
    """Walk the body lines, turning clause markers into nodes and the rest into their text."""

    def __init__(self, lines: list[str], path: str, furniture: set[int] = frozenset()) -> None:
        # A form feed opens a page; the line it sits on is still text.
        lines = [s.replace("\f", "") for s in lines]
        self.lines = lines
        self.furniture = furniture
        self.path = path
        self.nodes: list[RuleNode] = []
        self.paras: dict[str, list[str]] = {}
        self.diagnostics: list[Diagnostic] = []
        self.seen: set[str] = set()
        self.last: str | None = None  # last accepted id
        self.rule: str | None = None  # current rule heading ("509")
        self.target = "text"  # where continuation lines go: "text" | "example"
        self.pending_title: RuleNode | None = None
        self.last_line = 0  # 1-based number of the last line of rules text read
        self.widths = [_width(s.rstrip()) if i not in furniture else 0 for i, s in enumerate(lines)]
        # Some extractions end every paragraph, never a wrapped line, in a blank (Ver.1.48 does);
        # only then does a line without one tell a wrap.
        filled = [s for s in lines if s.strip()]
        self.blank_marks = sum(1 for s in filled if s != s.rstrip()) >= 0.2 * max(1, len(filled))

    def warn(self, line: int, message: str) -> None:
        self.diagnostics.append(Diagnostic(self.path, line, message, "warning"))

    def full_width(self, i: int) -> int:
        """Measure a full line near line index ``i`` (columns narrow in places)."""
        return max(self.widths[max(0, i - 4) : i + 5])

    def wrapped(self, j: int, prev_was_marker: bool) -> bool:
        """Tell whether line ``j`` (the previous non-blank one) was broken by the PDF mid paragraph."""
        prev = self.lines[j] if j >= 0 else ""
        body = prev.rstrip()
        if not body:
            return False
        if prev == body and self.blank_marks:  # no trailing blank after a wrapped line
            return True
        if body.endswith(_SENTENCE_END):
            return False
        # A PDF line may also break at a space ("《蒼き王道 ドギラゴン超》"): a nearly full line
        # continues, unless it is a clause's short title line ("101.4. …から行う").
        return self.widths[j] >= (0.95 if prev_was_marker else 0.75) * self.full_width(j)

    def spaced(self, j: int) -> bool:
        """Tell whether line ``j`` ended in a blank (a real space, when inside a card name)."""
        return self.lines[j] != self.lines[j].rstrip()

    def add(self, node: RuleNode, first: str) -> None:
        self.nodes.append(node)
        self.seen.add(node.rule)
        self.last = node.rule
        self.paras[node.rule] = [first] if first else []
        self.target = "text"

    def clause_id(self, m: re.Match, line: int) -> str | None:
        """Return the id a clause marker stands for, or None if the line is running text."""
        sub = m.group("sub") or m.group("spaced") or ""
        text = m.group("text")
        if not m.group("dot") and text and not (text[0].isspace() or (sub and text[0] in "「『《（(【")):
            return None
        if _NOT_A_START.match(text):
            return None
        raw = f"{m.group('rule')}.{m.group('num')}{sub}"
        rid = raw.lower()
        if m.group("spaced") or sub.isupper():
            written = m.string[m.start("rule") : m.start("dot") if m.group("dot") else m.start("text")]
            self.warn(line, f"clause id written {written!r}; read as {rid}")
        if self.rule is not None and m.group("rule") != self.rule:
            fixed = self.rule + rid[3:]
            if fixed not in self.seen and fixed in _successors(self.last):
                self.warn(line, f"clause numbered {rid} under rule {self.rule}; read as {fixed}")
                return fixed
            if ruleid.sort_key(rid) <= ruleid.sort_key(self.last or "0") or rid in self.seen:
                self.warn(line, f"line starts like clause {rid} but is out of sequence after {self.last}; kept as text")
                return None
            return rid
        if rid in self.seen or (self.last and ruleid.sort_key(rid) <= ruleid.sort_key(self.last)):
            self.warn(line, f"line starts like clause {rid} but is out of sequence after {self.last}; kept as text")
            return None
        return rid

    def heading(self, m: re.Match) -> str | None:
        """Return the id of a section or rule heading, or None if it does not move forward."""
        hid = m.group("id")
        if self.last is not None and ruleid.sort_key(hid) <= ruleid.sort_key(self.last):
            return None
        return hid

    def read(self, start: int) -> None:
        prev_was_marker = False
        j = -1  # previous non-blank line: a page break may leave a blank line inside a paragraph
        for i in range(start, len(self.lines)):
            raw, line = self.lines[i], i + 1
            if not raw.strip() or i in self.furniture:
                continue
            is_marker = self.take(raw, line, j, prev_was_marker)
            j, prev_was_marker = i, is_marker
            self.last_line = line

    def take(self, raw: str, line: int, j: int, prev_was_marker: bool) -> bool:
        """Handle one non-blank line; True if it opened a node (or completed a heading)."""
        if self.pending_title is not None:
            self.pending_title.title = raw.strip()
            self.pending_title = None
            return True
        if self.marker(raw, line):
            return True
        if not self.nodes:
            self.warn(line, "text before the first rule; skipped")
            return False
        node = self.nodes[-1]
        ex = _EXAMPLE.match(raw)
        if ex:
            node.examples.append(raw[ex.end() :].strip())
            self.target = "example"
        elif self.target == "example":
            last = node.examples[-1]
            wrap = self.wrapped(j, False)
            node.examples[-1] = _join(last, raw, self.spaced(j)) if wrap else last + "\n" + raw.strip()
        else:
            paras = self.paras[node.rule]
            if paras and self.wrapped(j, prev_was_marker):
                paras[-1] = _join(paras[-1], raw, self.spaced(j))
            else:
                paras.append(raw.strip())
        return False

    def marker(self, raw: str, line: int) -> bool:
        """Start a node if ``raw`` opens a clause or heading; True if it did."""
        m = _CLAUSE.match(raw)
        if m:
            rid = self.clause_id(m, line)
            if rid is None:
                return False
            self.add(RuleNode(rule=rid, line=line), m.group("text").strip())
            return True
        m = _RULE_HEAD.match(raw)
        if m and self.heading(m):
            node = RuleNode(rule=m.group("id"), title=m.group("title"), line=line)
            self.add(node, "")
            self.rule = node.rule
            if not node.title:  # "818." with its title on the next line
                self.pending_title = node
            return True
        m = _SECTION_HEAD.match(raw)
        if m and m.group("title") and self.heading(m):
            self.add(RuleNode(rule=m.group("id"), title=m.group("title"), line=line), "")
            self.rule = None
            return True
        return False

    def finish(self) -> None:
        ids = {node.rule for node in self.nodes}
        for node in self.nodes:
            paras = self.paras[node.rule]
            if _titles(node, paras, ids):
                node.title = paras[0]
            else:
                node.text = "\n".join(paras)


def _titles(node: RuleNode, paras: list[str], ids: set[str]) -> bool:
    """True when a numbered clause's words are the title of the lettered clauses below it, as a Magic keyword
    action's heading is ("701.22. 龍解する" over "701.22a 龍解するとは、…"): one short line, not a sentence."""
    return (
        not node.title
        and "." in node.rule
        and node.rule[-1].isdigit()
        and f"{node.rule}a" in ids
        and len(paras) == 1
        and len(paras[0]) <= TITLE_MAX
        and not paras[0].endswith(_SENTENCE_END + (".", "．"))
        and "。" not in paras[0]
        and not node.examples
    )


def _contents(lines: list[str], start: int, furniture: set[int]) -> tuple[list[list[str]], int]:
    """Read the もくじ list from ``start``; return (entries, index of the first body line)."""
    entries: list[list[str]] = []
    i = start
    pending = False
    while i < len(lines):
        raw = lines[i].replace("\f", "")
        if not raw.strip() or i in furniture:  # the list runs over pages
            i += 1
            continue
        if pending:
            entries[-1][1] = _LEADER.sub("", raw.strip())
            pending = False
            i += 1
            continue
        m = _ENTRY.match(raw)
        if not m or (entries and _key(m.group(1)) <= _key(entries[-1][0])):
            break
        entries.append([m.group(1), _LEADER.sub("", m.group(2))])
        pending = not m.group(2)
        i += 1
    return entries, i


def _check_ending(version: ParsedVersion, reader: _Reader, contents: list[list[str]], path: str, diags: list) -> None:
    """Mark a text that stops before its contents list does, or in mid-sentence, as truncated."""
    last = reader.nodes[-1]
    why = ""
    if contents[-1][0] not in reader.seen:
        why = f"the contents list up to {contents[-1][0]} but the rules stop at {last.rule}"
    elif not reader.lines[reader.last_line - 1].rstrip().endswith(_SENTENCE_END):
        why = f"it stops in mid-sentence in {last.rule}"
        last.truncated = True
    if why:
        version.truncated_at, version.truncated_why = reader.last_line, why
        diags.append(
            Diagnostic(path, reader.last_line, f"the text ends early ({why}); kept as a partial text", "warning")
        )


def parse(text: str, hints: Hints) -> ParseResult:
    """Parse the DM rules: header (version, date), contents, then numbered rules."""
    result = ParseResult(format=NAME, kind="cr")
    lines = text.split("\n")
    start = next((i for i, s in enumerate(lines) if _CONTENTS.match(s)), None)
    header = "\n".join(lines[: start if start is not None else 40])
    meta: dict = {}
    title = next((s.strip().lstrip("#").strip() for s in lines[:10] if _TITLE.search(s)), "")
    if title:
        meta["title"] = title
    label = ""
    m = _VERSION.search(header) or _VERSION.search(os.path.basename(hints.path))
    if m:
        label = m.group(1)
    else:
        result.diagnostics.append(
            Diagnostic(hints.path, 0, "no 'Ver.N.NN' line: cannot tell the version; give --version")
        )
    effective = None
    m = _UPDATED.search(header)
    if m:
        y, mo, d = (int(g) for g in m.groups() if g is not None)
        effective = date(y, mo, d)
    furniture = _furniture(lines, start if start is not None else 0)
    contents: list[list[str]] = []
    body_start = 0
    if start is not None:
        contents, body_start = _contents(lines, start + 1, furniture)
    if contents:
        meta["contents"] = [tuple(e) for e in contents]
    reader = _Reader(lines, hints.path, furniture)
    reader.read(body_start)
    reader.finish()
    version = ParsedVersion(game="dm", lang="ja", label=label, effective=effective, meta=meta)
    version.nodes = reader.nodes
    for node in reader.nodes:
        version.terms.extend(harvest_terms(node.text, node.rule, node.line))
    # Without the contents list or any clause the file is a fragment of the rules.
    version.partial = not contents or not any(ruleid.is_clause(n.rule) for n in reader.nodes)
    result.diagnostics.extend(reader.diagnostics)
    if reader.nodes and not version.partial:
        _check_ending(version, reader, contents, hints.path, result.diagnostics)
    if reader.nodes:
        result.versions.append(version)
    return result
