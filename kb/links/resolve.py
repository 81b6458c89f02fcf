"""Resolve citations against a version: ok / stale / orphan / mismatch, validity window, suggestions.

A verdict other than ``ok`` needs evidence: a clause that changed what it says (not only its wording),
a quote found in the rules but not in the cited clause, a keyword or topic the clause does not speak of,
or the line's own words (its test, function and file names included) fitting another clause of the
cited id's lineage far better than the cited one.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from datetime import date

from kb import ruleid
from kb.errors import NotFound
from kb.links import copied, evidence, forms
from kb.links.clauses import View, norm
from kb.links.extract import Cite
from kb.store import NodeRecord, Store, VersionInfo
from kb.versions import editorial, order
from kb.versions.history import successor, valid_window

_KEYWORD_RULE = re.compile(r"^702\.\d+$")  # keyword abilities: "702.90. Battle Cry"
_TOPIC_ID = re.compile(r"^(?:70[12]\.\d+|[1-9]\d\d)$")  # a keyword ability or action, or a whole rule
# A keyword written as a verb ("to absorb", "can absorb") is not the ability.
_VERB_BEFORE = re.compile(
    r"(?:\b(?:to|can|cannot|can't|will|would|may|might|must|should|could|does|do|did|doesn't)\s+)$"
)
# ... nor is a participle with its complement ("library exhausted with", "persisted by", "cascade to").
_VERB_AFTER = re.compile(r"\s+(?:by|with|from|into|in|on|onto|to|at|for|through|as)\b")
_COMMENT = re.compile(r"^\s*(?://+|#+|\*+|/\*+|--|;+|\"\"\"|''')\s*")
_REASONS = {
    "pronoun": "pronouns",
    "typography": "quote style",
    "reference": "cross-references renumbered",
    "note": "notes",
    "example": "examples",
    "typo": "typo fix",
    "rename": "renamed terms",
    "spacing": "spacing",
}
# How far the line's words must favour another clause before they count against the cited one.
STRONG_FIT, WEAK_FIT, MARGIN = 0.75, 0.3, 0.45
SAME_WORDS = 0.9  # Dice similarity of two clauses' words that makes them the same clause renumbered
QUOTE_FIT = 0.5  # a quote half of whose word weight the cited clause holds speaks of that clause
RARE = 5.0  # idf of a word found in about 20 clauses or fewer


def pick_lang(store: Store, game: str) -> str | None:
    """English when the store has it (citations use English numbering), else any language."""
    if store.latest(game, "en"):
        return "en"
    langs = [v.lang for v in store.versions(game)]
    return langs[-1] if langs else None


@dataclass
class Reading:
    """What one citation's own words say."""

    words: dict[str, float]  # stem -> weight (line, previous comment line, test name, file name)
    own: dict[str, float]  # the same without the file name: enough to speak against a clause on its own
    quotes: list[str]
    keywords: list[str]  # keyword abilities named anywhere on the line
    near: list[str]  # ... and within 40 characters of the id
    topics: list[tuple[frozenset[str], str, str]]  # titles the words name: (stems, rule, title)
    # False when the words are not about this one id: a range's members share the range's words, and an
    # id inside a line copied from the rules is the rules' own cross-reference.
    judged: bool = True


