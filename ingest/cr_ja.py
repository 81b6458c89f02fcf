"""Read the official Japanese MTG Comprehensive Rules (和訳 ``YYYYMMDD.N``), whole or in pieces.

Layout of the whole text (paragraphs often start with U+3000: ignored, except that in the glossary
it tells a definition from an entry)::

    header lines (translator, "2026-01-16 に翻訳")    -> meta header, translator, based_on
    もくじ / 0. はじめに / 1. … / 100. … / 10. 用語集    -> meta contents (not nodes)
    マジック：ザ・ギャザリング　総合ルール             -> meta title
    0. はじめに + paragraphs                           -> meta introduction
    1. ゲームの考え方 / 100. 原則                      -> section "1", rule "100"
    100.1. … / 100.1a …                                -> clauses; 例：… examples, (訳注：…) notes
    702.2. 接死                                        -> clause "702.2" titled 接死 (as cr-en does)
    用語集                                             -> terms 用語（よみ）／English + definitions
    クレジット                                         -> meta credits
    このルールは2026年1月16日から有効です。            -> effective date (the last such line)

A version is complete (``partial=False``) only when the text starts at the top (もくじ read, no
stray lines before the first entry), holds every section and rule もくじ lists, reaches the
glossary with at least one term, and has the effective-date line after the glossary began.
Anything else is a piece of the text and partial.
"""

from __future__ import annotations

import difflib
import os
import re
from datetime import date

from ingest.common import Hints, harvest_terms, title_pair
from kb import ruleid
from kb.model import Diagnostic, ParsedVersion, ParseResult, RuleNode, Term

NAME = "cr-ja"
PROVENANCE = "official-translation"

# "100.1. 本文" / "100.1a 本文"; also a main clause without its period ("100.1 本文") and an id
# run into Japanese text ("100.1.本文", "100.1a本文", "708.12裏向きの…": warned).
_CLAUSE = re.compile(
    r"^(?P<id>[1-9]\d{2}\.\d{1,3})(?:\.[ \u3000]*|(?P<sub>[a-z]{1,2})(?:[ \u3000]+|(?=[^\x00-\x7f]))|[ \u3000]+"
    r"|(?P<glued>(?=[^\x00-\x7f])))"
    r"(?P<text>[^\s\u3000].*)$"
)
# An id alone on its line ("500.10a"): its text is on the next line.
_LONE_ID = re.compile(r"^(?P<id>[1-9]\d{2}\.\d{1,3}(?:[a-z]{1,2})?)\.?$")
# "720. 前兆カード"; also written "720 . 前兆カード" (warned).
_HEADING = re.compile(r"^(?P<id>[1-9]\d{2}|\d{1,2})(?P<gap>[ \u3000]+)?\.[ \u3000]*(?P<title>\S.*?)\s*$")
_GLOSSARY = re.compile(
    r"^(?P<term>[^\s\u3000（）(][^（）]{0,60}?)（(?P<reading>[^（）]{1,80})）[／/](?P<english>.*?)\s*$"
)
_KANA = re.compile(r"^[\u3041-\u30ff・、 ]+$")
_EXAMPLE = re.compile(r"^[\u3000 ]*例[：:]\s*")
_NOTE = re.compile(r"^[\u3000 ]*[（(]?訳注[：:]")
_TRAILING_NOTE = re.compile(r"\s*[（(](訳注[：:][^（）()]*)[）)]\s*$")
_CONTENTS = re.compile(r"^[\u3000 ]*もくじ\s*$")
_GLOSSARY_HEAD = "用語集"
_CREDITS_HEAD = re.compile(r"^[\u3000 ]*(?:クレジット|Credits)[：:]?\s*$", re.I)
_EFFECTIVE = re.compile(r"このルールは\s*(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日から有効")
_TRANSLATED = re.compile(r"(\d{4})-(\d{2})-(\d{2})\s*に翻訳")
_FILE_LABEL = re.compile(r"(?<!\d)(\d{8}\.\d{1,2})(?!\d)")
_BASED_ON = re.compile(r"(\*[^*]+\*\s*/\s*.+?)\s*(?:氏|が|まで)")
_TEAM = re.compile(r"(日本マジックジャッジルール文書翻訳チーム)")
_SENTENCE_END = tuple("。．.：:、，,;；!?！？」』)）")
_SPACE = re.compile(r"[\s\u3000]+")
SAME_TEXT = 0.6  # a repeated id whose text is at least this similar to the first is the same line twice


