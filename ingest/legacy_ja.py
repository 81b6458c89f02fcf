"""Read old private Japanese translations (私訳, e.g. 5.5.0.0): one collapsed line of text."""

from __future__ import annotations

import re

from ingest.common import Hints, LineIndex, harvest_terms
from kb import ruleid
from kb.model import Diagnostic, ParsedVersion, ParseResult, RuleNode

NAME = "legacy-ja"
PROVENANCE = "private-translation"

_TITLE = re.compile(r"^\s*=+\s*(?P<title>.+?)\s*=+")
_LABEL = re.compile(r"第\s*(\d+(?:\.\d+){1,3})\s*版")
_TRANSLATOR = re.compile(r"(\*[^*\s]+\*\s*/\s*.+?)\s*(?:が|まで|氏)")
_URL = re.compile(r"https?://[^\s)）]+")
# Each pattern is linear on any input: a match starts only where a run (of dashes, of blanks) starts,
# and runs are taken whole (possessive), so a long run is never rescanned from each of its positions.
_RULER = re.compile(r"(?<!-)-{4,}+\s*+(?P<name>[^-\s](?:[^-]*[^-\s])?)\s*+-{4,}")
_ENTRY = re.compile(r"(?<!\S)(?P<id>\d{1,3})\.\s++(?P<title>\S++(?:\s++(?!\d{1,3}\.\s)\S++)*+)")
# Clause markers: main rules end with a period ("309.2."), sub-rules do not ("309.2a"); headings "309. " and "3. ".
_MARKER = re.compile(
    r"(?<!\S)(?:(?P<main>\d{3}\.\d{1,3})\.|(?P<sub>\d{3}\.\d{1,3}[a-z]{1,2})|(?P<head>\d{1,3})\.)(?=\s)"
)
# "rule 102.3g 参照", "とrule 419.6f": an id after the word "rule" is a citation.
_CITED = re.compile(r"(?:rules?|ルール)\s*$", re.I)
# A clause never opens with a particle: "410.9 も参照", "103.4 の例外".
_NOT_A_START = re.compile(r"^\s*(?:[)）」』、。,]|[のをにでとやがはも](?![\u3041-\u309f])|参照)")
_PARAGRAPH = re.compile(r"(?<!\s)(?:\s*[\u3000\n]\s*|\s+(?=例[:：]|訳注[:：]))")
_BLANKS = re.compile(r"\s*")
_HEADER_MAX = 4000  # characters: the title, translator and URLs come before the contents
_SENTENCE_END = tuple("。)）」』]")
_GLOSSARY = "用語集"


def sniff(text: str, filename: str) -> float:
    """Score how likely ``text`` is an old collapsed-line private translation."""
    head = text[:2000]
    if "私訳" in head and "総合ルール" in head:
        return 0.95
    if text.count("\n") < 3 and len(text) > 5000 and _RULER.search(head) and re.search(r"\s100\.1\.\s", text):
        return 0.6
    return 0.0


def _contents(text: str) -> tuple[list[tuple[str, str]], int]:
    """Read the もくじ entries and find the offset where the rules begin."""
    rulers = list(_RULER.finditer(text))
    for i, m in enumerate(rulers):
        if m.group("name") == "もくじ":
            end = rulers[i + 1].start() if i + 1 < len(rulers) else len(text)
            entries = [(e.group("id"), e.group("title")) for e in _ENTRY.finditer(text[m.end() : end])]
            body = rulers[i + 1].end() if i + 1 < len(rulers) else m.end()
            return entries, body
    return [], (rulers[-1].end() if rulers else 0)


