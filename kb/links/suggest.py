"""Suggestions: the clauses a citation probably meant, and why the first one.

Candidates come from the cited id's lineage (where its text went), the keyword abilities and titled rules
the line and the code around it name (the mechanic a test is about: its name, file, identifiers), the text
it quotes, clauses of similar wording, the clauses next to it by number, and what a search of the line's
words ranks first. They are ranked by how well the line's words fit each (``Suggestions``, a part of
Resolver). A cited id that does not exist always gets the nearest live clause by number, lineage and
wording, unless it numbers a keyword rule past the newest edition (a new mechanic).
"""

from __future__ import annotations

import re

from kb import ruleid
from kb.links import evidence, searchrank, shifts
from kb.links.clauses import norm, rule_head
from kb.links.extract import Cite, spanned
from kb.links.reading import Reading
from kb.store import NodeRecord, VersionInfo
from kb.versions.history import successor

KEYWORD_OR_ACTION = re.compile(r"^70[12]\.\d+$")
RARE_ACTION = 6.0  # idf of each word of a keyword action's name for the name to point to it in code
# keyword actions whose names are everyday words in programs (DamageSupport, learnRate, voteCount)
_CODE_WORDS = frozenset(
    ["support", "learn", "adapt", "vote", "endure", "discover", "abandon", "behold", "triple", "assemble", "harness"]
)
SAME_WORDS = 0.9  # Dice similarity of two clauses' words that makes them the same clause renumbered
NAMES = 0.25  # weight of the test's, file's and code's names beside the line's words when choosing a sub-clause
SAME_PLACE = 0.15  # how much better another sub-clause must fit than the one at the cited sub-position
SEARCHED = 10  # search hits taken as candidates
BESIDE = 2.5  # the id the test's own marker cites, holding the dead one: above any fit (2 x fit <= 2)
WEAK, WEAK_FIT = 0.5, 0.2
SPEAKS, UNFIT = (
    6.0,
    0.15,
)  # a line saying this much that fits its id's lineage this little meant another clause  # a candidate below this prior needs words fitting it at least this well
# Why a candidate was offered, by the name of its source (the first suggestion's reason goes in the JSON).
REASONS = {
    "fit": "the clause the line's words fit better",
    "quote": "the clause holding the quoted text",
    "lineage": "where the cited clause went (its lineage)",
    "self": "the cited clause as it reads now",
    "keyword": "the rule of {0}, named on the line",
    "former": "the rule of {0}, which the cited number held in an earlier edition",
    "about": "the rule of {0}, named by the test, file or code around it",
    "topic": "the rule titled {0}, named on the line",
    "history": "clauses that held this id before",
    "parent": "the nearest live clause by number (its parent)",
    "own rule": "a clause of the cited id's own rule, which the line names",
    "next rule": "the same clause under the rule numbered next to it",
    "beside": "the clause cited beside it (the test's marker), which holds it",
    "same words": "the same words under a new number",
    "wording": "a clause of similar wording",
    "neighbour": "a clause next to it under the same rule, by number and wording",
    "before": "the clause numbered right before it, its parent's last",
    "search": "the clause search ranks first for the line's words",
    "shift": "the same clause under {0}: the {1} absent ids this tree cites under {2} all stand there (a newer numbering)",
}

_LINEAGE = {REASONS["lineage"], REASONS["same words"]}


