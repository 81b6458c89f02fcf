"""Tell a damaged rules text from the known faults of a real one: damage is refused, never stored as whole.

A real edition holds its rules once, in id order, as its own contents list them; its faults are
local (a typo in one id, a line printed twice, an id alone on its line) and the parsers repair or
drop them with a warning. A damaged file breaks that shape, and each check here reads the text
alone, so a damaged file is refused whether or not the KB already holds its edition:

- the text starts again inside its rules (a second contents heading or title line);
- rules go on after the glossary began (copies joined end to end, a header repeated at the top);
- a clause line stands out of its place while the ids around it leave a gap exactly where it goes
  (two lines swapped, a line moved).

A text that lacks a rule its own contents list, though it goes on to its end, is not refused here:
like a text cut short, it is kept partial (never whole), and does not replace a whole one. So is a
text missing more than ``BESIDE`` (and 5 %) of the clauses that the stored editions before and after it
both hold (``missing_beside``, when the KB has them).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

from kb import ruleid
from kb.model import Diagnostic, RuleNode

# Clauses both stored editions beside a text may hold that it lacks: among every triple of the 120 real
# editions (any one before, any one after) at most 81, and more than 5 % only where both hold few.
BESIDE = 100
BESIDE_SHARE = 0.05
RUN = 5  # clause lines in a row (each within RUN_GAP lines of the one before) that make a run of rules
RUN_GAP = 6
DAMAGED = "a damaged text (repeated, joined or reordered lines); not stored"


def next_letters(letters: str) -> str:
    """The sub-clause letters after ``letters`` (a -> b, k -> m, z -> aa, az -> ba); "" -> "a"."""
    seq = ruleid.SUB_LETTERS
    if not letters:
        return "a"
    last = seq.find(letters[-1])
    if last + 1 < len(seq):
        return letters[:-1] + seq[last + 1]
    if len(letters) == 1:
        return "aa"
    return seq[min(seq.find(letters[0]) + 1, len(seq) - 1)] + "a"


def next_ids(rid: str) -> set[str]:
    """The clause ids that may come right after ``rid``: its next letter, its first sub-clause, the next clause."""
    p = ruleid.parse(rid)
    if p is None or p[1] is None:
        return set()
    _, rule, num, letters = p
    if num is None:
        return {f"{rule}.1"}
    return {f"{rule}.{num + 1}", f"{rule}.{num}{next_letters(letters)}"}


class Held:
    """The ids a parse kept, in id order, to ask where a line that was not kept belongs."""

    def __init__(self, ids: list[str]):
        self.ids = sorted(ids, key=ruleid.sort_key)
        self.keys = [ruleid.sort_key(r) for r in self.ids]
        self.present = set(ids)

    def gap_before(self, rid: str) -> str | None:
        """The kept id ``rid`` would directly follow, if ``rid`` is missing and belongs right after it."""
        if rid in self.present or ruleid.parse(rid) is None:
            return None
        i = bisect.bisect_left(self.keys, ruleid.sort_key(rid))
        before = self.ids[i - 1] if i else None
        return before if before is not None and rid in next_ids(before) else None


def check(
    path: str,
    lines: list[str],
    nodes: list[RuleNode],
    unplaced: list[tuple[int, str, str]],
    *,
    restart: Diagnostic | None,
    glossary: tuple[int, str] | None,
    is_clause: Callable[[str], bool],
) -> list[Diagnostic]:
    """Every error of a damaged text, by line.

    ``unplaced``: clause lines the parse kept as text (line, id as written, id kept before them);
    ``restart``: the text starting again inside its rules, if it does; ``glossary``: the line and name
    of the glossary heading."""
    out = [restart] if restart is not None else []
    held = Held([n.rule for n in nodes])
    line_of = {n.rule: n.line for n in nodes}
    for line, rid, after in unplaced:
        before = held.gap_before(rid)
        if before is not None:
            where = f"after {before} (line {line_of.get(before, '?')})"
            out.append(
                Diagnostic(path, line, f"clause {rid} stands after {after}, but its place is {where}: {DAMAGED}")
            )
    if glossary is not None:
        more = rules_again(lines, glossary[0], is_clause)
        if more is not None:
            said = lines[more].strip()[:40] + ("…" if len(lines[more].strip()) > 40 else "")
            message = f"the rules go on ({said!r}) after the {glossary[1]} heading of line {glossary[0]}: {DAMAGED}"
            out.append(Diagnostic(path, more + 1, message))
    return sorted(out, key=lambda d: d.line)


def rules_again(lines: list[str], start: int, is_clause: Callable[[str], bool]) -> int | None:
    """Index of the first line of a run of clause lines from ``start`` on (None if there is none).

    A real glossary or credits part may hold a stray id at the start of a line (a hard-wrapped "See
    rule\\n306.3."), never ``RUN`` of them close together."""
    run: list[int] = []
    for i in range(start, len(lines)):
        if not is_clause(lines[i]):
            continue
        if run and i - run[-1] > RUN_GAP:
            run = []
        run.append(i)
        if len(run) >= RUN:
            return run[0]
    return None


def restarted(path: str, line: int, what: str, first: int) -> Diagnostic:
    """The text starts again at ``line`` (its contents heading or title, first at ``first``)."""
    return Diagnostic(
        path, line, f"the text starts again ({what!r} inside the rules; first at line {first}): {DAMAGED}"
    )


def missing_beside(nodes: list[RuleNode], before: set[str], after: set[str]) -> tuple[str, int, int] | None:
    """(first id, the line where it would be, how many) when more than ``BESIDE`` (and ``BESIDE_SHARE``) of
    the clauses the editions before and after a text both hold are missing from it; else None."""
    held = {n.rule for n in nodes}
    both = before & after
    missing = sorted(both - held, key=ruleid.sort_key)
    if len(missing) <= max(BESIDE, BESIDE_SHARE * len(both)):
        return None
    first = ruleid.sort_key(missing[0])
    line = max((n.line for n in nodes if ruleid.sort_key(n.rule) < first), default=1)
    return missing[0], line, len(missing)
