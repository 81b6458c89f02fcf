"""The official English Comprehensive Rules text (``MagicCompRules*.txt``), every edition since 1999.

Layout of an edition (decoded to LF text)::

    Magic: The Gathering Comprehensive Rules
    These rules are effective as of June 7, 2024.      ("current as of" until 2009-05)
    Introduction / Contents                             (headings repeated: not nodes)
    1. Game Concepts                                    -> section "1"
    100. General                                        -> rule "100"
    100.1. These Magic rules apply ...                  -> clause "100.1"
    100.1a A two-player game is ...                     -> clause "100.1a"
    Example: ...                                        -> example of the open clause
    Glossary                                            -> terms, up to "Credits" (or "Index"): ingest.glossary_en
    Credits                                             -> ignored

Editions up to 2004 are hard-wrapped: continuation lines are joined into the clause, and a wrapped
line that happens to start with a clause id ("See rule\\n103.4.") is not a clause. Real typos in ids
(duplicates, a wrong rule number, a missing clause number) are repaired by general rules, each with
a warning; see ``_Numberer``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache

from ingest.common import Hints
from ingest.glossary_en import EXAMPLE, RULE_LINE, Lines, indent, read_glossary
from kb import ruleid
from kb.model import JAPANESE_CHAR, MONTHS, Diagnostic, ParsedVersion, ParseResult, RuleNode

NAME = "cr-en"
PROVENANCE = "official"
TITLE = "Magic: The Gathering Comprehensive Rules"

# "509.1c Text", "100.1. Text", "102.8 Text", "305.3.After" (no space), "606. 8b Text" (stray space),
# "306.b Text" (clause number missing)
_CLAUSE = re.compile(
    r"^(?P<indent>\s*)(?P<rule>[1-9]\d{2})\."
    r"(?:(?P<num>\d{1,3})(?P<sub>[a-z]{0,2})|\s(?P<snum>\d{1,3})(?P<ssub>[a-z]{1,2})|(?P<bare>[a-z]{1,2}))"
    r"\.?(?:\s+|(?=[A-Z\"“])|$)(?P<text>.*)$"
)
_SECTION = re.compile(r"^\s*(?P<id>[1-9])\.\s+(?P<title>[^\d\s].*?)\s*$")
_RULE = re.compile(r"^\s*(?P<id>[1-9]\d{2})\.\s+(?P<title>\S.*?)\s*$")
_FIRST_CLAUSE = re.compile(r"^\s*100\.1(?![\w]|\.\d)")
_EFFECTIVE = re.compile(
    r"(?:current|effective)\s+as\s+of\s+(?P<month>[A-Z][a-z]+)\.?\s*(?P<day>\d{1,2})\s*,?\s*(?P<year>\d{4})"
)
_FILE_DATE = re.compile(r"(?<!\d)(\d{4})[-_ .]?(\d{2})[-_ .]?(\d{2})(?!\d)")
_SENTENCE_END = tuple(".:;!?)]\"”’'")
_SNIFF_CLAUSE = re.compile(r"^\s*[1-9]\d{2}\.\d{1,3}[a-z]{0,2}\.? +[A-Z\"“]", re.M)
_MONTHS = {m: i for i, m in enumerate(MONTHS, 1)}


def sniff(text: str, filename: str = "") -> float:
    """High for an English Comprehensive Rules text; 0 for Japanese text or text without clauses."""
    head = text[:30000]
    if len(JAPANESE_CHAR.findall(head)) > 0.02 * max(1, len(head)):
        return 0.0
    clauses = len(_SNIFF_CLAUSE.findall(text[:300000]))
    if clauses < 3:
        return 0.0
    score = 0.6
    if "comprehensive rules" in head.lower():
        score = 0.9
    if re.search(r"comp(?:rehensive)?[ _-]?rules", os.path.basename(filename), re.I):
        score += 0.05
    return min(score, 0.95)


def parse(text: str, hints: Hints) -> ParseResult:
    """Parse one English edition into a version with sections, rules, clauses and glossary terms."""
    result = ParseResult(format=NAME, kind="cr")
    path = hints.path
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if _FIRST_CLAUSE.match(line)), None)
    if first is None:
        result.diagnostics.append(
            Diagnostic(path, 0, "no clauses found (no rule 100.1): not an English Comprehensive Rules text?")
        )
        return result
    sample = "\n".join(lines[first : first + 200])
    if len(JAPANESE_CHAR.findall(sample)) > 0.05 * len(sample):
        result.diagnostics.append(
            Diagnostic(path, first + 1, "no clauses found: the rules are in Japanese, not English (try --format cr-ja)")
        )
        return result
    start = _body_start(lines, first)
    gloss = _find_line(lines, first, ("glossary",))
    body_end = gloss if gloss is not None else len(lines)
    credits = _find_line(lines, body_end + 1, ("credits", "index")) if gloss is not None else None
    gloss_end = credits if credits is not None else len(lines)

    body = lines[start:body_end]
    wrapped = _is_wrapped(body)
    items = _read_body(body, start, wrapped)
    nodes, diags = _Numberer(path).number(items)
    for node in nodes:
        _title_from_text(node)
    result.diagnostics.extend(diags)
    end = _last_line(lines)
    truncated = ""
    if gloss is None:
        truncated = "no Glossary heading: it ends inside the rules"
        if nodes:
            nodes[-1].truncated = True
    elif credits is None:
        truncated = "no Credits heading: it ends inside the glossary"
    if truncated:
        result.diagnostics.append(Diagnostic(path, end, f"{truncated}; kept as a partial text", "warning"))
    terms, aliases, obsolete = (
        read_glossary(lines[gloss + 1 : gloss_end], gloss + 1, wrapped) if gloss is not None else ([], {}, [])
    )

    effective, eff_line, eff_raw = _effective_date(lines)
    file_date = _file_date(hints.path)
    dated = file_date or effective
    label = hints.version or (dated.strftime("%Y%m%d") if dated else "undated")
    if not (hints.version or file_date or effective):
        result.diagnostics.append(Diagnostic(path, 0, "no edition date in the file name or the text; give --version"))
    if effective is None:
        result.diagnostics.append(Diagnostic(path, 0, "no 'These rules are effective as of …' line", "warning"))
    meta = {
        "title": TITLE,
        "file_date": file_date.isoformat() if file_date else None,
        "effective_line": eff_raw,
        "effective_line_no": eff_line,
        "wrapped": wrapped,
        "body_lines": [start + 1, body_end],
        "glossary_line": gloss + 1 if gloss is not None else None,
        "credits_line": credits + 1 if credits is not None else None,
        "aliases": aliases,
        "obsolete_terms": obsolete,
    }
    result.versions.append(
        ParsedVersion(
            game="mtg",
            lang="en",
            label=label,
            effective=effective,
            nodes=nodes,
            terms=terms,
            meta=meta,
            truncated_at=end if truncated else 0,
            truncated_why=truncated,
        )
    )
    return result


def _last_line(lines: list[str]) -> int:
    """1-based number of the last line with text (where a cut-off text stops)."""
    return next((i + 1 for i in range(len(lines) - 1, -1, -1) if lines[i].strip()), 1)


# --- locating the parts -------------------------------------------------------------------------


def _body_start(lines: list[str], first: int) -> int:
    """Back up from the first 100.1 over the section and rule headings that open the rules."""
    start = first
    i = first - 1
    while i >= 0:
        s = lines[i].strip()
        if not s or RULE_LINE.match(s):
            i -= 1
            continue
        if _SECTION.match(s) or _RULE.match(s):
            start = i
            i -= 1
            continue
        break
    return start


def _find_line(lines: list[str], begin: int, names: tuple[str, ...]) -> int | None:
    """Index of the first line from ``begin`` that is exactly one of the headings ``names``."""
    longest = max(map(len, names)) + 40  # a heading line holds little but its name
    for i in range(begin, len(lines)):
        if len(lines[i]) < longest and lines[i].strip().lower() in names:
            return i
    return None


def _is_wrapped(body: list[str]) -> bool:
    """Hard-wrapped editions run a clause on at an indentation no deeper than its first line."""
    clauses = wraps = 0
    for i, line in enumerate(body[:-1]):
        m = _CLAUSE.match(line) if line.lstrip()[:1].isdigit() else None
        if not m:
            continue
        clauses += 1
        nxt = body[i + 1]
        if nxt.strip() and not _CLAUSE.match(nxt) and not EXAMPLE.match(nxt) and indent(nxt) <= len(m.group("indent")):
            wraps += 1
    return clauses > 0 and wraps >= 0.05 * clauses


def _effective_date(lines: list[str]) -> tuple[date | None, int, str]:
    """The first "current/effective as of <Month D, YYYY>" date, its 1-based line and raw text."""
    for i, line in enumerate(lines):
        m = _EFFECTIVE.search(line)
        if not m:
            continue
        month = _MONTHS.get(m.group("month").lower())
        try:
            return date(int(m.group("year")), month or 0, int(m.group("day"))), i + 1, line.strip()
        except ValueError:
            continue
    return None, 0, ""


def _file_date(path: str) -> date | None:
    """The edition date carried by the file name (``MagicCompRules 20240802.txt``), if any."""
    for m in _FILE_DATE.finditer(os.path.basename(path or "")):
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            continue
    return None


# --- the rules ----------------------------------------------------------------------------------


@dataclass
class _Item:
    """A heading or clause as written, before its id is checked: ``raw`` = (rule, num|None, letters)."""

    kind: str  # "section" | "rule" | "clause"
    raw: tuple[int, int | None, str]
    line: int
    node: RuleNode
    spelled: str = ""
    indent: int = 0
    text: Lines = field(default_factory=Lines)  # the node's text and examples, built line by line
    examples: list[Lines] = field(default_factory=list)


def _runs_on(line: str, text: str) -> bool:
    """A wrapped line of running text that stops mid-sentence ("… See rule") continues on the next line.

    ``text`` is the line's prose (after a clause id); headings and short name-only clauses
    ("214.6. Artifacts") end without punctuation but do not run on.
    """
    s = line.strip()
    return len(text) > 60 and not s.endswith(_SENTENCE_END)


def _read_body(body: list[str], offset: int, wrapped: bool) -> list[_Item]:
    """Split the rules part into headings and clauses with their text and examples."""
    items: list[_Item] = []
    cur: _Item | None = None
    in_example = False
    after_blank = True
    runs_on = False  # the previous line stopped mid-sentence in a hard-wrapped edition
    for k, line in enumerate(body):
        lineno = offset + k + 1
        s = line.strip()
        if not s or RULE_LINE.match(s):
            after_blank, runs_on = True, False
            continue
        m = None if runs_on or not s[0].isdigit() else _CLAUSE.match(line)
        if m:
            num = m.group("num") or m.group("snum")
            sub = m.group("sub") if m.group("num") else (m.group("ssub") or m.group("bare") or "")
            text = m.group("text").strip()
            cur = _Item(
                "clause",
                (int(m.group("rule")), int(num) if num else None, sub),
                lineno,
                RuleNode(rule="", line=lineno),
                line[m.end("indent") : m.start("text")].strip(),
                len(m.group("indent")),
                Lines(text),
            )
            items.append(cur)
            in_example = False
        elif not runs_on and s[0].isdigit() and (h := _SECTION.match(line) or _RULE.match(line)):
            kind = "section" if len(h.group("id")) == 1 else "rule"
            cur = _Item(
                kind,
                (int(h.group("id")), None, ""),
                lineno,
                RuleNode(rule=h.group("id"), title=h.group("title"), line=lineno),
            )
            items.append(cur)
            in_example, text = False, ""
        elif cur is not None and EXAMPLE.match(line):
            cur.examples.append(Lines(EXAMPLE.sub("", s, count=1)))
            in_example, text = True, s
        elif cur is not None:
            paragraph = not wrapped or after_blank or indent(line) > cur.indent + 2
            (cur.examples[-1] if in_example else cur.text).add(s, paragraph)
            text = s
        else:
            text = ""
        after_blank = False
        runs_on = wrapped and _runs_on(line, text)
    return items


def _title_from_text(node: RuleNode) -> None:
    """A clause that is only a name ("702.2. Deathtouch", 1999's "214.6. Artifacts") heads its sub-clauses."""
    text = node.text
    if (
        "." in node.rule
        and not node.rule[-1].isalpha()
        and text
        and not node.examples
        and "\n" not in text
        and len(text) <= 60
        and text[0].isupper()
        and not text.endswith(_SENTENCE_END)
    ):
        node.title, node.text = text, ""


def _next_letters(letters: str) -> str:
    """The sub-rule letters after ``letters`` (a -> b, k -> m, z -> aa, az -> ba); "" -> "a"."""
    seq = ruleid.SUB_LETTERS
    if not letters:
        return "a"
    last = seq.find(letters[-1])
    if last + 1 < len(seq):
        return letters[:-1] + seq[last + 1]
    if len(letters) == 1:
        return "aa"
    return seq[min(seq.find(letters[0]) + 1, len(seq) - 1)] + "a"


_ID = re.compile(r"^([1-9]\d{2})(?:\.(\d{1,3})([a-z]{0,2}))?$|^([1-9])$")


@lru_cache(maxsize=1 << 16)
def _split(rid: str) -> tuple[int, int | None, str]:
    """(rule, num, letters) of an id this parser wrote; a section is (n, None, "")."""
    m = _ID.match(rid)
    if m.group(4):
        return int(m.group(4)), None, ""
    return int(m.group(1)), int(m.group(2)) if m.group(2) else None, m.group(3) or ""


@lru_cache(maxsize=1 << 16)
def _key(rid: str) -> tuple | None:
    """``ruleid.sort_key`` for the ids written here, without its normalising (it runs per clause)."""
    m = _ID.match(rid)
    if m is None:
        return None
    if m.group(4):
        return (int(m.group(4)), -1, -1, 0, "")
    rule, num, sub = int(m.group(1)), m.group(2), m.group(3) or ""
    return (rule // 100, rule, int(num) if num else -1, len(sub), sub)


def _fmt(rule: int, num: int | None, sub: str) -> str:
    return f"{rule}" if num is None else f"{rule}.{num}{sub}"


class _Numberer:
    """Give each clause its id, repairing real typos by general rules (never by a list of ids).

    A clause id that is a duplicate, out of order, under the wrong rule, or missing its clause
    number is read, in turn, as: the current rule's number with the same clause ("605.2c" under
    rule 609 -> 609.2c); the previous clause's number with the letters written ("306.b" after
    306.3a -> 306.3b; "306.1c" after 306.3b -> 306.3c); the next letter ("702.30d" twice -> 702.30e).
    A main clause whose number jumps while the next line is a sub-clause of the expected number
    ("505.54" then "505.5a") takes the expected number. Each repair is a warning; a clause that
    cannot be repaired is kept as a paragraph of the clause before it, with a warning.

    A repair must never move genuine ids: one that would push the next clause's id, valid as
    written, out of sequence is not made ("509.1c" written twice before "509.1d" is not a typo for
    509.1d), and a line that repeats a clause word for word is a repeat, not a typo. Such a line
    stays text of the clause before it.
    """

    def __init__(self, path: str):
        self.path = path
        self.seen: dict[str, int] = {}
        self.texts: dict[str, str] = {}  # clause id -> its text as first read (to tell a repeated line)
        self.last: str | None = None
        self.last_key: tuple | None = None
        self.prev: tuple[int, int, str] | None = None  # last accepted clause
        self.heading_rule: int | None = None
        self.under_heading = 0  # clauses accepted under the current rule heading
        self.diags: list[Diagnostic] = []

    def _fits(self, rid: str) -> bool:
        key = _key(rid)
        return key is not None and rid not in self.seen and (self.last_key is None or key > self.last_key)

    def _warn(self, line: int, message: str) -> None:
        self.diags.append(Diagnostic(self.path, line, message, "warning"))

    def number(self, items: list[_Item]) -> tuple[list[RuleNode], list[Diagnostic]]:
        accepted: list[_Item] = []
        clause_idx = [i for i, it in enumerate(items) if it.kind == "clause"]
        following = {a: items[b] for a, b in zip(clause_idx, clause_idx[1:], strict=False)}
        for i, item in enumerate(items):
            rid = self._heading_id(item) if item.kind != "clause" else self._clause_id(item, following.get(i))
            if rid is None:
                self._merge(accepted, item)
                continue
            item.node.rule = rid
            item.node.parent = self._parent(rid)
            self.seen[rid] = item.line
            self.texts[rid] = str(item.text)
            self.last, self.last_key = rid, _key(rid)
            accepted.append(item)
        for item in accepted:
            item.node.text = str(item.text)
            item.node.examples = [str(e) for e in item.examples]
        return [item.node for item in accepted], self.diags

    def _parent(self, rid: str) -> str | None:
        """The nearest ancestor already read (what ``link_tree`` would find, without its per-node parsing)."""
        rule, num, sub = _split(rid)
        if num is None and rule < 10:
            return None
        chain = [str(rule // 100), str(rule)] + ([f"{rule}.{num}"] if sub else [])
        chain = chain[: 1 if num is None else len(chain)]
        return next((a for a in reversed(chain) if a in self.seen), None)

    def _heading_id(self, item: _Item) -> str | None:
        rid = item.node.rule
        if not self._fits(rid):
            why = (
                f"duplicate (first at line {self.seen[rid]})" if rid in self.seen else f"out of order after {self.last}"
            )
            self._warn(item.line, f"heading {rid} {why}; kept as text of the clause before it")
            return None
        if item.kind == "rule":
            self.heading_rule, self.under_heading = item.raw[0], 0
        return rid

    def _clause_id(self, item: _Item, nxt: _Item | None) -> str | None:
        rule, num, sub = item.raw
        prev = self.prev
        same_rule_prev = prev if prev and prev[0] == rule else None
        wrong_rule = self.heading_rule is not None and rule != self.heading_rule and self.under_heading > 0
        written = _fmt(rule, num, sub) if num is not None else ""
        candidates: list[str] = []
        if num is not None and not wrong_rule and self._fits(written):
            jump = (
                not sub
                and same_rule_prev
                and nxt is not None
                and num != same_rule_prev[1] + 1
                and nxt.raw[:2] == (rule, same_rule_prev[1] + 1)
                and nxt.raw[2]
            )
            if not jump:
                return self._accept(written, item, rule)
            candidates.append(_fmt(rule, same_rule_prev[1] + 1, ""))
        if wrong_rule and prev:
            candidates.append(_fmt(self.heading_rule, num if num is not None else prev[1], sub))
        if same_rule_prev and (num is None or (sub and sub == _next_letters(same_rule_prev[2]))):
            candidates.append(_fmt(rule, same_rule_prev[1], sub))
        if same_rule_prev and sub and same_rule_prev[1] == num:
            candidates.append(_fmt(rule, num, _next_letters(same_rule_prev[2])))
        repeat = written in self.texts and self.texts[written] == str(item.text)
        for cand in candidates:
            if self._fits(cand) and not repeat and not self._shifts_next(cand, nxt):
                self._warn(item.line, f"clause id {item.spelled or written} read as {cand}")
                return self._accept(cand, item, _split(cand)[0])
        if written and self._fits(written):  # e.g. the rule's heading is missing: trust the id as written
            return self._accept(written, item, rule)
        if repeat:
            why = f"repeats line {self.seen[written]} word for word"
        else:
            why = "duplicate" if written in self.seen else "out of order" if written else "without a clause number"
        self._warn(
            item.line,
            f"clause id {item.spelled or written} {why} (after {self.last}); kept as text of the clause before it",
        )
        return None

    def _shifts_next(self, cand: str, nxt: _Item | None) -> bool:
        """True if reading this line as ``cand`` would put the next clause, valid as written, out of sequence."""
        if nxt is None or nxt.raw[1] is None:
            return False
        following = _fmt(*nxt.raw)
        key = _key(following)
        return self._fits(following) and key is not None and key <= _key(cand)

    def _accept(self, rid: str, item: _Item, rule: int) -> str:
        self.prev = _split(rid)
        if rule == self.heading_rule:
            self.under_heading += 1
        return rid

    @staticmethod
    def _merge(accepted: list[_Item], item: _Item) -> None:
        """Keep an unnumberable line's words: append it to the node before it."""
        if not accepted:
            return
        words = " ".join(x for x in (item.spelled, item.node.title, str(item.text)) if x)
        accepted[-1].text.add(words, True)
        accepted[-1].examples.extend(item.examples)