class Resolver:
    """Resolves citations of one game against one version, caching what several citations share."""

    def __init__(self, store: Store, game: str, against: str | None = None):
        self.store, self.game = store, game
        self.lang = pick_lang(store, game)
        if self.lang is None:
            raise NotFound(f"no versions of {game} in the knowledge base")
        if against and against != "latest" and not any(v.label == against for v in store.versions(game, self.lang)):
            # A Japanese label (20231117.0) names its own language's version.
            self.lang = next((v.lang for v in store.versions(game) if v.label == against), self.lang)
        self.chain = store.versions(game, self.lang)
        if against and against != "latest":
            self.against = next((v for v in self.chain if v.label == against), None)
            if self.against is None:
                newest = ", ".join(v.label for v in self.chain[-3:])
                raise NotFound(f"unknown version {against!r} of {game}/{self.lang} (newest: {newest})")
        else:
            self.against = store.get_version(game, self.lang, "latest")
        self.note = ""
        self._to_english(store, game)
        self._rv: dict[str, dict[int, NodeRecord]] = {}
        self._windows: dict[tuple[str, str], tuple[str | None, str | None]] = {}
        self._keywords: dict[str, set[tuple[int, str]]] | None = None
        self._keyword_re: re.Pattern | None = None
        self._views: dict[int, View] = {}
        self._idf: evidence.Weights | None = None
        self._lines: tuple[str, list[str]] = ("", [])
        self._holders: dict[str, list[str]] = {}
        self._copies: copied.Copies | None = None

    def _to_english(self, store: Store, game: str) -> None:
        """Resolve against the English edition a partial translation renders (it holds every clause).

        Engines cite English numbering; a Japanese piece (20260116.0, the old 5.5.0.0) holds a few
        clauses, so absence there proves nothing, and the nearest Japanese version holding a clause
        may be years away. The English edition of the same date (or the estimated one) is the text.
        """
        a = self.against
        if a.lang == "en" or not a.partial or not store.latest(game, "en"):
            return
        label = order.english_label(a.label) or (a.meta.get("estimated") or {}).get("best")
        english = next((v for v in store.versions(game, "en") if v.label == label), None) if label else None
        if english is None or english.partial:
            return
        self.note = (
            f"{a.lang} {a.label} is partial; resolved against en {english.label}, the English edition it renders"
        )
        self.lang, self.chain, self.against = "en", store.versions(game, "en"), english

    # -- lookups ---------------------------------------------------------------------------
    def node(self, rule: str, version: VersionInfo) -> NodeRecord | None:
        if rule not in self._rv:
            self._rv[rule] = {v.id: n for v, n in self.store.rule_versions(self.game, self.lang, rule)}
        return self._rv[rule].get(version.id)

    def view(self, version: VersionInfo) -> View:
        if version.id not in self._views:
            self._views[version.id] = View(self.store, version)
        return self._views[version.id]

    def idf(self) -> evidence.Weights:
        if self._idf is None:
            self._idf = evidence.Weights(self.view(self.against).clause_docs())
        return self._idf

    def written_edition(self, cite: Cite) -> VersionInfo | None:
        """The edition a citation was written against: the one its annotation names by label
        ("written against 20211115"), else the one in force on its date."""
        if not cite.written:
            return None
        if cite.written_from in ("annotation", "file", "date"):
            label = cite.written.replace("-", "")
            named = next((v for v in self.chain if v.label == label and not v.partial), None)
            if named is not None:
                return named
        return self.in_force(date.fromisoformat(cite.written))

    def in_force(self, day: date) -> VersionInfo | None:
        """The edition in force on ``day`` (effective date, else its label date)."""
        best = None
        for v in self.chain:
            when = v.effective.isoformat() if v.effective else v.sort_date
            if not v.partial and when and when <= day.isoformat():
                best = v
        return best

    def window(self, rule: str, version: VersionInfo) -> tuple[str | None, str | None]:
        key = (rule, version.label)
        if key not in self._windows:
            self._windows[key] = valid_window(self.store, self.game, self.lang, rule, version.label)
        return self._windows[key]

    def covers(self, window: tuple[str | None, str | None], version: VersionInfo) -> bool:
        """True if ``version`` lies inside an edition window."""
        labels = [v.label for v in self.chain]
        lo, hi = window
        if lo is None or hi is None or version.label not in labels:
            return False
        return labels.index(lo) <= labels.index(version.label) <= labels.index(hi)

    def last_holding(self, rule: str) -> VersionInfo | None:
        """The newest version up to ``against`` holding ``rule`` (else any version holding it)."""
        self.node(rule, self.against)
        held = [v for v in self.chain if v.id in self._rv[rule]]
        before = [v for v in held if v.sort_date <= self.against.sort_date]
        return (before or held or [None])[-1]

    def keywords(self) -> dict[str, set[tuple[int, str]]]:
        """Keyword-ability titles (lower case) of every version -> {(version id, rule)}."""
        if self._keywords is None:
            self._keywords = {}
            ids = {v.id for v in self.chain}
            for vid, rule, title, text in self.store.clause_texts_under("702."):
                name = _heading(title, text)
                if vid in ids and _KEYWORD_RULE.match(rule) and name and name != "general":
                    self._keywords.setdefault(name, set()).add((vid, rule))
        return self._keywords

    def title_of(self, rule: str, version: VersionInfo) -> str:
        head = rule if _KEYWORD_RULE.match(rule) else ruleid.parent(rule)
        n = self.node(head, version) if head else None
        return _heading(n.title, n.text) if n else ""

    # -- what the line says ----------------------------------------------------------------
    def previous_line(self, cite: Cite) -> str:
        """The comment line right above the citation, markers stripped ("" when it is code or unreadable)."""
        if not cite.path or cite.line < 2:
            return ""
        if self._lines[0] != cite.path:
            try:
                with open(cite.path, encoding="utf-8", errors="replace") as fh:
                    self._lines = (cite.path, fh.read().splitlines())
            except OSError:
                self._lines = (cite.path, [])
        lines = self._lines[1]
        prev = lines[cite.line - 2] if cite.line - 2 < len(lines) else ""
        m = _COMMENT.match(prev)
        return prev[m.end() :] if m else ""

    def context_above(self, cite: Cite) -> str:
        """The comment line above, when it speaks for this citation: one citing ids of its own speaks for those."""
        prev = self.previous_line(cite)
        return "" if prev and forms.find_ids(prev, self.game) else prev

    def copied(self, cite: Cite) -> tuple[VersionInfo, bool] | None:
        """The newest edition (up to the against one) whose rules hold the citation's line word for word, and
        whether the id is the copied clause's own label ("702.77b If a spell…") rather than one of its
        cross-references ("… in rules 601.2b and 601.2f–h"). None when the line is the engine's own words."""
        if cite.scope == "name" or not cite.context:
            return None
        m = _COMMENT.match(cite.context)
        lead, words = copied.fragment(cite.context[m.end() :] if m else cite.context)
        if not copied.enough(words):
            prev = self.previous_line(cite)  # a wrapped javadoc line: its start is on the line above
            words = (copied.fragment(prev)[1] + " " + words).strip() if prev else words
            if not copied.enough(words):
                return None
        if self._copies is None:
            self._copies = copied.Copies(self.store, self.chain)
        order = {v.id: i for i, v in enumerate(self.chain)}
        places = [
            (order[vid], rule)
            for vid, rule in self._copies.places(self._copies.holders(words))
            if vid in order and self._label_le(self.chain[order[vid]].label, self.against.label)
        ]
        if lead == cite.rule:
            places = [p for p in places if p[1] == cite.rule]  # a label the text never had is the engine's slip
        if not places:
            return None
        return self.chain[max(places)[0]], lead == cite.rule

    def read(self, cite: Cite) -> Reading:
        prev = self.context_above(cite)
        parts = [(cite.context, 1.0), (prev, 1.0), (evidence.file_words(cite.file), 0.5)]
        if cite.test and cite.scope != "name":
            parts.append((evidence.test_name(cite.test), 0.8))
        words = evidence.line_words(parts)
        own = evidence.line_words(p for p in parts if p[1] >= 0.8)
        named = self.named(cite.context + " " + prev) if cite.rule.startswith("702.") else []
        near = self.named(cite.context, around=cite) if named else []
        if named and not self.named(cite.context) and len(evidence.stems(cite.context)) <= 1:
            near = self.named(prev)  # "// Provoke: …" above a bare "// 702.40a"; a line with words speaks for itself
        topics = [
            t
            for t in self.view(self.against).topics()
            if t[0] <= own.keys() and max(self.idf().of(s) for s in t[0]) >= 2.0
        ]
        # "battle cry" names battle cry, not also "Battles": a title inside a longer named one is its part
        topics = [t for t in topics if not any(t[0] < u[0] for u in topics)]
        return Reading(words, own, forms.quotes(cite.context), named, near, topics, judged=not cite.in_range)

    def speaks(self, said: Reading) -> bool:
        """True when the line's own words (not its file name) say enough to tell clauses apart."""
        known = [s for s in said.own if self.idf().of(s) > 0]
        return len(known) >= 2 and evidence.mass(said.own, self.idf()) >= 4.0

    def named(self, text: str, *, around: Cite | None = None) -> list[str]:
        """Keyword-ability titles ``text`` names, inflections included (``around``: within 40 characters of its id)."""
        if self._keyword_re is None:
            forms_of: dict[str, str] = {}
            for kw in self.keywords():
                for f in _inflections(kw):
                    forms_of.setdefault(f, kw)
            self._forms = forms_of
            alternation = "|".join(re.escape(f) for f in sorted(forms_of, key=len, reverse=True)) or "(?!)"
            self._keyword_re = re.compile(rf"(?<![a-z])({alternation})(?![a-z])")
        text = text.lower()
        if around is not None:
            at = text.find(around.rule.split(".")[0] + ".")
            text = text[max(0, at - 40) : at + len(around.raw) + 40] if at >= 0 else text
        out = [
            self._forms[m.group(1)]
            for m in self._keyword_re.finditer(text)
            if not _VERB_BEFORE.search(text[max(0, m.start() - 12) : m.start()])
            and not (m.group(1) != self._forms[m.group(1)] and _VERB_AFTER.match(text, m.end()))
        ]
        return list(dict.fromkeys(out))

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
        if own in said.keywords:
            return True, []
        others = {self.title_of(s, version) for s in siblings if s != cite.rule}
        mentioned = norm(family)
        foreign = [
            kw
            for kw in said.keywords
            if kw not in others and kw != own and not any(f" {f} " in f" {mentioned} " for f in _inflections(kw))
        ]
        mate = self.paired(cite, siblings, version)
        if mate is not None:  # "702.40a & 702.110b: provoke … menace": menace is 702.110b's, provoke the other's
            wrong = [mate] if mate in foreign else []
        else:
            wrong = [kw for kw in foreign if kw in said.near]
        return (False, wrong) if wrong else (None, [])

    def paired(self, cite: Cite, siblings: list[str], version: VersionInfo) -> str | None:
        """The keyword the line pairs with the cited id. Ids whose own keyword the line names take theirs;
        when as many keywords are left as ids, the k-th goes with the k-th ("702.40a & 702.110b: provoke …
        menace", "exalted (CR 702.90), battle cry (CR 702.92)")."""
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
        titles = {s: self.title_of(s, version) for s in ids}
        left = [s for s in ids if titles[s] not in kws]
        kws = [k for k in kws if k not in titles.values()]
        if cite.rule not in left or len(left) != len(kws):
            return None
        return kws[left.index(cite.rule)]

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

    def contradicted(self, cite: Cite, version: VersionInfo, said: Reading, siblings: list[str] = ()) -> str | None:
        """A clause of the against version that the line's words fit far better than ``cite.rule`` of
        ``version``: one the cited id's lineage leads to, or one of a topic the line names (never another id
        the line cites: the words it shares are that id's)."""
        if not said.judged or not self.speaks(said) or len(set(siblings)) > 1:
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
        theirs = {_head(s) for s in siblings if s != cite.rule}
        # a neighbour under the same rule only on a rare word of the line that the cited clause never uses
        # ("megamorph" above 702.37d): shared everyday words ("player", "trigger") prove nothing
        rare = {w for w in said.own if self.idf().of(w) >= RARE and w not in family}
        near = [
            *self.same_rule(cite.rule, said),
            *(
                r
                for _, head, _ in said.topics
                if _head(head) == _head(cite.rule)
                for r in self.topic_target(head, cite, said)[:1]
            ),
        ]
        rivals = [
            *self.holders(cite.rule),
            *(
                r
                for _, head, _ in said.topics
                if _head(head) != _head(cite.rule)
                for r in self.topic_target(head, cite, said)[:1]
            ),
        ]
        rivals += [r for r in near if rare & self.view(self.against).own_stems(r)]
        lineage = set(self.holders(cite.rule))
        scored = [
            (self.fit_own(said, r), r)
            for r in dict.fromkeys(rivals)
            if r != cite.rule and (r in lineage or _head(r) not in theirs)
        ]
        scored = [(f, r) for f, r in scored if f >= STRONG_FIT and f - mine >= margin]
        # the cited id's own lineage first among rivals that fit about as well
        best = max(scored, key=lambda fr: (fr[0] + (0.15 if fr[1] in lineage else 0.0), fr[1]), default=None)
        return best[1] if best else None

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
            if not _KEYWORD_RULE.match(head):  # keywords have their own targets, at the cited sub-position
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

    # -- one citation ----------------------------------------------------------------------
    def editorial_reasons(self, rule: str, old: VersionInfo, new: VersionInfo) -> list[str] | None:
        """Why the clause's wording differs between two editions when it still says the same (None: substantive)."""
        a, b = self.node(rule, old), self.node(rule, new)
        if a is None or b is None:
            return None
        return editorial.classify_items(a, b, editorial.vocabulary(self.store))

    def resolve(self, cite: Cite, siblings: list[str]) -> dict:
        """The link JSON fields for one citation."""
        A = self.against
        node_a = self.node(cite.rule, A)
        notes: list[str] = []
        if node_a is None and A.partial:
            # A partial version (a quote, one viewer page) lacks most clauses: absence there proves nothing.
            holder = self.last_holding(cite.rule)
            if holder is not None:
                notes.append(f"{A.label} is partial; resolved against {holder.label}")
                A, node_a = holder, self.node(cite.rule, holder)
        written = self.written_edition(cite)
        said = self.read(cite)
        reference = False
        if node_a is None or said.judged:
            copy = self.copied(cite)
            if copy is not None:
                # A line copied from the rules was right in the edition it was copied from; an id inside it
                # is that text's cross-reference, which the line's other words say nothing against.
                written, own = copy
                said.judged, reference = own, not own
                notes.append(f"the line is the text of the rules of {written.label}")
        node_w = self.node(cite.rule, written) if written else None
        keywords: list[str] = []
        first = None
        extra: dict = {}
        if node_a is None:
            status = "orphan"
            base = written if node_w else self.last_holding(cite.rule)
            notes.append(f"{cite.rule} is not in {A.label}" + self._absence(cite.rule, base))
            keywords = [kw for kw in said.keywords if not base or kw != self.title_of(cite.rule, base)]
        else:
            base = A
            agree_a, keywords = self.agrees(cite, A, siblings, said)
            if node_w is not None and not self.covers(self.window(cite.rule, written), A):
                status, base, keywords, first = self._changed(
                    cite, written, A, siblings, said, agree_a, keywords, notes, extra
                )
            elif agree_a is False:
                status = "mismatch"
                what = ", ".join(keywords) if keywords else "the quoted text"
                notes.append(
                    f"{what} does not fit {cite.rule} ({self.title_of(cite.rule, A) or 'untitled'}) in {A.label}"
                )
            elif agree_a is None and (first := self.contradicted(cite, A, said, siblings)):
                status = "mismatch"
                notes.append(f"the line's words fit {first} better than {cite.rule} in {A.label}")
            else:
                status = "ok"
                if node_w is not None and node_w.hash != node_a.hash:  # only cited numbers changed
                    notes.append(self._editorial_note(cite.rule, written, A))
        if written is None and cite.written:
            notes.append(f"written {cite.written}, before every stored edition")
        # The window of the text the citation means: the written edition's when it went stale.
        window = (
            self.window(cite.rule, base)
            if base and status != "mismatch"
            else (self.window(cite.rule, A) if node_a else (None, None))
        )
        if extra.pop("editorial", False):  # the same meaning since the written edition's text first stood
            window = (self.window(cite.rule, written)[0], window[1])
        if reference:  # the words are the copied clause's, not this id's: its lineage alone says where it went
            said = Reading({}, {}, [], [], [], [], judged=False)
        suggest = [] if status == "ok" else self.suggest(cite, base, status, said, keywords, first)
        # another id on the line, and its rule, speak for themselves: not what this id meant
        # (its own lineage excepted: "601.2b and 601.2e–g" copied from 2015 means today's 601.2f–h)
        theirs = {_head(s) for s in siblings if s != cite.rule} - {_head(cite.rule)}
        lineage = set(self.holders(cite.rule))
        suggest = [
            r for r in suggest if r == cite.rule or r in lineage or (r not in siblings and _head(r) not in theirs)
        ]
        return {
            "status": status,
            "valid_from": window[0],
            "valid_to": window[1],
            "suggest": suggest,
            "note": "; ".join(notes),
            "written_version": written.label if written else None,
            **extra,
        }

    def _editorial_note(self, rule: str, written: VersionInfo, A: VersionInfo, reasons: list[str] | None = None) -> str:
        if reasons is None:
            reasons = self.editorial_reasons(rule, written, A) or ["reference"]
        why = ", ".join(dict.fromkeys(_REASONS.get(r, r) for r in reasons)) or "wording"
        return f"editorial change since {written.label}: {why}"

    def _absence(self, rule: str, base: VersionInfo | None) -> str:
        if base is not None:
            return f" (last in {base.label})"
        newest = next((v for v in reversed(self.chain) if not v.partial), None)
        if newest is not None and self.view(newest).newer_than(rule):
            return f" (newer than the newest edition in the KB ({newest.label}))"
        return " (in no version)"

    def _changed(self, cite, written, A, siblings, said, agree_a, keywords, notes, extra):  # noqa: PLR0913
        """The verdict on a clause whose text differs between the written and the against edition."""
        reasons = self.editorial_reasons(cite.rule, written, A)
        if reasons is not None:
            if agree_a is False:
                notes.append(f"{', '.join(keywords) or 'the quoted text'} does not fit {cite.rule} in {A.label}")
                return "mismatch", A, keywords, None
            notes.append(self._editorial_note(cite.rule, written, A, reasons))
            extra["editorial"] = True
            return "ok", A, keywords, None
        agree_w, kw_w = self.agrees(cite, written, siblings, said)
        fits_now = agree_a is True or (
            agree_a is None
            and self.fit(said, cite.rule, A) >= STRONG_FIT
            and self.fit(said, cite.rule, A) - self.fit(said, cite.rule, written) >= MARGIN
        )
        if fits_now and agree_w is not True:
            notes.append(f"the line fits {cite.rule} as it stands in {A.label}, not its text in {written.label}")
            return "ok", A, keywords, None
        if agree_w is False:
            notes.append(f"did not fit {cite.rule} even in {written.label}, the edition it was written against")
            return "mismatch", written, kw_w, None
        if agree_w is None and (alt := self.contradicted(cite, written, said, siblings)):
            notes.append(f"the line's words fit {alt} better than {cite.rule} of {written.label}")
            return "mismatch", written, kw_w, alt
        if written.sort_date <= A.sort_date:
            notes.append(f"{cite.rule} changed after {written.label}, the edition it was written against")
        else:
            notes.append(f"{cite.rule} in {A.label} differs from {written.label}, the edition it was written against")
        extra["old_text"] = self.node(cite.rule, written).text
        extra["new_text"] = self.node(cite.rule, A).text
        return "stale", written, kw_w, None


