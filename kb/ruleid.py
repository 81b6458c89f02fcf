"""Clause ids: parse, validate, order and relate ``5``, ``509``, ``509.1``, ``509.1c``, ``704.5aa``."""

from __future__ import annotations

import functools
import re
import unicodedata

# section "5" | rule "509" | clause "509.1" | sub-clause "509.1c" / "704.5aa"
# (Duel Masters also numbers its introduction: rule "000", clause "000.1".)
RULE_ID_RE = re.compile(r"^(?P<rule>[1-9]\d{2}|000)(?:\.(?P<num>\d{1,3})(?P<sub>[a-z]{1,2})?)?$|^(?P<section>[0-9])$")

# Sub-rule letters never use l or o (they read as 1 and 0).
SUB_LETTERS = "abcdefghijkmnpqrstuvwxyz"
# The same letters as a regex character class, for patterns that find ids in running text.
LETTER = "[a-kmnp-z]"
# A clause id inside running text: 509, 509.1, 509.1c, 704.5aa.
ID_IN_TEXT = rf"[1-9]\d{{2}}(?:\.\d{{1,3}}(?:{LETTER}{{1,2}})?)?"
# The cue words of a cited rule: "See rule 113", "rules 601 and 602", "総合ルール 509.1", "section 5".
RULE_CUE = r"(?:rules?|sections?|総合ゲームルール|総合ルール|ルール)"


@functools.lru_cache(maxsize=65536)
def normalize(raw: str) -> str:
    """Canonical form of a user-typed id: NFKC, lower case, no trailing period or prefix."""
    s = unicodedata.normalize("NFKC", raw).strip().lower()
    s = re.sub(r"^(?:rule|cr|c\.r\.|ルール|総合ルール|総合ゲームルール)\s*", "", s)
    s = s.rstrip(".")
    return s


@functools.lru_cache(maxsize=65536)
def parse(raw: str) -> tuple[int, int | None, int | None, str] | None:
    """Split an id into (section, rule, clause number, letters); None if it is not an id."""
    m = RULE_ID_RE.match(normalize(raw))
    if not m:
        return None
    if m.group("section") is not None:
        return (int(m.group("section")), None, None, "")
    rule = int(m.group("rule"))
    num = int(m.group("num")) if m.group("num") is not None else None
    return (rule // 100, rule, num, m.group("sub") or "")


def is_valid(raw: str, *, strict_letters: bool = True) -> bool:
    """True if ``raw`` is a well-formed id (letters l and o refused when strict)."""
    p = parse(raw)
    if p is None:
        return False
    letters = p[3]
    return not (strict_letters and any(c not in SUB_LETTERS for c in letters))


def level(rule: str) -> str:
    """One of "section", "rule", "clause", "subclause"."""
    p = parse(rule)
    if p is None:
        raise ValueError(f"not a clause id: {rule!r}")
    if p[1] is None:
        return "section"
    if p[2] is None:
        return "rule"
    return "subclause" if p[3] else "clause"


def is_clause(rule: str) -> bool:
    """Ids with a dot (``509.1``, ``509.1c``) are clauses; ``5`` and ``509`` are headings."""
    return "." in rule


def parent(rule: str) -> str | None:
    """The id one level up: 509.1c -> 509.1 -> 509 -> 5 -> None."""
    p = parse(rule)
    if p is None:
        return None
    section, r, num, letters = p
    if r is None:
        return None
    if num is None:
        return str(section)
    if letters:
        return f"{r:03d}.{num}"
    return f"{r:03d}"


def ancestors(rule: str) -> list[str]:
    """Ids from the section down to the direct parent."""
    chain = []
    p = parent(rule)
    while p is not None:
        chain.append(p)
        p = parent(p)
    return chain[::-1]


@functools.lru_cache(maxsize=65536)
def sort_key(rule: str) -> tuple:
    """Document order: 5 < 509 < 509.1 < 509.1a < 509.1z < 509.1aa < 509.2 < 509.10."""
    p = parse(rule)
    if p is None:
        return (99, 0, 0, 0, rule)
    section, r, num, letters = p
    return (section, r if r is not None else -1, num if num is not None else -1, len(letters), letters)


def letter_index(letters: str) -> int:
    """Position of a sub-letter run among valid letters: a=1 … z=24, aa=25 …"""
    if not letters:
        return 0
    value = 0
    for ch in letters:
        pos = SUB_LETTERS.find(ch)
        if pos < 0:
            pos = ord(ch) - ord("a")
        value = value * len(SUB_LETTERS) + pos + 1
    return value


def anchor(rule: str) -> str:
    """A stable HTML anchor for an id, Yawgatog style: 509.1c -> R5091c."""
    return "R" + rule.replace(".", "")
