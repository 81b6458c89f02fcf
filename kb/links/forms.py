"""Citation forms: find clause ids in prose (comments, docstrings, strings) and in test names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from kb import ruleid
from kb.model import MONTHS
from kb.ruleid import SUB_LETTERS

# Highest rule number per game (MTG sections 1-9 end at 905; Duel Masters runs 100-819).
MAX_RULE = {"mtg": 905, "dm": 899}

_L = ruleid.LETTER[1:-1]  # sub-letters (never l or o), inside this module's own character classes
_DASH = "-–—~〜"
# An id not glued to other ASCII words or numbers ("v1.509.1", "509.12.3" and "x509.1" are not ids);
# Japanese text may touch it directly (総合ルール509.1c). What may follow it: a letter range
# (601.2e–g, 601.2e-601.2g), a range to another id (702.170-702.176) or, with no space, to a
# number of the same rule (119.9–10).
_ID = re.compile(
    rf"(?<![0-9A-Za-z_.])([1-9]\d{{2}})\.([1-9]\d{{0,2}})([{_L}]{{1,2}})?"
    rf"(?:\s?[{_DASH}]\s?(?:(?:\1\.\2)?([{_L}])(?![0-9A-Za-z_])"
    rf"|([1-9]\d{{2}})\.([1-9]\d{{0,2}})([{_L}]{{1,2}})?)"
    rf"|[{_DASH}]([1-9]\d{{0,2}})(?![{_L}]))?"
    r"(?![0-9A-Za-z_]|\.\d)"
)
# A whole rule needs a cue word: "See rule 607", "CR 607", "総合ルール 607", "Rules 506-511".
_CUE = r"(?:\b[Rr]ules?|\bCR|\bC\.R\.|総合ゲームルール|総合ルール)"
_WHOLE = re.compile(rf"{_CUE}\s*([1-9]\d{{2}})(?:\s?[{_DASH}]\s?([1-9]\d{{2}}))?(?![0-9A-Za-z_]|\.\d)")
# ... and the whole rules listed after it, rising: "Rule 111-112, 114", "Rules 101, 103 and 104".
_WHOLE_MORE = re.compile(
    rf"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+|\s*&\s*)([1-9]\d{{2}})(?:\s?[{_DASH}]\s?([1-9]\d{{2}}))?(?![0-9A-Za-z_]|\.\d)"
)
# A list that elides the number: "608.3a and b", "702.19b, c, and d" (letters rise; "400.7d, a permanent"
# and "104.2b, e.g." are prose).
_MORE = re.compile(rf"(?:\s*,\s*(?:and\s+|or\s+)?|\s*[&/]\s*|\s+(?:and|or)\s+)([{_L}])(?![0-9A-Za-z_]|\.[A-Za-z]|'\w)")
# Rules-site anchors (Yawgatog / mtg.wtf style): …/magic-rules/#R7029 is 702.9, #R702102b is 702.102b.
_ANCHOR = re.compile(rf"(?<=\S)#R([1-9]\d{{2}})\.?((?:[1-9]\d{{0,2}})?)([{_L}]{{1,2}})?(?![0-9A-Za-z_])")
_DM_CUE = re.compile(r"総合ゲームルール\s*$")
# Test names: test_104_3b_player_with_zero_life_loses_the_game, test_Rules_111_4_Example1.
_NAME_ID = re.compile(rf"(?<![0-9])([1-9]\d{{2}})_([1-9]\d{{0,2}})([{_L}]{{1,2}})?(?![0-9A-Za-z])")
_DATE = re.compile(r"(?<![0-9])((?:19|20)\d{2})(-?)(\d{2})\2(\d{2})(?![0-9])")

_LONG_DATE = re.compile(r"\b(" + "|".join(MONTHS) + r")\s+(\d{1,2}),?\s+((?:19|20)\d{2})\b", re.IGNORECASE)
_WRITTEN = re.compile(r"written\s+against\s*:?\s*(?:CR\s*)?(\S+)", re.IGNORECASE)
# The edition a file names as its source: "Based on MagicCompRules 20251114.txt",
# "Reference: MagicCompRules 20251114", "Comprehensive Rules 2025-11-14", "Comprehensive Rules (November 14, 2025)".
_EDITION = re.compile(
    r"(?:MagicCompRules|Comprehensive\s+Rules)(?:%20|[^\n\d]){0,24}?"
    r"((?:19|20)\d{2}-?\d{2}-?\d{2}(?![0-9])|(?:" + "|".join(MONTHS) + r")\s+\d{1,2},?\s+(?:19|20)\d{2})",
    re.IGNORECASE,
)
# Quotes pair left to right (no minimum length inside the pattern, or a closing quote would open one).
_QUOTE = re.compile(r"[\"“「『]([^\"“”「」『』\n]+)[\"”」』]")


@dataclass
class Found:
    """One clause id found in a piece of text (or a range of them: ``rule`` to ``range_to``)."""

    rule: str
    raw: str
    offset: int  # of ``raw`` in the text
    game: str
    range_to: str = ""  # the last id of a range whose ids only a version knows (702.170-702.176)
    anchor: bool = False  # found in a rules-site URL (…/magic-rules/#R7029)


def _letters_between(first: str, last: str) -> list[str] | None:
    a, b = SUB_LETTERS.find(first), SUB_LETTERS.find(last)
    if a < 0 or b <= a or b - a > 12:
        return None
    return list(SUB_LETTERS[a : b + 1])


def _expand(rule: str, num: str, letters: str | None, to_letter: str | None) -> list[str]:
    """Ids named by one match: 601.2e–g and 614.1cd name several."""
    base = f"{rule}.{num}"
    if letters and to_letter and len(letters) == 1:
        span = _letters_between(letters, to_letter)
        if span:
            return [base + c for c in span]
    if letters and len(letters) == 2 and letters[0] != letters[1]:
        span = _letters_between(letters[0], letters[1])
        if span and len(span) == 2:  # "614.1cd" is c and d; "704.5aa" is one id
            return [base + c for c in span]
    return [base + (letters or "")]


def _game_at(text: str, start: int, default: str) -> str:
    return "dm" if _DM_CUE.search(text[max(0, start - 12) : start]) else default


def _range_end(m: re.Match) -> str:
    """The far end of a numeric range written after an id ("" when there is none)."""
    if m.group(5):
        return f"{m.group(5)}.{m.group(6)}{m.group(7) or ''}"
    if m.group(8) and not m.group(3):
        return f"{m.group(1)}.{m.group(8)}"
    return ""


def in_order(first: str, last: str) -> bool:
    """True if ``first`` comes before ``last`` in the same section: a range, not two citations."""
    from kb.ruleid import sort_key

    return first[0] == last[0] and sort_key(first) < sort_key(last)


def _more_letters(text: str, pos: int, base: str, last: str) -> tuple[list[str], int]:
    """Letters a list adds after an id ending in ``last``: "608.3a and b" -> ["b"], and where the list ends."""
    out = []
    while (m := _MORE.match(text, pos)) and SUB_LETTERS.find(m.group(1)) > SUB_LETTERS.find(last):
        last = m.group(1)
        out.append(base + last)
        pos = m.end()
    return out, pos


# A C-family float literal is no citation: "pos.actZ * 119.7f" in a commented-out line of code. Its "f"
# stands beside arithmetic, or its line holds other float literals that no rule id could be (84.f, 11.5f).
_ARITHMETIC_BEFORE = re.compile(r"[*=+]\s*$")
_ARITHMETIC_AFTER = re.compile(r"\s*\*")
_DECORATION = re.compile(r"[\s/*#!-]*")
_OTHER_FLOAT = re.compile(
    r"(?<![0-9A-Za-z_.])(?:\d{1,2}|\d{4,})\.\d*[fF](?![0-9A-Za-z_])|(?<![0-9A-Za-z_.])\d+\.[fF](?![0-9A-Za-z_])"
)


def _float_literal(text: str, m: re.Match) -> bool:
    if m.group(3) != "f" or m.end() != m.start() + len(f"{m.group(1)}.{m.group(2)}f"):
        return False
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    before = text[start : m.start()]
    return bool(
        not _DECORATION.fullmatch(before)  # " * 110.5f A token …": a comment's margin, not a product
        and _ARITHMETIC_BEFORE.search(before[-8:])
        or _ARITHMETIC_AFTER.match(text, m.end())
        or _OTHER_FLOAT.search(text, start, end if end >= 0 else len(text))  # on the same line
    )


def _ids(text: str, game: str, out: list[Found], taken: list[tuple[int, int]]) -> None:
    for m in _ID.finditer(text):
        if _float_literal(text, m):
            continue
        g = _game_at(text, m.start(), game)
        if int(m.group(1)) > MAX_RULE.get(g, 905):
            continue
        end = _range_end(m)
        first = f"{m.group(1)}.{m.group(2)}{m.group(3) or ''}"
        if end and in_order(first, end) and int(end.split(".")[0]) <= MAX_RULE.get(g, 905):
            out.append(Found(first, m.group(0), m.start(), g, range_to=end))
        else:
            for rule in _expand(m.group(1), m.group(2), m.group(3), m.group(4)):
                out.append(Found(rule, m.group(0), m.start(), g))
            if end and m.group(5):  # two ids out of order: each is cited ("509.1c – 702.19b")
                out.append(Found(end, m.group(0), m.start(), g))
        stop = m.end()
        letters = m.group(3)
        if letters and len(letters) == 1 and not m.group(4) and not end:
            more, stop = _more_letters(text, m.end(), f"{m.group(1)}.{m.group(2)}", letters)
            out.extend(Found(rule, text[m.start() : stop], m.start(), g) for rule in more)
        taken.append((m.start(), stop))


def _whole_rules(text: str, game: str, out: list[Found], taken: list[tuple[int, int]]) -> None:
    for m in _WHOLE.finditer(text):
        if any(s <= m.start(1) < e for s, e in taken):
            continue
        g = _game_at(text, m.start(1), game)
        if int(m.group(1)) > MAX_RULE.get(g, 905):
            continue
        last, raw = m, m.group(0)
        while True:
            end = last.group(2)
            if end and in_order(last.group(1), end) and int(end) <= MAX_RULE.get(g, 905):
                out.append(Found(last.group(1), raw, last.start(1), g, range_to=end))
            else:
                out.append(Found(last.group(1), raw, last.start(1), g))
            more = _WHOLE_MORE.match(text, last.end())
            top = int(last.group(2) or last.group(1))
            if not more or not top < int(more.group(1)) <= MAX_RULE.get(g, 905):
                break
            last, raw = more, text[more.start(1) : more.end()]


def _anchors(text: str, game: str, out: list[Found]) -> None:
    """Ids in rules-site URLs; an anchor on a line whose text cites the same id is that citation."""
    import bisect

    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    lines = {(f.rule, bisect.bisect_right(starts, f.offset)) for f in out}
    for m in _ANCHOR.finditer(text):
        if int(m.group(1)) > MAX_RULE.get(game, 905) or (m.group(3) and not m.group(2)):
            continue
        rule = f"{m.group(1)}.{m.group(2)}{m.group(3) or ''}" if m.group(2) else m.group(1)
        if (rule, bisect.bisect_right(starts, m.start())) not in lines:  # [CR 702.9](…#R7029) is one citation
            out.append(Found(rule, m.group(0), m.start(), game, anchor=True))


def find_ids(text: str, game: str = "mtg") -> list[Found]:
    """Clause ids cited in a piece of prose, in order of appearance."""
    out: list[Found] = []
    taken: list[tuple[int, int]] = []
    _ids(text, game, out, taken)
    _whole_rules(text, game, out, taken)
    if "#R" in text:
        out.sort(key=lambda f: f.offset)
        _anchors(text, game, out)
    out.sort(key=lambda f: f.offset)
    return out


def find_name_ids(name: str, game: str = "mtg") -> list[Found]:
    """Clause ids spelled with underscores inside a test's identifier."""
    out = []
    for m in _NAME_ID.finditer(name):
        if int(m.group(1)) <= MAX_RULE.get(game, 905):
            for rule in _expand(m.group(1), m.group(2), m.group(3), None):
                out.append(Found(rule, name, m.start(), game))
    return out


