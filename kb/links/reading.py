"""What one citation's own words say: its line, the comment line above, its test and file names, the
keyword abilities it names, and whether the line is rules text copied from an edition.

``LineReader`` is a part of ``kb.links.resolve.Resolver``: it reads through the resolver's store and views.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from kb import ruleid
from kb.links import about, copied, evidence, forms
from kb.links.clauses import norm
from kb.links.extract import Cite
from kb.store import VersionInfo

# A keyword written as a verb ("to absorb", "can absorb") is not the ability.
_VERB_BEFORE = re.compile(
    r"(?:\b(?:to|can|cannot|can't|will|would|may|might|must|should|could|does|do|did|doesn't)\s+)$"
)
# ... nor is a participle with its complement ("library exhausted with", "persisted by", "cascade to"),
_VERB_AFTER = re.compile(r"\s+(?:by|with|from|into|in|on|onto|to|at|for|through|as)\b")
# ... nor a verb before a conjunction or preposition only verbs take ("counters persist across a phase-out"),
_VERB_ANY_FORM = re.compile(r"\s+(?:across|while|until|throughout|beyond)\b")
# ... nor "the defender" (the defending player): a keyword that names a creature only follows "with"/"has".
_NOUN_BEFORE = re.compile(r"\b(?:the|a|an|each|that|this)\s+(?:same\s+|other\s+|new\s+)?$")  # "the same defender"
# ... nor a noun in "-er" that acts ("defender must assign", "defender chooses"): an ability does not choose.
_ACTS_AFTER = re.compile(
    r"[\s_]+(?:must|may|can|cannot|chooses|choose|assigns|assign|decides|divides|declares|orders|gets)(?![a-z])"
)
NAMED, CODED = 0.3, 0.6  # weights of the test's and file's names, and of the identifiers by the cited line
CONTINUED = 12  # comment lines below a pasted clause's first that may still be its text
QUERY_WORDS = 7  # words of a line a search for its clause uses
COMMENT = re.compile(r"^\s*(?://+|#+|\*+|/\*+|--|;+|\"\"\"|\'\'\')\s*")
_LETTERS = re.compile(r"[^\W\d_]+")  # words of any alphabet
_DOC = re.compile(r"^\s*(?:///|/\*\*|\*(?!/))")  # a doc comment's line: ///, /** or a javadoc's " * "


@dataclass
class Reading:
    """What one citation's own words say."""

    words: dict[str, float]  # stem -> weight (line, previous comment line, test name, file name)
    own: dict[str, float]  # the same without the file name: enough to speak against a clause on its own
    quotes: list[str]
    keywords: list[str]  # keyword abilities named anywhere on the line
    near: list[str]  # ... and within 40 characters of the id
    topics: list[tuple[frozenset[str], str, str]]  # titles the words name: (stems, rule, title)
    # ... of which those written in lower case somewhere ("clash-trigger", not only the card "Spark Double")
    # False when the words are not about this one id: a range's members share the range's words, and an
    # id inside a line copied from the rules is the rules' own cross-reference.
    judged: bool = True
    plain: list[frozenset[str]] = field(default_factory=list)
    line: dict[str, float] = field(default_factory=dict)  # the stems of the line and the comment line above only
    line_keywords: list[str] = field(default_factory=list)  # keyword abilities they name, whatever the id cited
    # What the code around it is about (test and file names, identifiers nearby): ranks suggestions only
    about: dict[str, float] = field(default_factory=dict)
    about_keywords: list[str] = field(default_factory=list)  # keywords the code and the test's name name
    file_keywords: list[str] = field(default_factory=list)  # ... and the file's name alone
    test_keywords: list[str] = field(default_factory=list)  # ... the test's own name names
    query: str = ""  # the words a search for the clause meant would use
    beside: list[str] = field(default_factory=list)  # ids the test's decorators above cite (a marker's "106.6")


