"""Lines copied from the rules: an engine that pastes a clause into a comment cites what the clause cites.

XMage's javadoc holds "702.62d … follows the rules for paying alternative costs in rules 601.2b and
601.2f–h"; a TypeScript engine quotes 701.8b with its "(see rule 704.5g)". The ids inside such a line
are the rules' own cross-references, right in the edition the text was copied from, whatever the line's
other words fit. ``Copies.holders`` finds the stored clauses whose text holds a line word for word.
"""

from __future__ import annotations

import bisect
import re

from kb.links.clauses import norm
from kb.store import Store, VersionInfo

GRAM = 5  # words per shingle: enough to rule out chance, few enough for a wrapped javadoc line
MIN_WORDS, MIN_ALPHA = 6, 4  # a shorter fragment ("in rules 601 2b") could be anyone's words
_LEADING_ID = re.compile(r"^\s*(?:rule\s+)?(\d{3}(?:\.\d+[a-z]{0,2})?)\.?\s+", re.I)


def fragment(line: str) -> tuple[str, str]:
    """(the line's leading clause id or "", its words normalised) — "702.77b If a spell…" labels itself."""
    m = _LEADING_ID.match(line)
    if m:
        return m.group(1).lower(), norm(line[m.end() :])
    return "", norm(line)


def enough(words: str) -> bool:
    toks = words.split()
    return len(toks) >= MIN_WORDS and sum(t.isalpha() and len(t) > 1 for t in toks) >= MIN_ALPHA


class Copies:
    """Every distinct clause text of some editions, normalised, searchable by a fragment of a line."""

    def __init__(self, store: Store, versions: list[VersionInfo]):
        self.store = store
        self.vids = [v.id for v in versions if not v.partial]
        rows = store.texts_in(self.vids)
        self.hashes = [h for h, _ in rows]
        texts = [norm(t) for _, t in rows]
        self.starts, pos = [], 0
        for t in texts:
            self.starts.append(pos)
            pos += len(t) + 3
        self.big = "|".join(f" {t} " for t in texts)  # a fragment matches whole words only
        self.grams = {
            hash(" ".join(w[i : i + GRAM])) for t in texts if (w := t.split()) for i in range(len(w) - GRAM + 1)
        }
        self._memo: dict[str, list[str]] = {}

    def holders(self, words: str) -> list[str]:
        """Content hashes whose text holds ``words`` (a normalised fragment), none for a short one."""
        if not enough(words):
            return []
        if words not in self._memo:
            toks = words.split()
            if any(hash(" ".join(toks[i : i + GRAM])) not in self.grams for i in range(0, len(toks) - GRAM + 1, GRAM)):
                self._memo[words] = []
            else:
                needle = f" {words} "
                out, at = [], self.big.find(needle)
                while at >= 0:
                    k = bisect.bisect_right(self.starts, at) - 1
                    out.append(self.hashes[k])
                    at = self.big.find(needle, self.starts[k + 1] if k + 1 < len(self.starts) else len(self.big))
                self._memo[words] = out
        return self._memo[words]

    def places(self, hashes: list[str]) -> list[tuple[int, str]]:
        """(version id, rule) of every node of the editions holding one of ``hashes``."""
        return self.store.places(hashes, self.vids)