def _head(rule: str) -> str:
    """The rule a clause belongs to: a keyword ability or action is its own (702.90a -> 702.90), else 509.1c -> 509."""
    if rule.startswith(("701.", "702.")):
        return rule.rstrip(ruleid.SUB_LETTERS)
    return rule.split(".")[0]


def _inflections(keyword: str) -> list[str]:
    """The keyword and its participle or adjective forms: provoke/provoked, dash/dashed, vigilance/vigilant."""
    out = [keyword]
    if keyword.endswith("e"):
        out += [keyword + "d", keyword[:-1] + "ing"]
    else:
        out += [keyword + "ed", keyword + "ing"]
    if keyword.endswith("ance"):
        out.append(keyword[:-4] + "ant")
    return out


def _heading(title: str, text: str) -> str:
    """A rule's title, lower case: "702.90. Battle Cry" keeps it as the title or as a one-line text."""
    name = title or (text if len(text) <= 40 and "\n" not in text and not text.endswith(".") else "")
    return name.lower().strip(" .")


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]+", text.lower()))


def _contained(quote: str, body: str) -> bool:
    """True if most of ``quote`` appears in ``body`` (punctuation and case ignored)."""
    q, b = norm(quote), norm(body)
    if q in b:
        return True
    qw, bw = q.split(), b.split()
    m = difflib.SequenceMatcher(None, qw, bw, autojunk=False)
    matched = sum(block.size for block in m.get_matching_blocks())
    return matched >= 0.85 * len(qw)
