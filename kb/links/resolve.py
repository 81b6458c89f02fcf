"""Resolve citations against a version: ok / stale / orphan / mismatch, validity window, suggestions.

A verdict other than ``ok`` needs evidence: a clause that changed what it says (not only its wording),
a quote found in the rules but not in the cited clause, a keyword or topic the clause does not speak of,
or the line's own words (its test, function and file names included) fitting another clause of the
cited id's lineage far better than the cited one.
"""

from __future__ import annotations

import re
from datetime import date

from kb import ruleid
from kb.errors import NotFound
from kb.links import copied, era, evidence, forms
from kb.links.agree import MARGIN, STRONG_FIT, Agreement
from kb.links.clauses import KEYWORD_RULE, View, heading, rule_head
from kb.links.extract import Cite
from kb.links.reading import LineReader, Reading
from kb.links.suggest import KEYWORD_OR_ACTION, REASONS, Suggestions
from kb.store import NodeRecord, Store, VersionInfo
from kb.versions import editorial, order
from kb.versions.history import valid_window

OLD_KEYWORD = re.compile(r"^502\.\d+$")  # a keyword ability of the editions before 2009

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


def pick_lang(store: Store, game: str) -> str | None:
    """English when the store has it (citations use English numbering), else any language."""
    if store.latest(game, "en"):
        return "en"
    langs = [v.lang for v in store.versions(game)]
    return langs[-1] if langs else None


