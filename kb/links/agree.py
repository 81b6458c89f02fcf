"""Whether a citation's own words fit the clause it cites: quotes the rules hold, keyword abilities named,
and the line's words fitting another clause far better (``Agreement``, a part of Resolver).
"""

from __future__ import annotations

import difflib
import re

from kb import ruleid
from kb.links import copied, evidence, forms
from kb.links.clauses import norm, rule_head
from kb.links.extract import Cite
from kb.links.reading import COMMENT, Reading, inflections
from kb.store import VersionInfo

_TOPIC_ID = re.compile(r"^(?:70[12]\.\d+|[1-9]\d\d)$")  # a keyword ability or action, or a whole rule
# How far the line's words must favour another clause before they count against the cited one.
STRONG_FIT, WEAK_FIT, MARGIN = 0.75, 0.3, 0.45
QUOTE_FIT = 0.5  # a quote half of whose word weight the cited clause holds speaks of that clause
RARE = 7.0  # idf of a word found in about three clauses or fewer ("megamorph", not "shield")
SIBLING_WORDS = 10.0  # idf of the line's words a neighbouring clause holds, the cited one not (2–3 uncommon words)
SIBLING_FIT = 0.7  # ... how well the line's words must fit that neighbour
SIBLING_MINE = 0.15  # ... when they share next to nothing with the cited clause (a comment about it shares more)
RARE_TITLE = 5.0  # idf of each word of a rule's title that makes naming it evidence (day, night; not "damage")
COPIED_RUN = 8
WRAPPED = 40  # characters of the next comment line that may still belong to the cited id's sentence
MISQUOTE_WORDS = 10  # words after an id that read as the clause's text, not a note about it  # words of a clause's text running on the line: the engine pasted that clause
_KEYWORD = re.compile(r"^70[12]\.\d+$")  # a keyword ability or action
# an id at the head of a line followed by a sentence in the rules' voice, as a table of excerpts writes it
_SENTENCE_AFTER_ID = re.compile(r"^\s*(?i:rule\s+)?\d{3}\.\d+[a-z]{0,2}\.?\s+[A-Z“\"]")