def parse_date(raw: str) -> date | None:
    """A YYYYMMDD, YYYY-MM-DD or "November 14, 2025" date, or None."""
    try:
        m = _DATE.search(raw)
        if m:
            return date(int(m.group(1)), int(m.group(3)), int(m.group(4)))
        m = _LONG_DATE.search(raw)
        if m:
            return date(int(m.group(3)), MONTHS.index(m.group(1).lower()) + 1, int(m.group(2)))
    except ValueError:
        pass
    return None


def written_date(text: str) -> tuple[date | None, str]:
    """The date a piece of text says it was written against, and how it says so."""
    d = explicit_written(text)
    if d:
        return d, "annotation"
    for m in _DATE.finditer(text):
        d = parse_date(m.group(0))
        if d:
            return d, "date"
    return None, ""


def explicit_written(text: str) -> date | None:
    """The edition a text names explicitly: ``written against DATE`` or ``Based on MagicCompRules DATE``."""
    m = _WRITTEN.search(text)
    d = parse_date(m.group(1)) if m else None
    if d is None and ("ules" in text or "ULES" in text):
        m = _EDITION.search(text)
        d = parse_date(m.group(1)) if m else None
    return d


# A copy of the rules: lines that begin with their own clause id ("702.19b Trample…", "    \"100.1. These…\",").
_RULE_LINE = re.compile(r"^[ \t#*/>\"'`(\[-]*[1-9]\d{2}\.(?:[1-9]\d{0,2}[a-z]{0,2}\.?)?[ \t]", re.MULTILINE)
_EFFECTIVE = re.compile(r"These rules are effective as of ([^\n]{0,40})", re.IGNORECASE)
_COPY_PREFIX = 256 * 1024