class Resolver(LineReader, Agreement, Suggestions):
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
        self._searched: dict[str, list[str]] = {}
        self._titles: dict[str, set[str]] | None = None
        self._titled: list[tuple[int, str, str]] | None = None
        self._actions: dict[str, str] | None = None
        self.shifts: dict[str, list[tuple[str, int]]] = {}  # this tree's numbering (kb.links.shifts.learn)
        self.era: VersionInfo | None = None  # the edition this tree's undated citations follow (kb.links.era)
        self._moved: dict | None = None  # glossary terms whose rule moved, by rule (kb.links.era.moved_terms)

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
        if cite.written_from in ("annotation", "file", "date", "copy"):
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

    def titled(self) -> list[tuple[int, str, str]]:
        """(version id, rule, title in lower case) of every keyword ability and action of every edition."""
        if self._titled is None:
            ids = {v.id for v in self.chain}
            rows = self.store.clause_texts_under("701.") + self.store.clause_texts_under("702.")
            self._titled = [
                (vid, rule, name)
                for vid, rule, title, text in rows
                if vid in ids and KEYWORD_OR_ACTION.match(rule) and (name := heading(title, text)) and name != "general"
            ]
            # Until 2009 the keyword abilities were rule 502 ("502.7. Protection"); its rules hold no titles since.
            self._titled += [
                (vid, rule, name)
                for vid, rule, title, text in self.store.clause_texts_under("502.")
                if vid in ids and OLD_KEYWORD.match(rule) and (name := heading(title, text)) and name != "general"
            ]
        return self._titled

    def keywords(self) -> dict[str, set[tuple[int, str]]]:
        """Keyword-ability titles (lower case) of every version -> {(version id, rule)}."""
        if self._keywords is None:
            self._keywords = {}
            for vid, rule, name in self.titled():
                if KEYWORD_RULE.match(rule):
                    self._keywords.setdefault(name, set()).add((vid, rule))
        return self._keywords

    def title_of(self, rule: str, version: VersionInfo) -> str:
        # a keyword ability or action is titled itself (701.8. Discard), a clause by the rule above it
        head = (
            rule
            if KEYWORD_RULE.match(rule) or KEYWORD_OR_ACTION.match(rule) or OLD_KEYWORD.match(rule)
            else ruleid.parent(rule)
        )
        n = self.node(head, version) if head else None
        return heading(n.title, n.text) if n else ""

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
        extra: dict = {}
        said = self.read(cite, siblings)
        reference = False
        copy = None
        if node_a is None or said.judged:
            copy = self.copied(cite)
            if copy is not None:
                # A line copied from the rules was right in the edition it was copied from; an id inside it
                # is that text's cross-reference, which the line's other words say nothing against.
                written, own = copy
                said.judged, reference = own, not own
                notes.append(f"the line is the text of the rules of {written.label}")
        if written is None and copy is None and not cite.written:
            written = self._undated(cite, notes, extra)
        node_w = self.node(cite.rule, written) if written else None
        keywords: list[str] = []
        first = None
        gone_since = False  # an id its written edition held, gone since: stale (suggested as an absent one)
        if node_a is None:
            status = "orphan"
            base = written if node_w else self.last_holding(cite.rule)
            notes.append(f"{cite.rule} is not in {A.label}" + self._absence(cite.rule, base))
            mate = self.paired(cite, siblings, A, said) if said.keywords else None
            theirs = {k for s in siblings if s != cite.rule for k in self.titles_ever(s)}  # other ids' keywords
            keywords = [mate] if mate else [kw for kw in said.keywords or said.line_keywords if kw not in theirs]
            keywords = [kw for kw in keywords if not base or kw != self.title_of(cite.rule, base)]
            if node_w is not None and (copy is not None or self._held(cite, written, siblings, said)):
                # right in the edition it was written against, gone since: stale, with where it went (its
                # suggestions are an absent id's all the same)
                gone_since = True
                notes.append(f"it was in {written.label}, the edition it was written against")
                extra["old_text"] = node_w.text
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
            elif agree_a is None and copy is None and self.misquoted(cite, said, siblings):
                status = "mismatch"
                notes.append(f"the line gives as the text of {cite.rule} words no edition of it holds")
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
        suggest, why = ([], {}) if status == "ok" else self.suggest(cite, base, status, said, keywords, first)
        status = "stale" if gone_since else status
        if copy is not None and not reference and status == "stale":
            # a clause pasted under its own id: where that clause went leads, whatever its old words fit now
            went = [r for r in self.successors(cite.rule, base) if self.node(r, A) is not None]
            if went:
                suggest = list(dict.fromkeys(went + suggest))[:3]
                why[went[0]] = why.get(went[0]) or REASONS["lineage"]
        # another id on the line, and its rule, speak for themselves: not what this id meant
        # (its own lineage excepted: "601.2b and 601.2e–g" copied from 2015 means today's 601.2f–h)
        theirs = {rule_head(s) for s in siblings if s != cite.rule} - {rule_head(cite.rule)}
        lineage = set(self.holders(cite.rule))
        suggest = [
            r for r in suggest if r == cite.rule or r in lineage or (r not in siblings and rule_head(r) not in theirs)
        ]
        if suggest and cite.scope != "name":
            # ... and so does an id the comment cites on the line above or below, its sentence running on
            # ("lore accrual CR 714.3c, chapter triggers / CR 714.2b, final-chapter sacrifice CR 714.4")
            near = {f.rule for f in forms.find_ids(self.previous_line(cite) + "\n" + self.next_line(cite), self.game)}
            suggest = [r for r in suggest if r not in near or r in lineage]
        if suggest:
            extra["why"] = why.get(suggest[0], "")
        return {
            "status": status,
            "valid_from": window[0],
            "valid_to": window[1],
            "suggest": suggest,
            "note": "; ".join(notes),
            "written_version": written.label if written else None,
            **extra,
        }

    def _undated(self, cite: Cite, notes: list[str], extra: dict) -> VersionInfo | None:
        """The edition a line nothing dates was written against: the one the tree's citations follow (none: the
        edition resolved against), or the newest its own words (a header, a keyword named, a pasted clause)
        fit when they do not fit that one ("702.87. Infect" in a tree of today's numbering)."""
        own = era.dated(self, cite)
        if own is None and self.era is None:
            return None
        written = own or self.era
        extra["written_from"] = "tree"
        notes.append(
            f"undated: read as written against {written.label}, "
            + ("the newest edition its own words fit" if own else "the edition this tree's citations follow")
        )
        return written

    def _held(self, cite: Cite, written: VersionInfo, siblings: list[str], said: Reading) -> bool:
        """True when nothing the line says speaks against the clause as ``written`` held it: no quote or keyword
        it does not hold, no clause the words fit far better, no keyword action or ability the line names that the
        clause never speaks of ("701.21b sacrifice the permanent", written against 2024, when 701.21b untapped)."""
        agree, _ = self.agrees(cite, written, siblings, said)
        if agree is not None:
            return agree
        family = self.view(written).stems(cite.rule)
        foreign = [t for words, head, t in said.topics if KEYWORD_OR_ACTION.match(head) and not words & family]
        return not foreign and not self.contradicted(cite, written, said, siblings)

    def _editorial_note(self, rule: str, written: VersionInfo, A: VersionInfo, reasons: list[str] | None = None) -> str:
        if reasons is None:
            reasons = self.editorial_reasons(rule, written, A) or ["reference"]
        why = ", ".join(dict.fromkeys(_REASONS.get(r, r) for r in reasons)) or "wording"
        return f"editorial change since {written.label}: {why}"

    def _absence(self, rule: str, base: VersionInfo | None) -> str:
        if base is not None:
            return f" (last in {base.label})"
        if self.newer(rule):
            return f" (newer than the newest edition in the KB ({self.against.label}))"
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
