"""Suggestions: the clauses a citation probably meant, from the cited id's lineage, the keywords and topics the
line names, the text it quotes and clauses of similar wording (``Suggestions``, a part of Resolver).
"""

from __future__ import annotations

import re

from kb import ruleid
from kb.history import successor
from kb.links import evidence
from kb.links.clauses import KEYWORD_RULE, norm
from kb.links.extract import Cite
from kb.links.reading import Reading
from kb.store import NodeRecord, VersionInfo

SAME_WORDS = 0.9  # Dice similarity of two clauses' words that makes them the same clause renumbered


class Suggestions:
    """Candidate clauses and their ranking (a part of Resolver)."""

    # -- candidates ------------------------------------------------------------------------
    def successors(self, rule: str, version: VersionInfo) -> list[str]:
        """Where ``rule`` of ``version`` went by the against version (its lineage, else a clause with the same text)."""
        moves = successor(self.store, self.game, self.lang, rule, version.label)
        moves = [(r, lab) for r, lab in moves if self._label_le(lab, self.against.label)]
        if moves and moves[-1][0] and self.node(moves[-1][0], self.against):
            return [moves[-1][0]]
        base = self.node(rule, version)
        if base is not None:
            same = [n.rule for n in self.view(self.against).nodes.values() if n.hash == base.hash and n.rule != rule]
            return same[:1]
        return []

    def holders(self, rule: str) -> list[str]:
        """Where every clause that ever held ``rule`` stands in the against version (other than ``rule``)."""
        if rule not in self._holders:
            self.node(rule, self.against)
            runs: dict[str, VersionInfo] = {}
            for v in self.chain:
                n = self._rv[rule].get(v.id)
                if n is not None and not v.partial and self._label_le(v.label, self.against.label):
                    runs[n.hash] = v  # the last edition of each distinct text
            out = []
            for v in runs.values():
                out += [r for r in self.successors(rule, v) if r != rule]
            self._holders[rule] = list(dict.fromkeys(out))
        return self._holders[rule]

    def _label_le(self, a: str, b: str) -> bool:
        labels = [v.label for v in self.chain]
        return a in labels and b in labels and labels.index(a) <= labels.index(b)

    def keyword_targets(self, rule: str, keywords: list[str]) -> list[str]:
        """The clause of the against version whose rule title is one of ``keywords``, same sub-position."""
        out = []
        suffix = rule.split(".", 1)[1].lstrip("0123456789") if "." in rule else ""
        for kw in keywords:
            for vid, head in sorted(self.keywords().get(kw, ())):
                if vid == self.against.id:
                    target = head + suffix if suffix and self.node(head + suffix, self.against) else head
                    out.append(target)
        return list(dict.fromkeys(out))

    def topic_target(self, head: str, cite: Cite, said: Reading) -> list[str]:
        """Clauses under a titled rule the line names, best fitting first (the same sub-position on a tie)."""
        view = self.view(self.against)
        tail = cite.rule[len(cite.rule.split(".")[0]) :] if "." in cite.rule else ""
        same = head + tail if "." not in head else head + tail.lstrip(".0123456789")
        pool = [head, *view.descendants(head)]
        scored = sorted(pool, key=lambda r: (-(self.fit_own(said, r) + (0.05 if r == same else 0)), ruleid.sort_key(r)))
        return scored[:2]

    def same_rule(self, rule: str, said: Reading) -> list[str]:
        """Clauses under the cited id's rule (a sub-letter or number off is the commonest slip), best fitting first."""
        view = self.view(self.against)
        # a keyword ability or action is its own rule (702.90a -> 702.90); elsewhere the three-digit rule
        head = rule.rstrip(ruleid.SUB_LETTERS) if rule.startswith(("701.", "702.")) else rule.split(".")[0]
        pool = [r for r in view.descendants(head) if r != rule]
        return sorted(pool, key=lambda r: -self.fit_own(said, r))[:2]

    def quote_targets(self, said: Reading) -> dict[str, float]:
        """Clauses of the against version holding the quoted text; one that defines the phrase ranks higher."""
        wanted = [norm(q) for q in said.quotes]
        if not wanted:
            return {}
        out: dict[str, float] = {}
        for rule, n in self.view(self.against).nodes.items():
            body = norm(n.text)
            for q, raw in zip(wanted, said.quotes, strict=True):
                if q and q in body:
                    defines = re.search(
                        rf"[“\"]{re.escape(raw.strip(' .'))}\.?[”\"]\s+(?:means?|is|are|refers?)\b", n.text
                    )
                    out[rule] = max(out.get(rule, 0.0), 1.5 if defines else 1.0)
        return out

    def similar(self, base: NodeRecord, limit: int = 3) -> list[str]:
        """Clauses of the against version most like ``base`` in wording (same section and depth)."""
        return [r for _, r in self.likeness(base, limit)]

    def likeness(self, base: NodeRecord, limit: int = 3) -> list[tuple[float, str]]:
        """(Dice similarity of wording, clause) of the against version's clauses most like ``base``."""
        want, section, mine = ruleid.level(base.rule), base.rule[0], _words(base.text)
        scored = []
        for rule, n in self.view(self.against).nodes.items():
            if rule[0] != section or not ruleid.is_clause(rule) or ruleid.level(rule) != want:
                continue
            words = _words(n.text)
            if not words or not mine:
                continue
            dice = 2 * len(mine & words) / (len(mine) + len(words))
            if dice >= 0.6:
                scored.append((dice, rule))
        scored.sort(key=lambda pair: (-pair[0], ruleid.sort_key(pair[1])))
        return scored[:limit]

    def suggest(
        self,
        cite: Cite,
        base: VersionInfo | None,
        status: str,
        said: Reading,
        keywords: list[str],
        first: str | None = None,
    ) -> list[str]:
        """Clause ids probably meant, best first: lineage and the line's own words together; none rather
        than a candidate the line contradicts."""
        A, rule = self.against, cite.rule
        prior: dict[str, float] = {}

        def add(r: str | None, p: float) -> None:
            if r and (status != "mismatch" or r != rule) and self.node(r, A) is not None:
                prior[r] = max(prior.get(r, 0.0), p)

        add(first, 1.2)
        for r, p in self.quote_targets(said).items():
            add(r, p)
        if status in ("orphan", "stale") and base is not None:
            moved = self.successors(rule, base)
            for r in moved:
                add(r, 1.0)
            if status == "stale" and not moved:
                add(rule, 1.0)  # the clause kept its number and changed what it says: read it again
        for r in self.keyword_targets(rule, keywords):
            add(r, 0.9)
        if status == "orphan" and base is None:
            # no edition ever held the id (newer than the KB, or a slip): only a quote or a keyword can
            # name the clause meant; a guess from the words alone is more often wrong than right
            return self._rank(prior, said, rule, first)
        for _, head, _ in said.topics:
            if not KEYWORD_RULE.match(head):  # keywords have their own targets, at the cited sub-position
                for r in self.topic_target(head, cite, said):
                    add(r, 0.6)
        for r in self.holders(rule):
            add(r, 0.5)
        if status == "orphan":
            for a in reversed(ruleid.ancestors(rule)):
                # the sub-letter is gone: its parent, when it kept its id, still speaks of the same thing
                if ruleid.is_clause(a) and (base is None or not self.successors(a, base)):
                    add(a, 0.4)
        if status in ("orphan", "stale") and base is not None and (b := self.node(rule, base)) is not None:
            for k, (dice, r) in enumerate(self.likeness(b)):
                # the same words under a new number are its new home (only the closest: layers 1 and 7 read alike)
                add(r, 1.1 if k == 0 and dice >= SAME_WORDS else 0.3)
        for r in self.same_rule(rule, said) if evidence.mass(said.words, self.idf()) >= 4.0 else []:
            add(r, 0.1)
        return self._rank(prior, said, rule, first)

    def _rank(self, prior: dict[str, float], said: Reading, rule: str, first: str | None = None) -> list[str]:
        fits = {r: self.fit_own(said, r) for r in prior}
        view = self.view(self.against)
        named = [t[0] for t in said.topics] + [frozenset(evidence.stems(k)) for k in said.keywords]
        keep = {}
        for r, p in prior.items():
            if named and r != first and not any(words <= view.stems(r) for words in named):
                continue  # the line names a topic this clause never speaks of (the clause it fits best stays)
            keep[r] = p + 2 * fits[r] + (0.5 if r.split(".")[0] == rule.split(".")[0] else 0.0)
            keep[r] += 0.3 if ruleid.level(r) == ruleid.level(rule) == "rule" else 0.0  # a whole rule for a whole rule
        if any(prior[r] >= 1.0 for r in keep):  # a sure lead: weak guesses stay only with words behind them
            keep = {r: v for r, v in keep.items() if prior[r] >= 1.0 or fits[r] > 0}
        best_fit = max((fits[r] for r in keep), default=0.0)
        if evidence.mass(said.words, self.idf()) >= 4.0 and best_fit >= 0.5:
            keep = {r: s for r, s in keep.items() if fits[r] >= best_fit / 3 or prior[r] >= 1.0}
        return sorted(keep, key=lambda r: (-keep[r], ruleid.sort_key(r)))[:3]


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]+", text.lower()))