def embedded_copy(text: str) -> dict | None:
    """If ``text`` is itself a copy of the rules: {"edition", "effective", "lines"}; else None.

    Decided from a prefix: most of its non-empty lines begin with a clause id (20 at least), or it
    says "These rules are effective as of …" and ten lines begin with an id.
    """
    head = text[:_COPY_PREFIX]
    ids = len(_RULE_LINE.findall(head))
    if ids < 10:
        return None
    effective = _EFFECTIVE.search(head)
    nonempty = sum(1 for ln in head.split("\n") if ln.strip())
    if not effective and (ids < 20 or 2 * ids < nonempty):
        return None
    when = parse_date(effective.group(1)) if effective else None
    named = _EDITION.search(head)
    label = parse_date(named.group(1)) if named else None
    edition = label or when
    return {
        "edition": edition.strftime("%Y%m%d") if edition else None,
        "effective": when.isoformat() if when else None,
        "lines": text.count("\n") + 1,
    }


def quotes(text: str) -> list[str]:
    """Quoted passages long enough to be rule text (five words or more: card names are shorter).

    A quote holding a clause id quotes a citation, not the rule (``"rule 601.2a–h"``).
    """
    out = []
    for m in _QUOTE.finditer(text):
        q = m.group(1).strip()
        if not q[:1].isalpha() or find_ids(q):
            continue
        if len(q.split()) >= 5 or (len(q) >= 15 and not q.isascii()):
            out.append(q)
    return out