class Agreement:
    """Compares what a line says with the clause it cites (a part of Resolver)."""

    # -- agreement -------------------------------------------------------------------------
    def agrees(
        self, cite: Cite, version: VersionInfo, siblings: list[str], said: Reading
    ) -> tuple[bool | None, list[str]]:
        """Does the citation's quote or keyword fit the clause in ``version``? (None: nothing to compare).

        A quote counts only when the rules hold it somewhere; a keyword only when the clause and its
        sub-rules never mention it."""
        if self.node(cite.rule, version) is None or not said.judged:
            return None, []
        view = self.view(version)
        family = view.family(cite.rule)
        if said.quotes:
            if any(_contained(q, family) for q in said.quotes):
                return True, []
            # A quote is evidence against the clause only as the rules' own words or a phrase they define
            # ("Activate only as a sorcery" means …). Card wording the rules merely mention in passing ("at
            # the beginning of your upkeep", "if it was kicked") is the engine's card text, and a quote from
            # another id cited on the line is that id's.
            theirs = " ".join(view.family(r) for s in siblings if s != cite.rule for r in (s, ruleid.parent(s)) if r)
            if any(self.quoted_against(q, cite.rule, version, theirs) for q in said.quotes):
                return False, []
        if not said.keywords:
            return None, []
        own = self.title_of(cite.rule, version)
        mate = self.paired(cite, siblings, version, said)
        if own in said.keywords or mate == own or (own and set(evidence.stems(own)) <= said.own.keys()):
            return True, []  # the line names the cited keyword ("a band with a flyer … (702.22g)" is banding's)
        wrapped = self.next_line(cite) if cite.scope != "name" else ""
        if own and own in self.named(wrapped[:WRAPPED]):
            return (
                True,
                [],
            )  # the sentence runs on and names it there ("CR 702.2b destroys on the dealer's / deathtouch")
        if mate is not None and mate in self.titles_ever(cite.rule):
            return False, [mate]  # "702.110b & 702.108a: … menace": 702.110 was menace before it moved
        others = {self.title_of(s, version) for s in siblings if s != cite.rule}
        # ... and a keyword whose own rule the comment cites on the line above or below is that id's
        # ("CR 702.90d); toxic / (rule 702.164) has no such clause")
        around = self.previous_line(cite) + "\n" + wrapped if cite.scope != "name" else ""
        others |= {self.title_of(f.rule, version) for f in forms.find_ids(around, self.game) if f.rule != cite.rule}
        # a keyword the cited keyword's own rule speaks of is no other mechanic's ("ward {2}" beside 702.168d:
        # disguise's face-down permanent has ward {2}, 702.168a)
        head = rule_head(cite.rule)
        mentioned = norm(view.family(head) if head != cite.rule and head.startswith(("701.", "702.")) else family)
        foreign = [
            kw
            for kw in said.keywords
            if kw not in others and kw != own and not any(f" {f} " in f" {mentioned} " for f in inflections(kw))
        ]
        if mate is not None:  # "702.40a & 702.110b: provoke … menace": menace is 702.110b's, provoke the other's
            wrong = [mate] if mate in foreign else []
        else:
            wrong = [kw for kw in foreign if kw in said.near]
        return (False, wrong) if wrong else (None, [])

    def titles_ever(self, rule: str) -> set[str]:
        """The titles the keyword ability or action holding ``rule`` had in any edition (702.40 was provoke
        before storm, 701.29 clash before it was monstrosity)."""
        if self._titles is None:
            self._titles = {}
            for _, r, name in self.titled():
                self._titles.setdefault(r, set()).add(name)
        if rule.startswith("502."):  # the keyword abilities until 2009 (502.7 protection), the untap step since
            return self._titles.get(rule.rstrip(ruleid.SUB_LETTERS), set())
        return self._titles.get(rule_head(rule), set())

    def paired(self, cite: Cite, siblings: list[str], version: VersionInfo, said: Reading) -> str | None:
        """The keyword the line pairs with the cited id, when the line cites several. An id whose title, now or
        in an earlier edition, the line or its test name names takes it ("702.27b & 702.72a: Skulk … shadow":
        702.27 was shadow); when as many keywords are left as ids, the k-th goes with the k-th ("702.40a &
        702.110b: provoke … menace", "exalted (CR 702.90), battle cry (CR 702.92)")."""
        text = cite.context.lower()
        at = []
        for s in dict.fromkeys(siblings):
            m = re.search(rf"(?<![\d.]){re.escape(s)}(?![\da-z])", text)
            if m:
                at.append((m.start(), s))
        ids = [s for _, s in sorted(at)]
        if len(ids) < 2 or cite.rule not in ids:
            return None
        kws = self.named(cite.context)
        named = kws + [k for k in said.test_keywords if k not in kws]
        taken = {}
        # a keyword another id on the line holds today is that id's, never one an earlier edition gave this id
        # its title ("702.16b / 702.18: … shroud": 702.16 was once shroud, but 702.18 is shroud now)
        held_now = {self.title_of(s, version) for s in ids} & set(named)
        for pos, s in sorted(at):
            now = self.title_of(s, version)
            ever = [k for k in named if k in self.titles_ever(s) and (k == now or k not in held_now)]
            if (k := self.written_before(text, pos, kws)) is not None:
                taken[s] = k  # "exalted (CR 702.90)": the keyword right before an id in brackets is its
            elif now in named or ever:
                taken[s] = now if now in named else ever[0]
        if cite.rule in taken:
            return taken[cite.rule]
        left = [s for s in ids if s not in taken]
        rest = [k for k in named if k not in taken.values()]  # the line's keywords in order, then its test's
        return rest[left.index(cite.rule)] if len(left) == len(rest) else None

    def written_before(self, text: str, pos: int, keywords: list[str]) -> str | None:
        """The keyword written right before a bracketed id at ``pos`` ("battle cry (CR 702.92)"), if any."""
        m = re.search(r"([a-z][a-z' -]*?)\s*[(\[]\s*(?:cr|c\.r\.|rules?)?\s*$", text[max(0, pos - 60) : pos])
        if not m:
            return None
        return next((k for k in keywords if m.group(1).endswith(k)), None)

    def quoted_against(self, quote: str, rule: str, version: VersionInfo, theirs: str) -> bool:
        """True when ``quote`` is evidence against ``rule``: a phrase the rules define, a sentence of theirs (eight
        words or more), or a shorter phrase of theirs that the cited clause does not itself speak of
        ("during your next untap step" cited to 502.1, the untap step, is card wording about it)."""
        how = self.view(version).states(quote)
        if not how or _contained(quote, theirs):
            return False
        return how == "defined" or len(norm(quote).split()) >= 8 or self.speaks_of(quote, rule, version) < QUOTE_FIT

    def speaks_of(self, quote: str, rule: str, version: VersionInfo) -> float:
        """Share of a quote's word weight the clause (with its sub-rules and titles) holds."""
        return evidence.fit(evidence.line_words([(quote, 1.0)]), self.view(version).stems(rule), self.idf())

    def fit(self, said: Reading, rule: str, version: VersionInfo) -> float:
        """How well the line's words fit a cited clause with its sub-rules."""
        return evidence.fit(said.words, self.view(version).stems(rule), self.idf())

    def fit_own(self, said: Reading, rule: str) -> float:
        """How well the line's words fit a candidate of the against version by its own text (the most
        specific clause wins over the rule holding it)."""
        return evidence.fit(said.words, self.view(self.against).own_stems(rule), self.idf())

    def topic_target(self, head: str, cite: Cite, said: Reading) -> list[str]:
        """Clauses under a titled rule the line names, best fitting first (the same sub-position on a tie)."""
        view = self.view(self.against)
        tail = cite.rule[len(cite.rule.split(".")[0]) :] if "." in cite.rule else ""
        letters = tail.lstrip(".0123456789")
        same = head + tail if "." not in head else (head + letters if letters else None)
        if _KEYWORD.match(cite.rule):
            same = head  # a whole keyword rule cited means a whole rule ("MONSTROSITY (Rule 702.94)")
        pool = [head, *view.descendants(head)]
        scored = sorted(pool, key=lambda r: (-(self.fit_own(said, r) + (0.05 if r == same else 0)), ruleid.sort_key(r)))
        return scored[:2]

    def contradicted(self, cite: Cite, version: VersionInfo, said: Reading, siblings: list[str] = ()) -> str | None:
        """A clause of the against version that the line's words fit far better than ``cite.rule`` of
        ``version``: one the cited id's lineage leads to, one of a keyword ability or action the line names
        that the cited clause never speaks of, or a neighbour under the same rule that a rare word of the line
        or its own words copied whole point to (never another id the line cites: the words it shares are that
        id's). Everyday words fitting some other rule better prove nothing: real engines' comments are full of
        them."""
        if not said.judged or not self.speaks(said) or len(set(siblings) | set(said.beside)) > 1:
            return None  # "CR 106.3 + CR 614.1a: …": the words describe the ids together, not one of them
        # a rule cited by its number and its title (a keyword rule or a whole rule, not a clause under it)
        title = self.view(version).title_of(cite.rule) if _TOPIC_ID.match(cite.rule) else ""
        if title and title != "general" and set(evidence.stems(title)) <= said.own.keys():
            return None  # "See rule 701.28, “Convert.”": the line names what it cites
        mine = self.fit(said, cite.rule, version)
        family = self.view(version).stems(cite.rule)
        # a topic the line names outright ("day and night") that the cited clause never speaks of
        foreign = any(
            not (words & family) and sum(self.idf().of(w) for w in words) >= 5.0 for words, _, _ in said.topics
        )
        if mine > (STRONG_FIT if foreign else WEAK_FIT):
            return None
        margin = MARGIN / 2 if foreign else MARGIN
        # the words another id on the line shares are that id's: its clause, sub-rules and rule are no rivals
        theirs = {rule_head(s) for s in siblings if s != cite.rule}
        rivals = list(self.holders(cite.rule))
        for words, head, _ in said.topics:
            # a keyword ability or action, or a rule whose every title word is rare ("day and night")
            named = _KEYWORD.match(head) or min(self.idf().of(w) for w in words) >= RARE_TITLE
            if named and rule_head(head) != rule_head(cite.rule) and not words & family:
                rivals += self.topic_target(head, cite, said)[:1]  # "(no vigilance)" beside 510.1
        # a neighbour under the same rule only on a rare word of the line that the cited clause never uses
        # ("megamorph" above 702.37d) or on a sentence of its text the line copies ("Enchantment subtypes are
        # always a single word …" cited as 303.4): shared everyday words ("player", "trigger") prove nothing
        rare = {w for w in said.own if self.idf().of(w) >= RARE and w not in family}
        near = [
            *self.same_rule(cite.rule, said, words_only=True),
            *(
                r
                for _, head, _ in said.topics
                if rule_head(head) == rule_head(cite.rule)
                for r in self.topic_target(head, cite, said)[:1]
            ),
        ]
        # ... or a neighbour in the same list that the line's uncommon words name, the cited clause sharing next to
        # nothing with them (it then needs to fit a little less: the list it is in says the rest)
        close = set()
        if mine <= SIBLING_MINE:
            close = {r for r in [*rivals, *near] if self.sibling_words(cite, r, said, family) >= SIBLING_WORDS}
        rivals += [
            r for r in near if rare & self.view(self.against).own_stems(r) or self.copies_text(cite, r) or r in close
        ]
        lineage = set(self.holders(cite.rule))
        scored = [
            (self.fit_own(said, r), r)
            for r in dict.fromkeys(rivals)
            if r != cite.rule and (r in lineage or rule_head(r) not in theirs)
        ]
        scored = [
            (f, r) for f, r in scored if f - mine >= margin and (f >= STRONG_FIT or (r in close and f >= SIBLING_FIT))
        ]
        # the cited id's own lineage first among rivals that fit about as well
        best = max(scored, key=lambda fr: (fr[0] + (0.15 if fr[1] in lineage else 0.0), fr[1]), default=None)
        return best[1] if best else None

    def sibling_words(self, cite: Cite, rule: str, said: Reading, family: frozenset[str]) -> float:
        """The weight (idf) of the line's own words that a clause next to the cited one, under the same parent,
        holds and the cited clause never uses: "704.5u: Saga with final chapter completed" is 704.5s's saga,
        one letter off in a list whose letters shift with every edition. 0 for a clause elsewhere."""
        if ruleid.parent(rule) != ruleid.parent(cite.rule) or "." not in cite.rule:
            return 0.0
        theirs = self.view(self.against).own_stems(rule)
        return sum(self.idf().of(w) for w in said.own if w in theirs and w not in family)

    def misquoted(self, cite: Cite, said: Reading, siblings: list[str] = ()) -> bool:
        """True when the line sets its own words after the cited id as that clause's text ("702.152a Daunt is an
        evasion ability. …" in a table of excerpts) and the clause, which no edition ever worded so, speaks of
        something else. A note about the id is not its text: one that runs on in lower case ("903.4c throws
        away …", "606.4 costs are paid …"), sets a mark after it ("122.2 — counters …", "509.1i / 509.2a: …")
        or cites another id beside it."""
        if not said.judged or cite.scope == "name" or len(set(siblings) - {cite.rule}) > 0:
            return False
        line = COMMENT.sub("", cite.context, count=1)
        lead, words = copied.fragment(line)
        if lead != cite.rule or not copied.enough(words) or len(words.split()) < MISQUOTE_WORDS:
            return False
        if not _SENTENCE_AFTER_ID.match(line):
            return False
        return self.fit(said, cite.rule, self.against) < WEAK_FIT

    def copies_text(self, cite: Cite, rule: str) -> bool:
        """True when the line holds a sentence's worth (eight words running) of the clause's own text."""
        n = self.view(self.against).nodes.get(rule)
        if n is None:
            return False
        a, b = norm(cite.context).split(), norm(n.text).split()
        m = difflib.SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
        return m.size >= COPIED_RUN


def _contained(quote: str, body: str) -> bool:
    """True if most of ``quote`` appears in ``body`` (punctuation and case ignored)."""
    q, b = norm(quote), norm(body)
    if q in b:
        return True
    qw, bw = q.split(), b.split()
    m = difflib.SequenceMatcher(None, qw, bw, autojunk=False)
    matched = sum(block.size for block in m.get_matching_blocks())
    return matched >= 0.85 * len(qw)
