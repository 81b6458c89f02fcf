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
a warning; see ``ingest.cr_en_ids.Numberer``.
"""

from __future__ import annotations

import os
import re
from datetime import date

from ingest import damage
from ingest.common import Hints
from ingest.cr_en_ids import Item, Numberer
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
_CLAUSE_LINE = re.compile(r"^\s*[1-9]\d{2}\.\d{1,3}[a-z]{0,2}\.?(?:\s|$)")  # a line that starts with a clause id
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
    numberer = Numberer(path)
    nodes, diags = numberer.number(items)
    for node in nodes:
        _title_from_text(node)
    result.diagnostics.extend(diags)
    result.diagnostics.extend(_damage(lines, start, body_end, gloss, nodes, numberer.unplaced, path))
    end = _last_line(lines)
    truncated = ""
    if gloss is None:
        truncated = "no Glossary heading: it ends inside the rules"
        if nodes:
            nodes[-1].truncated = True
    elif credits is None:
        truncated = "no Credits heading: it ends inside the glossary"
    gap = _unlisted_gap(lines, start, nodes) if not truncated else None
    if gap is not None:  # it goes on to its end, but without a rule its contents list: not whole either
        truncated, end = gap
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
        # how much text the credits hold: a copy cut inside them does not replace a whole one (kb.build)
        "credits_chars": sum(len(x.strip()) for x in lines[credits + 1 :]) if credits is not None else None,
        "last_line": end,
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


def _unlisted_gap(lines: list[str], start: int, nodes: list[RuleNode]) -> tuple[str, int] | None:
    """(why, line) if the contents before the rules list a rule they lack: the line is where it would be."""
    held = {n.rule for n in nodes}
    for i in range(start):
        m = _RULE.match(lines[i])
        if m and m.group("id") not in held:
            rid = m.group("id")
            before = [n.line for n in nodes if ruleid.sort_key(n.rule) < ruleid.sort_key(rid)]
            return f"the contents (line {i + 1}) list rule {rid}, which the rules lack", before[
                -1
            ] if before else start + 1
    return None


def _damage(
    lines: list[str], start: int, end: int, gloss: int | None, nodes: list[RuleNode], unplaced: list, path: str
) -> list[Diagnostic]:
    """Errors for a damaged text (``ingest.damage``): its title or contents heading again inside the rules,
    rules after the Glossary heading, a clause line out of its place."""
    title = next((s.strip().lower() for s in lines if s.strip()), "")
    first = {s: i for i in range(start - 1, -1, -1) if (s := lines[i].strip().lower()) in ("contents", title)}
    again = next((i for i in range(start, end) if lines[i].strip().lower() in first), None)
    restart = None
    if again is not None:
        restart = damage.restarted(path, again + 1, lines[again].strip(), first[lines[again].strip().lower()] + 1)
    return damage.check(
        path,
        lines,
        nodes,
        unplaced,
        restart=restart,
        glossary=(gloss + 1, "Glossary") if gloss is not None else None,
        is_clause=_CLAUSE_LINE.match,
    )


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


def _runs_on(line: str, text: str) -> bool:
    """A wrapped line of running text that stops mid-sentence ("… See rule") continues on the next line.

    ``text`` is the line's prose (after a clause id); headings and short name-only clauses
    ("214.6. Artifacts") end without punctuation but do not run on.
    """
    s = line.strip()
    return len(text) > 60 and not s.endswith(_SENTENCE_END)


def _read_body(body: list[str], offset: int, wrapped: bool) -> list[Item]:
    """Split the rules part into headings and clauses with their text and examples."""
    items: list[Item] = []
    cur: Item | None = None
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
            cur = Item(
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
            cur = Item(
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