class _Scanner:
    """Pick the real clause starts out of every id-shaped token, in document order."""

    def __init__(self, text: str, start: int, contents: list[tuple[str, str]], path: str) -> None:
        self.text, self.start, self.path = text, start, path
        self.lines = LineIndex(text)
        self.titles = dict(contents)
        self.marks: list[tuple[str, int, int, str]] = []  # (id, start, end, kind)
        self.diagnostics: list[Diagnostic] = []
        self.rule: str | None = None
        self.last: str | None = None

    def warn(self, offset: int, message: str) -> None:
        line = self.lines.line(offset)
        self.diagnostics.append(Diagnostic(self.path, line, f"{message} (character {offset})", "warning"))

    def scan(self) -> None:
        for m in _MARKER.finditer(self.text, self.start):
            before = self.text[max(0, m.start() - 12) : m.start()]
            if _CITED.search(before) or _NOT_A_START.match(self.text[m.end() : m.end() + 4]):
                continue
            if m.group("head"):
                self.heading(m)
            else:
                self.clause(m, m.group("main") or m.group("sub"))

    def heading(self, m: re.Match) -> None:
        hid = m.group("head")
        if hid == "0":  # はじめに: the unnumbered introduction, kept in meta
            return
        title = self.titles.get(hid)
        if title is not None and not self.text.startswith(title, _BLANKS.match(self.text, m.end()).end()):
            return
        if title is None and (len(hid) != 3 or self.rule is None or int(hid) // 100 != int(self.rule) // 100):
            return  # an unlisted rule heading ("211. [この節は…]") must sit in the current section
        if self.last is not None and ruleid.sort_key(hid) <= ruleid.sort_key(self.last):
            return
        if len(hid) == 3:
            self.rule = hid
        if title is None:
            self.warn(m.start(), f"heading {hid} is not in the table of contents")
        self.accept(hid, m, "heading")

    def clause(self, m: re.Match, rid: str) -> None:
        p = ruleid.parse(rid)
        last = ruleid.parse(self.last) if self.last else None
        if p is None or self.rule is None or p[1] != int(self.rule) or last is None:
            return
        _, rule, num, letters = p
        if letters:  # a sub-rule follows its main rule or an earlier sibling
            ok = last[1] == rule and last[2] == num and ruleid.letter_index(letters) > ruleid.letter_index(last[3])
        else:  # a main rule follows the heading or an earlier main rule (and its subs)
            ok = last[1] == rule and (last[2] is None or last[2] < num)
        if ok:
            self.accept(rid, m, "clause")
        elif self.text[m.start() - 2 : m.start()].strip() in _SENTENCE_END:
            self.warn(
                m.start(), f"{rid} after {self.last} looks like a clause start but is out of sequence; kept as text"
            )

    def accept(self, rid: str, m: re.Match, kind: str) -> None:
        self.marks.append((rid, m.start(), m.end(), kind))
        self.last = rid


def _node(rid: str, kind: str, segment: str, title: str | None, line: int) -> RuleNode:
    """Build a node from its text segment: paragraphs, examples (例:) and notes (訳注:)."""
    node = RuleNode(rule=rid, line=line)
    segment = segment.strip()
    if kind == "heading":
        node.title = title if title is not None else segment
        segment = segment[len(title) :].strip() if title is not None else ""
    paras: list[str] = []
    for para in _PARAGRAPH.split(segment):
        para = para.strip()
        if not para:
            continue
        if re.match(r"例[:：]", para):
            node.examples.append(para[2:].strip())
        elif para.startswith("訳注"):
            node.notes.append(para)
        else:
            paras.append(para)
    node.text = "\n".join(paras)
    return node


def parse(text: str, hints: Hints) -> ParseResult:
    """Parse a collapsed private translation: header, もくじ, then rules in document order."""
    result = ParseResult(format=NAME, kind="cr")
    meta: dict = {}
    title_match = _TITLE.match(text[:_HEADER_MAX])
    if title_match:
        meta["title"] = title_match.group("title")
    label = ""
    m = _LABEL.search(meta.get("title", "") or text[:2000])
    if m:
        label = m.group(1)
    elif not hints.version:
        result.diagnostics.append(
            Diagnostic(hints.path, 1, "no '私訳第 N.N.N.N 版' title: cannot tell the version; give --version")
        )
    contents, body = _contents(text)
    head_end = text.find("-------- もくじ")
    header = text[title_match.end() if title_match else 0 : max(head_end, 0)]
    meta["header"] = header.strip()
    if (t := _TRANSLATOR.search(header[:_HEADER_MAX])) is not None:
        meta["translator"] = t.group(1)
    meta["urls"] = _URL.findall(header)
    if contents:
        meta["contents"] = contents
    scanner = _Scanner(text, body, contents, hints.path)
    scanner.scan()
    result.diagnostics.extend(scanner.diagnostics)
    nodes: list[RuleNode] = []
    offsets: dict[str, int] = {}
    marks = scanner.marks
    intro_end = marks[0][1] if marks else len(text)
    intro = text[body:intro_end].strip()
    if intro.startswith("0. "):
        meta["introduction"] = _node("0", "heading", intro[3:], scanner.titles.get("0"), 1).text
    end_of_rules = len(text)
    for i, (rid, start, end, kind) in enumerate(marks):
        if kind == "heading" and scanner.titles.get(rid) == _GLOSSARY:
            end_of_rules = start
            result.diagnostics.append(
                Diagnostic(hints.path, 1, "the glossary (用語集) is not read by this format", "warning")
            )
            break
        stop = marks[i + 1][1] if i + 1 < len(marks) else len(text)
        title = scanner.titles.get(rid) if kind == "heading" else None
        # The seed is one line; keep the character offset too, so a reader can find the clause.
        nodes.append(_node(rid, kind, text[end:stop], title, scanner.lines.line(start)))
        offsets[rid] = start
    version = ParsedVersion(game="mtg", lang="ja", label=label, effective=None, meta=meta, nodes=nodes)
    version.meta["offsets"] = offsets
    last_line = scanner.lines.line(len(text.rstrip()))
    if nodes and end_of_rules == len(text) and not text.rstrip().endswith(_SENTENCE_END):
        last = nodes[-1]
        last.truncated = True
        version.truncated_at, version.truncated_why = last_line, f"cut off mid-clause in {last.rule}"
        result.diagnostics.append(
            Diagnostic(
                hints.path,
                last_line,
                f"text ends inside {last.rule} (cut off mid-clause); kept as truncated",
                "warning",
            )
        )
    present = {n.rule for n in nodes}
    missing = [rid for rid, title in contents if len(rid) == 3 and rid not in present]
    version.partial = bool(missing) or any(n.truncated for n in nodes)
    if missing:
        meta["missing_from_body"] = missing
        if nodes and not version.truncated_at and ruleid.sort_key(missing[-1]) > ruleid.sort_key(nodes[-1].rule):
            version.truncated_at = last_line
            version.truncated_why = (
                f"the contents list rules up to {missing[-1]} but the text stops at {nodes[-1].rule}"
            )
    for node in nodes:
        version.terms.extend(harvest_terms(node.text, node.rule, node.line))
    if nodes:
        result.versions.append(version)
    return result
