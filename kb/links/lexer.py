"""Find the comments and string literals of a source file in linear time.

A lexer is an alternation of patterns tried left to right, as ``re.finditer`` would: the same matches
at the same places. ``finditer`` alone is quadratic on a quoted string that never closes: a line
``"CR 702.19b \\"\\"\\"…`` fails from its first quote only at the end of the line, and the engine then
retries from every escaped quote inside it, each time to the end of the line (20,000 quotes: 5 s).

Here a quote that may fail is written to match anyway, up to where it stops, and to say so (an
empty marker group). Every quote of the same kind that starts inside that run stops at the same
place (the run's escapes pair the same way from any of them), so it fails too: that kind is left
out of the pattern until the run's end, and the other patterns still get their chance inside it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Quote:
    """A quoted literal that can fail to close: ``open`` + ``body``* + ``close``, after ``prefix``.

    ``kind`` names the quote: two patterns of one kind fail at the same places (the same opening
    character and escapes). ``before`` is tried first at the same place (a triple quote, which
    never fails)."""

    kind: str
    prefix: str
    open: str
    body: str
    close: str
    before: str = ""


class Lexer:
    """An alternation of regular expressions (strings or ``Quote``) scanned in linear time."""

    def __init__(self, alternatives: list[str | Quote]):
        self.alternatives = alternatives
        self.kinds = {a.kind for a in alternatives if isinstance(a, Quote)}
        self._compiled: dict[frozenset, re.Pattern] = {}

    def _pattern(self, blocked: frozenset) -> re.Pattern:
        """The alternation without the quotes of the ``blocked`` kinds; each other quote always matches."""
        if blocked not in self._compiled:
            parts = []
            for i, alt in enumerate(self.alternatives):
                if not isinstance(alt, Quote):
                    parts.append(alt)
                elif alt.kind not in blocked:
                    quote = f"{alt.open}(?:{alt.body})*+(?:{alt.close}|(?P<open{i}>))"
                    parts.append(f"{alt.prefix}(?:{alt.before}|{quote})" if alt.before else f"{alt.prefix}{quote}")
            self._compiled[blocked] = re.compile("|".join(parts))
        return self._compiled[blocked]

    def plain(self) -> re.Pattern:
        """The alternation as written, for ``re.finditer`` (what ``finditer`` here must match, faster)."""
        parts = []
        for alt in self.alternatives:
            if isinstance(alt, Quote):
                quote = f"{alt.open}(?:{alt.body})*(?:{alt.close})"
                alt = f"{alt.prefix}(?:{alt.before}|{quote})" if alt.before else f"{alt.prefix}{quote}"
            parts.append(alt)
        return re.compile("|".join(parts))

    def _unclosed(self, m: re.Match) -> str | None:
        """The kind of quote ``m`` is, if it did not close (the plain alternation fails there)."""
        for i, alt in enumerate(self.alternatives):
            if isinstance(alt, Quote) and m.re.groupindex.get(f"open{i}") and m.group(f"open{i}") is not None:
                return alt.kind
        return None

    def finditer(self, text: str) -> Iterator[re.Match]:
        """The matches ``re.finditer`` of the plain alternation yields, in linear time."""
        pos = 0
        until: dict[str, int] = {}  # a quote kind -> the end of the run where it cannot close
        found: dict[frozenset, re.Match | None] = {}  # each pattern's next match from where it last looked
        while pos <= len(text):
            blocked = frozenset(k for k, end in until.items() if end > pos)
            limit = min((until[k] for k in blocked), default=len(text) + 1)
            m = found.get(blocked, False)
            if m is False or (m is not None and m.start() < pos):
                m = found[blocked] = self._pattern(blocked).search(text, pos)
            if m is None or m.start() >= limit:
                if limit > len(text):
                    return
                pos = limit  # past a run: the quotes left out may match again
                continue
            start = m.start()
            # Where a quote does not close, the plain alternation fails for it: so does every quote of its
            # kind up to the end of its run. Another pattern may still match at this very place.
            while m is not None and (kind := self._unclosed(m)) is not None:
                until[kind] = m.end()
                blocked |= {kind}
                m = self._pattern(blocked).match(text, start)
            if m is None:
                pos = start + 1
            else:
                yield m
                pos = max(m.end(), start + 1)