class Suggestions:
    """Candidate clauses and their ranking (a part of Resolver)."""

    # -- lineage -------------------------------------------------------------------------------
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

    # -- what the words name -------------------------------------------------------------------
    def keyword_rule(self, keyword: str) -> str | None:
        """The against version's rule titled ``keyword`` (702.118 for skulk, 701.30 for clash)."""
        held = sorted(self.keywords().get(keyword, ()))
        return next((head for vid, head in held if vid == self.against.id), None) or self.actions().get(keyword)

    def former(self, cite: Cite, said: Reading) -> list[str]:
        """Keywords the line or the code around it names that the cited id's rule was titled in an earlier
        edition: the engine read that edition ("clashLog" beside 701.29c: 701.29 was clash)."""
        now = self.view(self.against).title_of(rule_head(cite.rule))
        names = [
            *said.line_keywords,
            *self.named_actions(" ".join(said.line)),
            *said.about_keywords,
            *said.file_keywords,
        ]
        return [k for k in dict.fromkeys(names) if k != now and k in self.titles_ever(cite.rule)]

    def actions(self) -> dict[str, str]:
        """Keyword actions of the against version whose names only the rules use (clash, proliferate, scry):
        title -> rule. "Counter", "create" or "support" name no mechanic in a program's identifiers."""
        if self._actions is None:
            self._actions = {}
            for rule, n in self.view(self.against).nodes.items():
                name = n.title.lower()
                words = evidence.stems(name)
                action = KEYWORD_OR_ACTION.match(rule) and rule.startswith("701.") and name not in _CODE_WORDS
                if action and words and min(self.idf().of(w) for w in words) >= RARE_ACTION:
                    self._actions[name] = rule
        return self._actions

    def named_actions(self, text: str) -> list[str]:
        """Rare keyword actions ``text`` names, inflected or not ("clashingCard" names clash)."""
        low = f" {text.lower()} "
        stem = {a: re.escape(a[:-1] if a.endswith("e") else a) for a in self.actions()}
        return [a for a in self.actions() if re.search(rf"(?<![a-z]){stem[a]}(?:e|es|s|ed|d|ing)?(?![a-z])", low)]

    def best_under(self, head: str, cite: Cite, said: Reading, name: str = "") -> list[str]:
        """Clauses of a rule the words name, best fitting first: a clause cited by a clause id means one of its
        sub-clauses (the one the line's other words fit: "can't be blocked by creatures with greater power" is
        702.118b), a whole rule cited means the rule. On a tie the cited sub-position, then the first."""
        view = self.view(self.against)
        if head not in view.nodes:
            return []
        if whole(cite.rule):
            return [head]
        tail = cite.rule.split(".", 1)[1].lstrip("0123456789")
        same = head + tail if "." in head else head + cite.rule[len(cite.rule.split(".")[0]) :]
        drop = set(evidence.stems(name)) | set(evidence.stems(view.title_of(head)))
        # the line's own words choose; the test's and the code's names only break ties ("exalted" in a test
        # named for a lone attacker still means 702.83a, not 702.83b's "attacks alone")
        line = {s: w for s, w in said.line.items() if s not in drop}
        names = {s: w for s, w in {**said.about, **said.words}.items() if s not in drop and s not in line}
        pool = [r for r in view.descendants(head) if ruleid.is_clause(r)] or [head]

        def score(r: str) -> tuple:
            stems = view.own_stems(r)
            fit = evidence.fit(line, stems, self.idf()) + NAMES * evidence.fit(names, stems, self.idf())
            return (-round(fit + (SAME_PLACE if r == same else 0.0), 2), ruleid.sort_key(r))

        return sorted(pool, key=score)[:2]

    def keyword_targets(self, cite: Cite, keywords: list[str], said: Reading) -> list[tuple[str, str]]:
        """(clause, keyword) for each keyword's rule in the against version, best fitting sub-clause first."""
        out = []
        for kw in keywords:
            head = self.keyword_rule(kw)
            out += [(r, kw) for r in (self.best_under(head, cite, said, kw)[:1] if head else [])]
        return out

    def quote_targets(self, said: Reading) -> dict[str, float]:
        """Clauses of the against version holding the quoted text; one that defines the phrase ranks higher."""
        view = self.view(self.against)
        # a phrase many clauses say ("for the rest of the game") or only quote as card wording points to none
        quotes = [q for q in said.quotes if view.states(q)]
        wanted = [norm(q) for q in quotes]
        if not wanted:
            return {}
        out: dict[str, float] = {}
        for rule, n in view.nodes.items():
            body = norm(n.text)
            for q, raw in zip(wanted, quotes, strict=True):
                if q and q in body:
                    defines = re.search(
                        rf"[“\"]{re.escape(raw.strip(' .'))}\.?[”\"]\s+(?:means?|is|are|refers?)\b", n.text
                    )
                    out[rule] = max(out.get(rule, 0.0), 1.5 if defines else 1.0)
        return out

    def same_rule(self, rule: str, said: Reading, *, words_only: bool = False) -> list[str]:
        """Clauses under the cited id's rule (a sub-letter or number off is the commonest slip), best fitting first
        (by the line's words and the code's names, or by the line's words alone)."""
        view = self.view(self.against)
        pool = [r for r in view.descendants(rule_head(rule)) if r != rule]
        fit = self.fit_own if words_only else self.fit_code
        return sorted(pool, key=lambda r: -fit(said, r))[:2]

    def nearest(self, rule: str) -> str | None:
        """The nearest live clause by number: the closest ancestor the against version holds (613.1g for the
        "613.1ge" of an engine that numbered layer 7's sublayers under it)."""
        view = self.view(self.against)
        letters = len(rule) - len(rule.rstrip(ruleid.SUB_LETTERS))
        tries = [rule[:-k] for k in range(1, letters)] + list(reversed(ruleid.ancestors(rule)))
        return next((a for a in tries if a in view.nodes), None)

    def last_before(self, rule: str) -> str | None:
        """The live clause numbered right before an id past its parent's last (714.3c -> 714.3b when 714.3 ends at
        b, 704.5aa -> 704.5z): nearer by number than the parent. None for an id inside the numbering (a gap)."""
        view = self.view(self.against)
        up = ruleid.ancestors(rule)
        if not up or up[-1] not in view.nodes:
            return None
        same = [k for k in view.kids.get(up[-1], ()) if ruleid.level(k) == ruleid.level(rule)]
        last = max(same, key=ruleid.sort_key, default=None)
        return last if last is not None and ruleid.sort_key(rule) > ruleid.sort_key(last) else None

    def next_rules(self, rule: str, *, sub_rules: bool = True) -> list[str]:
        """The same clause under the rules numbered next to the cited one (724.1c -> 723.1c, 725.1c), or under the
        sub-rules next to its own (310.12a -> 310.11a, 310.13a): an edition that inserted or dropped a rule or a
        sub-rule shifted the numbers after it by one. Not the sub-rules for an id a range spans ("602.2b-h" past
        602.2b is the range's overreach, not a shift)."""
        view = self.view(self.against)
        # a sub-rule's own neighbours (310.12 -> 310.11) only with the tree's evidence (kb.links.shifts)
        out = [
            dst + rule[len(src) :]
            for src, dst in shifts.neighbours(rule)
            if "." not in src or sub_rules and src != rule
        ]
        return [r for r in out if r in view.nodes]

    def fit_code(self, said: Reading, rule: str, *, whole_rule: bool = False) -> float:
        """How well the line's words and the names of the code around it fit a candidate's own text (a keyword
        rule's, for a whole rule cited: its sub-rules are what it says)."""
        view = self.view(self.against)
        stems = view.stems(rule) if whole_rule and KEYWORD_OR_ACTION.match(rule) else view.own_stems(rule)
        return evidence.fit({**said.about, **said.words}, stems, self.idf())

    def own_rule(self, cite: Cite, said: Reading) -> list[str]:
        """Clauses of the cited keyword ability or action when the line names it ("Sacrifice" above 701.21d): the
        number is right, the letter off."""
        head = rule_head(cite.rule)
        title = self.view(self.against).title_of(head) if KEYWORD_OR_ACTION.match(head) and head != cite.rule else ""
        stems = set(evidence.stems(title))
        if not stems or not stems <= said.own.keys():
            return []
        return self.best_under(head, cite, said, title)

    def likeness(self, base: NodeRecord, limit: int = 3) -> list[tuple[float, str]]:
        """(Dice similarity of wording, clause) of the against version's clauses most like ``base``, at its depth
        (in any section: the 2009 renumbering moved whole sections, 502.46a Convoke became 702.51a)."""
        want, mine = ruleid.level(base.rule), _words(base.text)
        if not mine:
            return []
        scored = []
        for rule, n in self.view(self.against).nodes.items():
            if not ruleid.is_clause(rule) or ruleid.level(rule) != want:
                continue
            words = _words(n.text)
            if words:
                dice = 2 * len(mine & words) / (len(mine) + len(words))
                if dice >= 0.6:
                    scored.append((dice + (0.01 if rule[0] == base.rule[0] else 0.0), rule))
        scored.sort(key=lambda pair: (-pair[0], ruleid.sort_key(pair[1])))
        return scored[:limit]

    def searched(self, said: Reading) -> list[str]:
        """Clauses of the against version search ranks first for the line's words and the code's names."""
        if not said.query.strip():
            return []
        key = said.query
        if key not in self._searched:
            self._searched[key] = searchrank.ranked(
                self.store, said.query, game=self.game, lang=self.lang, version=self.against.label, limit=SEARCHED
            )
        return [r for r in self._searched[key] if r in self.view(self.against).nodes]

    # -- suggestions -----------------------------------------------------------------------------
    def suggest(
        self,
        cite: Cite,
        base: VersionInfo | None,
        status: str,
        said: Reading,
        keywords: list[str],
        first: str | None = None,
    ) -> tuple[list[str], dict[str, str]]:
        """(clause ids probably meant, best first; why each was offered): lineage and the line's words together,
        none a candidate the line contradicts. An absent id always gets one unless it is newer than the KB."""
        prior: dict[str, float] = {}
        why: dict[str, str] = {}

        def add(r: str | None, p: float, reason: str, *names) -> None:
            ok = r and (status != "mismatch" or r != cite.rule) and self.node(r, self.against) is not None
            if ok and p > prior.get(r, -1.0):
                prior[r], why[r] = p, REASONS[reason].format(*names)

        if first and whole(cite.rule):
            first = self.whole_first(cite.rule, first, said)
        add(first, 1.2, "fit")
        for r, p in self.quote_targets(said).items():
            add(r, p, "quote")
        went = self._from_lineage(cite.rule, base, status, add)
        moved = shifts.shifted(cite.rule, self.shifts) if status == "orphan" and not spanned(cite) else []
        for r, src, n in moved:  # the engine follows a newer numbering, which its other citations show
            add(r, 1.0 + 0.02 * min(n, 10), "shift", r[: len(r) - len(cite.rule) + len(src)], n, src)
        # the rule the cited number stands for: its own, or the one the tree's numbering moves it to
        heads = {cite.rule.split(".")[0], *(r.split(".")[0] for r, _, _ in moved)}
        if status != "stale" and evidence.mass(said.line, self.idf()) >= SPEAKS:
            # the line says something of its own and it is not what the cited id's text became: the engine read
            # another edition's numbering ("same creature may be chosen for both modes" under 114.6c)
            for r in [r for r, p in prior.items() if p >= 1.0 and why[r] in _LINEAGE]:
                if self.fit_code(said, r) < UNFIT:
                    prior[r] = 0.45
        for r, kw in self.keyword_targets(cite, keywords, said):
            add(r, 0.9, "keyword", kw)
        for r, kw in self.keyword_targets(cite, self.former(cite, said), said) if not keywords else []:
            add(r, 0.95 if went else 1.05, "former", kw)  # where the clause itself went says more than its rule
        if status == "orphan" and base is None and self.newer(cite.rule):
            # a mechanic printed after the newest edition: only a quote or a keyword paired with it names a clause
            return self._rank(prior, said, cite.rule, first, [], heads), why
        self._from_words(cite, status, said, keywords, prior, add)
        if status == "orphan" and base is None:  # an id no edition held: a clause that was there has its lineage
            add(self.last_before(cite.rule), 0.5, "before")
        # search, the slowest source, is asked only when nothing surer (lineage, a keyword, a quote) leads
        sure = any(p >= 1.0 for p in prior.values()) or keywords
        hits = self.searched(said) if status != "stale" and not sure else []
        for k, r in enumerate(hits[:3]):
            add(r, 0.35 - 0.05 * k, "search")
        ranked = self._rank(prior, said, cite.rule, first, hits, heads)
        if not ranked and status == "orphan" and (near := self.nearest(cite.rule)):
            ranked, why[near] = [near], REASONS["parent"]
        return ranked, why

    def whole_first(self, rule: str, first: str, said: Reading) -> str:
        """A whole rule cited means a whole rule: of the rule holding the clause the words fit best and the rules of
        the same kind the line names by title, the one its words fit best ("MONSTROSITY ABILITIES (Rule 702.94)"
        -> 701.37; "(CR 731, "Day and Night")" -> 730; "Search your library …, then shuffle (CR 701.19)" -> 701.23,
        not shuffle's 701.24, whose sub-clause the words fit best)."""
        kind = KEYWORD_OR_ACTION.match(rule) is not None
        heads = [rule_head(first), *(head for _, head, _ in said.topics)]
        heads = [h for h in dict.fromkeys(heads) if whole(h) and (KEYWORD_OR_ACTION.match(h) is not None) == kind]
        heads = [h for h in heads if h != rule and self.node(h, self.against) is not None]
        if not heads:
            return first
        return max(heads, key=lambda h: (round(self.fit_code(said, h, whole_rule=True), 3), h == rule_head(first)))

    def _from_lineage(self, rule: str, base: VersionInfo | None, status: str, add) -> list[str]:
        """Offer where the cited clause went (or the clause itself, changed); returns its moves."""
        if status not in ("orphan", "stale") or base is None:
            return []
        moved = self.successors(rule, base)
        for r in moved:
            add(r, 1.0, "lineage")
        if status == "stale" and not moved:
            add(rule, 1.0, "self")  # the clause kept its number and changed what it says: read it again
        if (b := self.node(rule, base)) is not None:
            for k, (dice, r) in enumerate(self.likeness(b)):
                # the same words under a new number are its new home (only the closest: layers 1 and 7 read alike)
                same = k == 0 and dice >= SAME_WORDS
                add(r, 1.1 if same else 0.3, "same words" if same else "wording")
        return moved

    def _from_words(self, cite: Cite, status: str, said: Reading, keywords: list[str], prior: dict, add) -> None:
        """Offer the rules the code's names and the line's topics name, the id's history and its neighbours."""
        # the names of the code speak when neither the line nor the cited id's lineage does
        sure = keywords or status == "stale" or any(p >= 1.0 for p in prior.values())
        for r, kw in self.keyword_targets(cite, said.about_keywords, said) if not sure else []:
            add(r, 0.7, "about", kw)
        for r, kw in self.keyword_targets(cite, said.file_keywords, said) if not sure else []:
            add(r, 0.5, "about", kw)
        for r in self.own_rule(cite, said) if status == "orphan" else []:
            add(r, 1.0, "own rule")
        for _, head, title in said.topics:
            if not head.startswith("702."):  # keywords have their own targets
                for r in self.best_under(head, cite, said):
                    add(r, 0.6, "topic", title)
        for r in self.holders(cite.rule):
            add(r, 0.5, "history")
        if status == "orphan":
            add(self.nearest(cite.rule), 0.4, "parent")
            for r in said.beside:
                if r in ruleid.ancestors(cite.rule) or r == self.nearest(cite.rule):
                    add(r, BESIDE, "beside")
            for r in self.same_rule(cite.rule, said):
                add(r, 0.3, "neighbour")
            for r in self.next_rules(cite.rule, sub_rules=not spanned(cite)):
                add(r, 0.6, "next rule")
        elif evidence.mass(said.words, self.idf()) >= 4.0:
            for r in self.same_rule(cite.rule, said):
                add(r, 0.1, "neighbour")

    def newer(self, rule: str) -> bool:
        """True for a keyword rule (or a clause of one) numbered past the newest edition's last: a new mechanic."""
        head = rule.rstrip(ruleid.SUB_LETTERS)
        return head.startswith(("701.", "702.")) and head.count(".") == 1 and self.view(self.against).newer_than(head)

    def _rank(
        self, prior: dict[str, float], said: Reading, rule: str, first: str | None, hits: list[str], heads: set[str]
    ) -> list[str]:
        fits = {r: self.fit_code(said, r, whole_rule=whole(rule)) for r in prior}
        view = self.view(self.against)
        kws = [frozenset(evidence.stems(k)) for k in said.keywords]
        # the topics the line itself names (a test's name may speak of the whole scenario, not this clause)
        named, plain = [t[0] for t in said.topics if t[0] <= said.line.keys()] + kws, said.plain + kws
        keep = {}
        for r, p in prior.items():
            # the line names a topic this clause never speaks of (the clause it fits best stays; a sure lead
            # stays unless the topic is written as a word, not only inside a card name such as "Spark Double")
            speaks = [words <= view.stems(r) for words in (plain if p >= 1.0 else named)]
            if r != first and speaks and not any(speaks):
                continue
            keep[r] = p + 2 * fits[r] + (0.5 if r.split(".")[0] in heads else 0.0)
            keep[r] += 0.3 if whole(r) and whole(rule) else 0.0  # a whole rule for a whole rule
            keep[r] += 0.4 / (1 + hits.index(r)) if r in hits else 0.0  # search's order among the candidates
        if any(prior[r] >= 1.0 for r in keep):  # a sure lead: weak guesses stay only with words behind them
            keep = {r: v for r, v in keep.items() if prior[r] >= 1.0 or fits[r] > 0}
        # a neighbour or a search hit the words hardly fit is no suggestion ("Daunt is an evasion ability")
        keep = {r: v for r, v in keep.items() if prior[r] >= WEAK or fits[r] >= WEAK_FIT}
        best_fit = max((fits[r] for r in keep), default=0.0)
        if evidence.mass(said.words, self.idf()) >= 4.0 and best_fit >= 0.5:
            keep = {r: s for r, s in keep.items() if fits[r] >= best_fit / 3 or prior[r] >= 1.0}
        return sorted(keep, key=lambda r: (-keep[r], ruleid.sort_key(r)))[:3]


def whole(rule: str) -> bool:
    """True for a whole rule: a three-digit rule or a keyword ability or action (702.91, not 702.91a)."""
    return "." not in rule or bool(KEYWORD_OR_ACTION.match(rule))


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]+", text.lower()))