def sniff(text: str, filename: str) -> float:
    """Score how likely ``text`` is (a piece of) the official Japanese CR."""
    if re.search(r"JP_CR_\d{8}", filename):
        return 0.9
    head, lines = text[:5000], text[:200000].split("\n")
    if "デュエル・マスターズ" in head:
        return 0.0
    if _TEAM.search(head) or _EFFECTIVE.search(text[-2000:]):
        return 0.9
    kana = re.compile(r"[\u3041-\u30ff]")
    clauses = sum(1 for s in lines if (m := _CLAUSE.match(s)) and kana.search(m.group("text")))
    glossary = sum(1 for s in lines if (m := _GLOSSARY.match(s)) and _KANA.match(m.group("reading")))
    if clauses >= 5 or glossary >= 5:
        return 0.7
    return 0.0


def _key(number: str) -> tuple[int, int]:
    """Order contents entries: sections "0"-"10", rules "100"-"999"."""
    v = int(number)
    return (v // 100, v) if v >= 100 else (v, -1)


def _version_label(text: str, path: str, effective: date | None) -> str:
    """Take YYYYMMDD.N from the file name, else the translation date, else the effective date."""
    m = _FILE_LABEL.search(os.path.basename(path))
    if m:
        return m.group(1)
    m = _TRANSLATED.search(text[:5000])
    if m:
        return f"{m.group(1)}{m.group(2)}{m.group(3)}.0"
    return f"{effective:%Y%m%d}.0" if effective else ""


class _Reader:
    """Read line by line through the states header, contents, body, glossary and credits."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.state = "header"
        self.nodes: list[RuleNode] = []
        self.by_id: dict[str, RuleNode] = {}
        self.skip = False  # the line being read repeats one already read: drop it
        self.paras: dict[str, list[str]] = {}
        self.terms: list[Term] = []
        self.contents: list[tuple[str, str]] = []
        self.header: list[str] = []
        self.intro: list[str] = []
        self.credits: list[str] = []
        self.title = ""
        self.diagnostics: list[Diagnostic] = []
        self.orphan = 0  # lines before the first entry: the input starts inside one
        self.saw_contents = self.saw_glossary = False
        self.dated = False  # the effective-date line came after the glossary began
        self.marked = False  # the line being read opened with U+3000 or blanks
        self.plain_entries = False  # a glossary entry came without a paragraph mark
        self.target = "text"

    def warn(self, line: int, message: str) -> None:
        self.diagnostics.append(Diagnostic(self.path, line, message, "warning"))

    def feed(self, raw: str, line: int) -> None:
        # A U+3000 paragraph mark (or indentation) does not change what a line is, except in the
        # glossary, where it marks definitions when the entries go without (see on_glossary).
        s = raw.strip().lstrip("\u3000").strip()
        if s:
            self.marked = s != raw.rstrip()
            self.skip = False
            getattr(self, "on_" + self.state)(s, line)

    def on_header(self, s: str, line: int) -> None:
        if _CONTENTS.match(s):
            self.state, self.saw_contents = "contents", True
        elif self.structure(s, line):
            # No もくじ before the first rule or term: this is a piece cut from a longer text.
            self.orphan, self.header = len(self.header), []
            if self.orphan:
                self.warn(
                    1, f"input starts inside an entry: {self.orphan} line(s) before the first rule or term skipped"
                )
        else:
            self.header.append(s)

    def on_contents(self, s: str, line: int) -> None:
        m = _HEADING.match(s)
        if m and not (self.contents and _key(m.group("id")) <= _key(self.contents[-1][0])):
            self.contents.append((m.group("id"), m.group("title")))
            return
        self.state = "body"
        self.on_body(s, line)

    def structure(self, s: str, line: int) -> bool:
        """Start a clause, heading or glossary entry if ``s`` opens one."""
        m = _LONE_ID.match(s)
        if m:
            rid = m.group("id")
            if not self.forward(rid, line, ""):
                return False
            self.warn(line, f"{rid} stands alone on its line: its text is read from the next line")
            return self.open_clause(rid, line, "")
        m = _CLAUSE.match(s)
        if m:
            return self.add_clause(m, line)
        m = _HEADING.match(s)
        if m and self.add_heading(m.group("id"), m.group("title"), line):
            if m.group("gap"):
                self.warn(line, f"heading {m.group('id')} written with a space before its period")
            return True
        if m:
            return False
        m = _GLOSSARY.match(s)
        # Only a piece may start inside the glossary; in a text read from もくじ or once rules were
        # read, 用語集 opens it (a rule line like "《稲妻（いなずま）／Lightning Bolt》…" must not).
        if m and _KANA.match(m.group("reading")) and not (self.nodes or self.saw_contents or self.marked):
            self.state, self.saw_glossary = "glossary", True
            self.on_glossary(s, line)
            return True
        return False

    def forward(self, rid: str, line: int, text: str) -> bool:
        """Refuse an id that does not move forward (keep the first occurrence).

        The same id again with (nearly) the same text is the line printed twice: it is dropped.
        Anything else out of order stays text of the clause before it.
        """
        if not self.nodes or ruleid.sort_key(rid) > ruleid.sort_key(self.nodes[-1].rule):
            return True
        first = self.by_id.get(rid)
        if first is not None and text and _similar("\n".join(self.paras[rid]), text) >= SAME_TEXT:
            self.warn(line, f"{rid} repeated (first at line {first.line}); the repeat is dropped")
            self.skip = True
        else:
            self.warn(line, f"{rid} after {self.nodes[-1].rule} is out of order; kept as text")
        return False

    def add_clause(self, m: re.Match, line: int) -> bool:
        rid = m.group("id") + (m.group("sub") or "")
        if not self.forward(rid, line, m.group("text")):
            return self.skip
        if m.group("glued") is not None:
            self.warn(line, f"{rid} runs into its text without a period or space")
        return self.open_clause(rid, line, m.group("text"))

    def open_clause(self, rid: str, line: int, text: str) -> bool:
        node = RuleNode(rule=rid, line=line)
        self.nodes.append(node)
        self.by_id[rid] = node
        self.paras[rid] = []
        self.target = "text"
        if text:
            self.add_text(text)
        return True

    def add_heading(self, rid: str, title: str, line: int) -> bool:
        if title == _GLOSSARY_HEAD or title.endswith(_GLOSSARY_HEAD):
            self.state, self.saw_glossary = "glossary", True
            return True
        if rid == "0":  # はじめに: unnumbered introduction, kept in meta
            self.state = "intro"
            return True
        if ruleid.parse(rid) is None or not self.is_heading(rid, title) or not self.forward(rid, line, ""):
            return False
        if self.contents and len(rid) == 3 and rid not in dict(self.contents):
            self.warn(line, f"rule {rid} {title} is not listed in もくじ")
        node = RuleNode(rule=rid, title=title, line=line)
        self.nodes.append(node)
        self.by_id[rid] = node
        self.paras[rid] = []
        self.target = "text"
        return True

    def is_heading(self, rid: str, title: str) -> bool:
        """Tell a heading from a numbered paragraph ("2. マナのタイプの1つ。", a list "7. …" in 613.1).

        A heading is listed in もくじ under this title (or one that holds the other, at least half
        as long: either may be shortened), or it looks like a title and fits where it stands: a
        section heading only without もくじ (a piece) and as the next section; a rule heading
        within the current section (もくじ skips some, e.g. 721).
        """
        listed = _SPACE.sub("", dict(self.contents).get(rid, ""))
        written = _SPACE.sub("", title)
        short, long_ = sorted((listed, written), key=len)
        if short and short in long_ and 2 * len(short) >= len(long_):
            return True
        if "。" in title or len(title) > 40:
            return False
        section = ruleid.parse(self.nodes[-1].rule)[0] if self.nodes else None
        if len(rid) <= 2:
            return not self.contents and (section is None or int(rid) == section + 1)
        return section is None or int(rid) // 100 == section

    def add_text(self, s: str) -> None:
        """Add a paragraph to the current node, moving a trailing (訳注：…) into its notes."""
        node = self.nodes[-1]
        m = _TRAILING_NOTE.search(s)
        if m and m.start() > 0:
            node.notes.append(m.group(1))
            s = s[: m.start()]
        self.paras[node.rule].append(s)

    def on_intro(self, s: str, line: int) -> None:
        if not self.structure(s, line):
            self.intro.append(s)
        elif self.state == "intro":
            self.state = "body"

    def on_body(self, s: str, line: int) -> None:
        if s == _GLOSSARY_HEAD:
            self.state, self.saw_glossary = "glossary", True
            return
        if self.structure(s, line):
            return
        if not self.nodes:
            if "総合ルール" in s and not self.title:
                self.title = s
            elif self.saw_contents:  # after もくじ the text began at the top: a stray line, not a piece
                self.warn(line, "text between もくじ and the first rule that is no heading; skipped")
            else:
                self.orphan += 1
            return
        node = self.nodes[-1]
        ex = _EXAMPLE.match(s)
        if ex:
            node.examples.append(s[ex.end() :].strip())
            self.target = "example"
        elif _NOTE.match(s):
            node.notes.append(s.strip("\u3000 （）()"))
        elif self.target == "example":
            node.examples[-1] += "\n" + s
        else:
            self.add_text(s)

    def on_glossary(self, s: str, line: int) -> None:
        # The official text marks definitions with U+3000 and never its entries: once an entry came
        # unmarked, a marked line is a definition even if it reads "X（よみ）／Y 参照。".
        m = None if self.marked and self.plain_entries else _GLOSSARY.match(s)
        if m:
            self.plain_entries = self.plain_entries or not self.marked
            self.terms.append(
                Term(term=m.group("term").strip(), reading=m.group("reading"), english=m.group("english"), line=line)
            )
        elif _CREDITS_HEAD.match(s):
            self.state = "credits"
        elif _EFFECTIVE.search(s):  # no クレジット heading: the date line still ends the glossary
            self.state, self.dated = "credits", True
        elif self.terms:
            term = self.terms[-1]
            term.definition = f"{term.definition}\n{s}" if term.definition else s
        else:
            self.orphan += 1
            self.warn(line, "glossary text before the first term (input starts inside an entry); skipped")

    def on_credits(self, s: str, line: int) -> None:
        if _EFFECTIVE.search(s):
            self.dated = True
        else:
            self.credits.append(s)


def _similar(a: str, b: str) -> float:
    """How alike two texts are (0..1), ignoring spacing."""
    return difflib.SequenceMatcher(None, _SPACE.sub("", a), _SPACE.sub("", b), autojunk=False).ratio()


def _title_from_text(node: RuleNode) -> None:
    """Title a clause that is only a name ("702.2. 接死", "702.163. ミラディンのために！／For Mirrodin!"):
    it heads its sub-clauses, as cr-en does."""
    text = node.text
    if not (ruleid.is_clause(node.rule) and not node.rule[-1].isalpha() and text and not node.examples):
        return
    if text.startswith(node.rule + "."):  # "702.189. 702.189. 火の技／Firebending": the id printed twice
        text = text[len(node.rule) + 1 :].lstrip(" \u3000")
    named = title_pair(text) is not None  # a 日本語／English name, however long or exclaimed
    short = len(text) <= 40 and "。" not in text and not text.endswith(_SENTENCE_END)
    if "\n" not in text and (named or short):
        node.title, node.text = text, ""


def parse(text: str, hints: Hints) -> ParseResult:
    """Parse the Japanese CR: header, もくじ, rules, 用語集, credits and the effective-date line."""
    result = ParseResult(format=NAME, kind="cr")
    reader = _Reader(hints.path)
    lines = text.split("\n")
    for i, raw in enumerate(lines):
        reader.feed(raw, i + 1)
    for node in reader.nodes:
        node.text = "\n".join(reader.paras[node.rule])
        _title_from_text(node)
    effective = None
    dates = list(_EFFECTIVE.finditer(text))
    if dates:  # the last such line is the one that counts
        y, mo, d = (int(g) for g in dates[-1].groups())
        effective = date(y, mo, d)
    label = _version_label(text, hints.path, effective)
    if not label and not hints.version:
        result.diagnostics.append(
            Diagnostic(hints.path, 0, "cannot tell the version (no YYYYMMDD.N in the name, no date); give --version")
        )
    header = "\n".join(reader.header)
    meta: dict = {}
    if reader.contents:  # a piece without もくじ must not blank the list another piece gave the store
        meta["contents"] = reader.contents
    for key, value in (("title", reader.title), ("header", header), ("introduction", "\n".join(reader.intro))):
        if value:
            meta[key] = value
    if reader.credits:
        meta["credits"] = reader.credits
    if (t := _TEAM.search(header)) is not None:
        meta["translator"] = t.group(1)
    if (b := _BASED_ON.search(header)) is not None:
        meta["based_on"] = b.group(1)
    # もくじ lists はじめに (0) and 用語集 (10), which are not headings of the rules.
    listed = {rid for rid, title in reader.contents if rid != "0" and not title.endswith(_GLOSSARY_HEAD)}
    headings = {n.rule for n in reader.nodes}
    complete = (
        reader.saw_contents
        and not reader.orphan
        and listed <= headings
        and reader.saw_glossary
        and bool(reader.terms)
        and reader.dated
    )
    version = ParsedVersion(game="mtg", lang="ja", label=label, effective=effective, partial=not complete, meta=meta)
    if not complete and reader.saw_contents and not reader.orphan:
        # It starts at the top (もくじ) but stops before its end: cut off, not a piece of a longer text.
        missing = sorted(listed - headings, key=_key)
        version.truncated_at = next((i + 1 for i in range(len(lines) - 1, -1, -1) if lines[i].strip()), 1)
        version.truncated_why = (
            f"もくじ lists {missing[0]} but the text never reaches it"
            if missing
            else "no 用語集 (glossary)"
            if not reader.saw_glossary or not reader.terms
            else "no effective-date line (このルールは…から有効です) after the glossary"
        )
    version.nodes = reader.nodes
    version.terms = list(reader.terms)
    for node in reader.nodes:
        if (pair := title_pair(node.title, node.rule, node.line)) is not None:
            version.terms.append(pair)
        version.terms.extend(harvest_terms(node.text, node.rule, node.line))
    result.diagnostics.extend(reader.diagnostics)
    if reader.nodes or reader.terms or reader.contents:
        result.versions.append(version)
    return result