class LineReader:
    """Reads a citation's line and names (a part of Resolver)."""

    # -- what the line says ----------------------------------------------------------------
    def source(self, cite: Cite) -> list[str]:
        """The lines of the citation's file (the last file read is kept: citations come file by file)."""
        if self._lines[0] != cite.path:
            try:
                with open(cite.path, encoding="utf-8", errors="replace") as fh:
                    self._lines = (cite.path, fh.read().splitlines())
            except OSError:
                self._lines = (cite.path, [])
        return self._lines[1]

    def previous_line(self, cite: Cite) -> str:
        """The comment line right above the citation, markers stripped ("" when it is code or unreadable)."""
        if not cite.path or cite.line < 2:
            return ""
        lines = self.source(cite)
        prev = lines[cite.line - 2] if cite.line - 2 < len(lines) else ""
        m = COMMENT.match(prev)
        return prev[m.end() :] if m else ""

    def next_line(self, cite: Cite) -> str:
        """The comment line right below the citation, markers stripped ("" when it is code or unreadable)."""
        lines = self.source(cite) if cite.path else []
        below = lines[cite.line] if cite.line < len(lines) else ""
        m = COMMENT.match(below)
        return below[m.end() :] if m else ""

    def documented(self, cite: Cite) -> str:
        """The declaration a doc comment documents, identifiers written as words (``Menace,`` below
        "/// CR 702.110 — this creature can't be blocked except by two or more creatures."): the first line of
        code below the citation's comment, when the comment is a doc comment (``///``, ``/** … */``, ``* …``)
        and that line is short. "" otherwise."""
        lines = self.source(cite) if cite.path else []
        if not _DOC.match(lines[cite.line - 1] if 0 < cite.line <= len(lines) else ""):
            return ""
        for below in lines[cite.line : cite.line + 8]:
            if _DOC.match(below) or below.strip() in ("*/", ""):
                continue
            code = below.strip()
            return evidence.spaced(code) if len(code) <= 60 and not COMMENT.match(below) else ""
        return ""

    def pasted(self, cite: Cite) -> str | None:
        """The words after a clause id that ends a pasted clause's sentence and starts the next one's, with the
        comment line below ("… a card.” 702.28b Although the" + "cycling ability is …"); None otherwise."""
        if cite.scope == "name" or not cite.context or not cite.rule[-1].isalpha():
            return None
        m = re.search(rf"[.”\"]\s+{re.escape(cite.rule)}\.?\s+(?=[A-Z])", cite.context)
        if m is None:
            return None
        return cite.context[m.end() :] + " " + self.next_line(cite)

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
        if cite.written_from == "copy":  # a literal that is a clause's sentences (kb.links.copies): that clause's
            written = self.written_edition(cite)
            return (written, True) if written is not None else None
        m = COMMENT.match(cite.context)
        lead, words = copied.fragment(cite.context[m.end() :] if m else cite.context)
        if cite.context[m.end() if m else 0 :].strip().rstrip(".:").lower() == cite.rule:
            lead, words = cite.rule, copied.fragment(self.next_line(cite))[1]  # "* 701.34b" alone: its text follows
        if not copied.enough(words):
            prev = self.previous_line(cite)  # a wrapped javadoc line: its start is on the line above
            if prev and lead and (above := copied.fragment(prev)[1]):
                # ... and an id leading it continues that sentence ("… in rules / 601.2b and 601.2e-g."): the
                # copied clause's cross-reference, not its label
                lead, words = "", above + " " + norm(COMMENT.sub("", cite.context, count=1))
            else:
                words = (copied.fragment(prev)[1] + " " + words).strip() if prev else words
            if not copied.enough(words):
                return None
        order = {v.id: i for i, v in enumerate(self.chain)}
        held = self.copy_holders(words)
        if held and (more := self.continued(cite)):
            # a paste wrapped over several comment lines: the whole paragraph says which editions worded it so
            # ("505.4. Second, if … Saga" / "enchantments … puts a lore counter on" / "each Saga they control.")
            held = self.copy_holders(words + " " + more) or held
        places = [
            (order[vid], rule)
            for vid, rule in held
            if vid in order and self._label_le(self.chain[order[vid]].label, self.against.label)
        ]
        if lead == cite.rule:
            places = [p for p in places if p[1] == cite.rule]  # a label the text never had is the engine's slip
        if not places:
            return None
        return self.chain[max(places)[0]], lead == cite.rule

    def continued(self, cite: Cite) -> str:
        """The words of the comment lines right below the citation's that carry its sentence on (normalised): up to
        an empty comment line, a line of code, or a line that starts with another id; "" when there are none."""
        lines = self.source(cite) if cite.path else []
        out = []
        for below in lines[cite.line : cite.line + CONTINUED]:
            m = COMMENT.match(below)
            rest = below[m.end() :].strip() if m else ""
            if not m or not rest or copied.fragment(rest)[0]:
                break
            out.append(norm(rest))
        return " ".join(out)

    def copy_holders(self, words: str) -> list[tuple[int, str]]:
        """(version id, rule) of every clause of every edition whose text holds ``words`` (normalised) word for word."""
        if self._copies is None:
            self._copies = copied.Copies(self.store, self.chain)
        return self._copies.places(self._copies.holders(words))

    def read(self, cite: Cite, siblings: list[str] = ()) -> Reading:
        """What the citation's line, the code around it and its test say (``siblings``: the ids cited with it)."""
        prev = self.context_above(cite)
        if (own_words := self.pasted(cite)) is not None:
            # a clause of a paragraph pasted from the rules: its words follow its id, the line's earlier words are
            # the clause before ("… Draw a card.” 702.28b Although the cycling ability …")
            cite, prev = replace(cite, context=own_words), ""
        parts = [(cite.context, 1.0), (prev, 1.0), (evidence.file_words(cite.file), 0.5)]
        if cite.test and cite.scope != "name":
            parts.append((evidence.test_name(cite.test), 0.8))
        words = evidence.line_words(parts)
        own = evidence.line_words(p for p in parts if p[1] >= 0.8)
        named = self.named(cite.context + " " + prev) if cite.rule.startswith("702.") else []
        near = self.named(cite.context, around=cite) if named else []
        if named and not self.named(cite.context) and len(evidence.stems(cite.context)) <= 1:
            near = self.named(prev)  # "// Provoke: …" above a bare "// 702.40a"; a line with words speaks for itself
        # a title the words name: one with a rare word, or a title of several words written out ("ending the turn")
        phrase = f" {norm(' '.join([cite.context, prev, evidence.spaced(about.test_parts(cite.test))]))} "
        topics = [
            t
            for t in self.view(self.against).topics()
            if t[0] <= own.keys()
            and (max(self.idf().of(s) for s in t[0]) >= 2.0 or (" " in t[2] and f" {norm(t[2])} " in phrase))
        ]
        # "battle cry" names battle cry, not also "Battles": a title inside a longer named one is its part
        topics = [t for t in topics if not any(t[0] < u[0] for u in topics)]
        # a topic another id cited with it speaks of is that id's (`cr("724.1d", "514.2")` above a test of ending
        # the turn "without clearing damage": damage is 514.2's business, the turn's end 724.1d's)
        view = self.view(self.against)
        theirs = [view.stems(s) for s in siblings if s != cite.rule]
        topics = [t for t in topics if not any(t[0] <= stems for stems in theirs)]
        said = Reading(words, own, forms.quotes(cite.context), named, near, topics, judged=not cite.in_range)
        lower = {evidence.stem(w) for w in re.findall(r"[A-Za-z]+", cite.context + " " + prev) if w.islower()}
        said.line = evidence.line_words([(cite.context, 1.0), (prev, 1.0)])
        said.line_keywords = named or self.named(cite.context + " " + prev)
        said.plain = [t[0] for t in topics if t[0] <= lower and self.vetoes(t, cite)]
        self.read_about(cite, said, prev)
        return said

    def read_about(self, cite: Cite, said: Reading, prev: str) -> None:
        """Fill what the code around the citation is about: names of its test and file, identifiers nearby (only
        the words the rules use: ``getattr`` or ``CombatCreature`` say nothing of a clause)."""
        code = evidence.spaced(about.nearby_code(self.source(cite), cite.line) if cite.path else "")
        test, file = evidence.spaced(about.test_parts(cite.test)), evidence.spaced(evidence.file_words(cite.file))
        # the code on or below the cited line says most; the test's and the file's names less
        weights = [(test + " " + file, NAMED), (code, CODED)]
        said.about = {s: w for text, w in weights for s in about.words(text) if self.idf().of(s) > 0}
        found = self.named(code + " " + test) + self.named_actions(code + " " + test)
        said.about_keywords = [k for k in dict.fromkeys(found) if k not in said.keywords]
        named = [*said.keywords, *said.about_keywords]
        said.file_keywords = [k for k in self.named(file) + self.named_actions(file) if k not in named]
        names = " ".join([test, file, code])
        said.test_keywords = self.named(evidence.spaced(about.test_parts(cite.test)))
        above = self.source(cite)[cite.line - 2] if cite.path and cite.line >= 2 else ""
        if above.lstrip().startswith(("@", "#[")):
            said.beside = [f.rule for f in forms.find_ids(above, self.game)]
        line = " ".join([cite.context, prev]) if cite.scope != "name" else names
        said.query = self.query(evidence.without_ids(line), said.about_keywords)

    def vetoes(self, topic: tuple[frozenset[str], str, str], cite: Cite) -> bool:
        """Whether a keyword the line names rules out the clauses that never speak of it: a keyword ability,
        a keyword action only the rules name (clash), or the cited id's own rule ("701.21b sacrifice …")."""
        words, rule, _ = topic
        if rule.startswith("702."):
            return True
        own = rule == cite.rule.rstrip(ruleid.SUB_LETTERS)
        return rule.startswith("701.") and (own or min(self.idf().of(w) for w in words) >= 6.0)

    def query(self, text: str, keywords: list[str]) -> str:
        """The words a search for the clause meant uses: the line's rarest words the rules use, in their order,
        and the keywords the code's names name (a long query costs search seconds and says no more)."""
        words = list(dict.fromkeys(w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'-]*", text)))
        weight = {w: self.idf().of(evidence.stem(w)) for w in words if w not in evidence.STOP}
        best = set(sorted((w for w in weight if weight[w] > 0), key=lambda w: -weight[w])[:QUERY_WORDS])
        return " ".join([w for w in words if w in best] + keywords)

    def speaks(self, said: Reading) -> bool:
        """True when the line's own words (not its file name) say enough to tell clauses apart."""
        known = [s for s in said.own if self.idf().of(s) > 0]
        return len(known) >= 2 and evidence.mass(said.own, self.idf()) >= 4.0

    def named(self, text: str, *, around: Cite | None = None) -> list[str]:
        """Keyword-ability titles ``text`` names, inflections included (``around``: within 40 characters of its id)."""
        if self._keyword_re is None:
            forms_of: dict[str, str] = {}
            for kw in self.keywords():
                for f in inflections(kw):
                    forms_of.setdefault(f, kw)
            self._forms = forms_of
            alternation = "|".join(re.escape(f) for f in sorted(forms_of, key=len, reverse=True)) or "(?!)"
            self._keyword_re = re.compile(rf"(?<![a-z])({alternation})(?![a-z])")
        text = self.beside(text, around) if around is not None else text.lower()
        out = [self._forms[m.group(1)] for m in self._keyword_re.finditer(text) if self._as_ability(text, m)]
        return list(dict.fromkeys(out))

    def beside(self, text: str, cite: Cite) -> str:
        """The words of ``text`` (lower case) that speak of ``cite``'s id: within 40 characters of it, or up to the
        bracket an id in brackets closes ("band block propagation (CR 702.22h), and the Rampage…"). In a comment
        written in another language the rules' words are few and far between, and the whole line speaks of it
        ("Plot – rzut bez kosztu many – nie ma też wymagań kolorowych (CR 702.136)")."""
        low = text.lower()
        at = low.find(cite.rule.split(".")[0] + ".")
        if at < 0 or self.foreign(text):
            return low
        end = at + len(cite.raw)
        closing = re.match(r"[a-z]?\s*[)\]]", low[end:])
        return low[max(0, at - 40) : end if closing else end + 40]

    def foreign(self, text: str) -> bool:
        """True when most words of ``text`` are no English the rules use (a comment in Polish or Croatian):
        at least four words of three letters or more, fewer than half of them the rules' words."""
        # an identifier (camelCase) is code, in whatever language its comments are
        words = [w.lower() for w in _LETTERS.findall(text) if len(w) >= 3 and not any(c.isupper() for c in w[1:])]
        if len(words) < 4:
            return False
        known = sum(1 for w in words if w.isascii() and self.idf().of(evidence.stem(w)) > 0)
        return known < len(words) / 2

    def _as_ability(self, text: str, m: re.Match) -> bool:
        """True when a keyword's name in ``text`` is the ability, not a verb or a noun of the same spelling."""
        before = text[max(0, m.start() - 12) : m.start()]
        form, name = m.group(1), self._forms[m.group(1)]
        if _VERB_BEFORE.search(before) or _VERB_ANY_FORM.match(text, m.end()):
            return False
        if form != name and _VERB_AFTER.match(text, m.end()):
            return False
        if name.endswith("er") and _ACTS_AFTER.match(text, m.end()):
            return False  # "defender must assign", "the defender chooses": the defending player acts
        return not (name.endswith("er") and _NOUN_BEFORE.search(before))


def inflections(keyword: str) -> list[str]:
    """The keyword and its participle or adjective forms: provoke/provoked, dash/dashed, vigilance/vigilant."""
    out = [keyword]
    if keyword.endswith("e"):
        out += [keyword + "d", keyword[:-1] + "ing"]
    else:
        out += [keyword + "ed", keyword + "ing"]
    if re.search(r"(?:^|[^aeiou]|qu)[aeiou][bdgklmnprt]$", keyword):
        out += [keyword + keyword[-1] + "ed", keyword + keyword[-1] + "ing"]  # equip/equipped, plot/plotted
    if keyword.endswith("ance"):
        out.append(keyword[:-4] + "ant")
    return out
