"""Citation forms: find clause ids in prose (comments, docstrings, strings) and in test names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from kb.ruleid import SUB_LETTERS

# Highest rule number per game (MTG sections 1-9 end at 905; Duel Masters runs 100-819).
MAX_RULE = {"mtg": 905, "dm": 899}

_L = "a-kmnp-z"  # sub-letters: never l or o
# An id not glued to other ASCII words or numbers ("v1.509.1", "509.12.3" and "x509.1" are not ids);
# Japanese text may touch it directly (総合ルール509.1c).
_ID = re.compile(
    rf"(?<![0-9A-Za-z_.])([1-9]\d{{2}})\.([1-9]\d{{0,2}})([{_L}]{{1,2}})?"
    rf"(?:\s?[-–—~〜]\s?(?:\1\.\2)?([{_L}])(?![0-9A-Za-z_]))?"
    r"(?![0-9A-Za-z_]|\.\d)"
)
# A whole rule needs a cue word: "See rule 607", "CR 607", "総合ルール 607".
_CUE = r"(?:\b[Rr]ules?|\bCR|\bC\.R\.|総合ゲームルール|総合ルール)"
_WHOLE = re.compile(rf"{_CUE}\s*([1-9]\d{{2}})(?![0-9A-Za-z_]|\.\d)")
_DM_CUE = re.compile(r"総合ゲームルール\s*$")
# Test names: test_104_3b_player_with_zero_life_loses_the_game, test_Rules_111_4_Example1.
_NAME_ID = re.compile(rf"(?<![0-9])([1-9]\d{{2}})_([1-9]\d{{0,2}})([{_L}]{{1,2}})?(?![0-9A-Za-z])")
_DATE = re.compile(r"(?<![0-9])((?:19|20)\d{2})(-?)(\d{2})\2(\d{2})(?![0-9])")
_WRITTEN = re.compile(r"written\s+against\s*:?\s*(?:CR\s*)?(\S+)", re.IGNORECASE)
# Quotes pair left to right (no minimum length inside the pattern, or a closing quote would open one).
_QUOTE = re.compile(r"[\"“「『]([^\"“”「」『』\n]+)[\"”」』]")


@dataclass
class Found:
    """One clause id found in a piece of text."""

    rule: str
    raw: str
    offset: int  # of ``raw`` in the text
    game: str


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


def find_ids(text: str, game: str = "mtg") -> list[Found]:
    """Clause ids cited in a piece of prose, in order of appearance."""
    out: list[Found] = []
    taken: list[tuple[int, int]] = []
    for m in _ID.finditer(text):
        g = _game_at(text, m.start(), game)
        if int(m.group(1)) > MAX_RULE.get(g, 905):
            continue
        for rule in _expand(m.group(1), m.group(2), m.group(3), m.group(4)):
            out.append(Found(rule, m.group(0), m.start(), g))
        taken.append(m.span())
    for m in _WHOLE.finditer(text):
        if any(s <= m.start(1) < e for s, e in taken):
            continue
        g = _game_at(text, m.start(1), game)
        if int(m.group(1)) <= MAX_RULE.get(g, 905):
            out.append(Found(m.group(1), m.group(0), m.start(1), g))
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
    """A YYYYMMDD or YYYY-MM-DD date, or None."""
    m = _DATE.search(raw)
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(3)), int(m.group(4)))
    except ValueError:
        return None


def written_date(text: str) -> tuple[date | None, str]:
    """The date a piece of text says it was written against, and how it says so."""
    m = _WRITTEN.search(text)
    if m:
        d = parse_date(m.group(1))
        if d:
            return d, "annotation"
    for m in _DATE.finditer(text):
        d = parse_date(m.group(0))
        if d:
            return d, "date"
    return None, ""


def explicit_written(text: str) -> date | None:
    """Only an explicit ``written against`` annotation (used file-wide)."""
    m = _WRITTEN.search(text)
    return parse_date(m.group(1)) if m else None


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
