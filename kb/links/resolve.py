"""Resolve citations against a version: ok / stale / orphan / mismatch, validity window, suggestions."""

from __future__ import annotations

import difflib
import re
from datetime import date

from kb import order, ruleid
from kb.errors import NotFound
from kb.links import forms
from kb.links.extract import Cite
from kb.store import NodeRecord, Store, VersionInfo

try:  # the versions service; a plain-hash fallback keeps links working without it
    from kb.history import successor as _successor
    from kb.history import valid_window as _valid_window
except ImportError:  # pragma: no cover - only while kb.history is absent
    _successor = _valid_window = None

_KEYWORD_RULE = re.compile(r"^702\.\d+$")  # keyword abilities: "702.90. Battle Cry"


def pick_lang(store: Store, game: str) -> str | None:
    """English when the store has it (citations use English numbering), else any language."""
    if store.latest(game, "en"):
        return "en"
    langs = [v.lang for v in store.versions(game)]
    return langs[-1] if langs else None


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
        self._nodes: list[NodeRecord] | None = None
        self._words: list[tuple[str, frozenset[str]]] | None = None
        self._keyword_re: re.Pattern | None = None

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
        self.note = f"{a.lang} {a.label} is partial; resolved against en {english.label}, the English edition it renders"
        self.lang, self.chain, self.against = "en", store.versions(game, "en"), english

    # -- lookups ---------------------------------------------------------------------------
    def node(self, rule: str, version: VersionInfo) -> NodeRecord | None:
        if rule not in self._rv:
            self._rv[rule] = {v.id: n for v, n in self.store.rule_versions(self.game, self.lang, rule)}
        return self._rv[rule].get(version.id)

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
            if _valid_window is not None:
                self._windows[key] = _valid_window(self.store, self.game, self.lang, rule, version.label)
            else:
                self._windows[key] = self._hash_window(rule, version)
        return self._windows[key]

    def _hash_window(self, rule: str, version: VersionInfo) -> tuple[str | None, str | None]:
        anchor = self.node(rule, version)
        if anchor is None:
            return None, None
        k = next(i for i, v in enumerate(self.chain) if v.id == version.id)
        lo = hi = k
        while lo > 0 and (n := self.node(rule, self.chain[lo - 1])) and n.hash == anchor.hash:
            lo -= 1
        while hi + 1 < len(self.chain) and (n := self.node(rule, self.chain[hi + 1])) and n.hash == anchor.hash:
            hi += 1
        return self.chain[lo].label, self.chain[hi].label

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
            rows = self.store.conn.execute(
                "SELECT n.version_id, n.rule, c.title, c.text FROM nodes n JOIN contents c ON c.hash = n.hash"
                " WHERE n.rule LIKE '702.%'"
            )
            for vid, rule, title, text in rows:
                name = _heading(title, text)
                if vid in ids and _KEYWORD_RULE.match(rule) and name and name != "general":
                    self._keywords.setdefault(name, set()).add((vid, rule))
        return self._keywords

    # -- agreement -------------------------------------------------------------------------
    def title_of(self, rule: str, version: VersionInfo) -> str:
        head = rule if _KEYWORD_RULE.match(rule) else ruleid.parent(rule)
        n = self.node(head, version) if head else None
        return _heading(n.title, n.text) if n else ""

    def agrees(self, cite: Cite, version: VersionInfo, siblings: list[str]) -> tuple[bool | None, list[str]]:
        """Does the citation's quote or keyword fit the clause in ``version``? (None: nothing to compare)."""
        node = self.node(cite.rule, version)
        if node is None:
            return None, []
        said = forms.quotes(cite.context)
        if said:
            body = " ".join([node.text, *node.examples])
            return any(_contained(q, body) for q in said), []
        named = self.named(cite)
        if not named:
            return None, []
        own = self.title_of(cite.rule, version)
        if own in named:
            return True, []
        others = {self.title_of(s, version) for s in siblings if s != cite.rule}
        # Only a keyword written next to the id speaks against it ("exalted … 702.90a"); one further
        # along the line may be about something else.
        near = self.named(cite, near=True)
        wrong = [kw for kw in named if kw in near and kw not in others and kw != own]
        return (False, wrong) if wrong else (None, [])

    # -- suggestions -----------------------------------------------------------------------
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

    def similar(self, base: NodeRecord, limit: int = 3) -> list[str]:
        """Clauses of the against version most like ``base`` in wording (same section and depth)."""
        if self._words is None:
            self._words = [(n.rule, _words(n.text)) for n in self.store.nodes(self.against)
                           if ruleid.is_clause(n.rule) and ruleid.parse(n.rule)]  # fmt: skip
        want, section, mine = ruleid.level(base.rule), base.rule[0], _words(base.text)
        scored = []
        for rule, words in self._words:
            if rule[0] != section or not words or not mine or ruleid.level(rule) != want:
                continue
            dice = 2 * len(mine & words) / (len(mine) + len(words))
            if dice >= 0.6:
                scored.append((dice, rule))
        scored.sort(key=lambda pair: (-pair[0], ruleid.sort_key(pair[1])))
        return [r for _, r in scored[:limit]]

    def successors(self, rule: str, version: VersionInfo) -> list[str]:
        """Where ``rule`` of ``version`` went by the against version (history's moves, else same text)."""
        if _successor is not None:
            moves = _successor(self.store, self.game, self.lang, rule, version.label)
            moves = [(r, lab) for r, lab in moves if self._label_le(lab, self.against.label)]
            if moves and moves[-1][0] and self.node(moves[-1][0], self.against):
                return [moves[-1][0]]
        base = self.node(rule, version)
        if base is not None:
            if self._nodes is None:
                self._nodes = self.store.nodes(self.against)
            return [n.rule for n in self._nodes if n.hash == base.hash and n.rule != rule][:1]
        return []

    def _label_le(self, a: str, b: str) -> bool:
        labels = [v.label for v in self.chain]
        return a in labels and b in labels and labels.index(a) <= labels.index(b)

    def suggest(self, rule: str, base_version: VersionInfo | None, keywords: list[str], *, moved: bool) -> list[str]:
        """Clause ids probably meant, best first: the clause's own moves, the keyword named, similar text."""
        out: list[str] = []
        if moved and base_version is not None:
            out += self.successors(rule, base_version)
        out += self.keyword_targets(rule, keywords)
        if moved and base_version is not None:
            base = self.node(rule, base_version)
            if base is not None:
                title = self.title_of(rule, base_version)
                ranked = self.similar(base)
                # A suggestion under the same rule title (the keyword) as the cited clause ranks first.
                same_title = [r for r in ranked if title and self.title_of(r, self.against) == title]
                out += same_title or ranked
        return list(dict.fromkeys(out))[:3]

    def quote_targets(self, cite: Cite) -> list[str]:
        """Clauses of the against version holding the text the citation quotes."""
        said = [_norm(q) for q in forms.quotes(cite.context)]
        if not said:
            return []
        if self._nodes is None:
            self._nodes = self.store.nodes(self.against)
        return [n.rule for n in self._nodes if any(q in _norm(n.text) for q in said)][:3]

    def named(self, cite: Cite, *, near: bool = False) -> list[str]:
        """Keyword-ability titles the citation's context names (``near``: within 40 characters of the id)."""
        if not cite.rule.startswith("702."):
            return []
        if self._keyword_re is None:
            names = sorted(self.keywords(), key=len, reverse=True)
            alternation = "|".join(re.escape(kw) for kw in names) or "(?!)"
            self._keyword_re = re.compile(rf"(?<![a-z])({alternation})(?:s|ed|ing)?(?![a-z])")
        text = cite.context.lower()
        if near:
            at = text.find(cite.rule.split(".")[0] + ".")
            text = text[max(0, at - 40) : at + len(cite.raw) + 40] if at >= 0 else text
        return list(dict.fromkeys(m.group(1) for m in self._keyword_re.finditer(text)))

    # -- one citation ----------------------------------------------------------------------
    def resolve(self, cite: Cite, siblings: list[str]) -> dict:
        """The link JSON fields for one citation."""
        A = self.against
        node_a = self.node(cite.rule, A)
        notes = []
        if node_a is None and A.partial:
            # A partial version (a quote, one viewer page) lacks most clauses: absence there proves nothing.
            holder = self.last_holding(cite.rule)
            if holder is not None:
                notes.append(f"{A.label} is partial; resolved against {holder.label}")
                A, node_a = holder, self.node(cite.rule, holder)
        written = self.in_force(date.fromisoformat(cite.written)) if cite.written else None
        node_w = self.node(cite.rule, written) if written else None
        keywords: list[str] = []
        if node_a is None:
            status = "orphan"
            base = written if node_w else self.last_holding(cite.rule)
            notes.append(
                f"{cite.rule} is not in {A.label}" + (f" (last in {base.label})" if base else " (in no version)")
            )
        else:
            base = A
            agree_a, keywords = self.agrees(cite, A, siblings)
            if node_w is not None and not self.covers(self.window(cite.rule, written), A):
                agree_w, kw_w = self.agrees(cite, written, siblings)
                base = written
                if agree_w is False:
                    status, keywords = "mismatch", kw_w
                    notes.append(f"did not fit {cite.rule} even in {written.label}, the edition it was written against")
                else:
                    status = "stale"
                    if written.sort_date <= A.sort_date:
                        notes.append(f"{cite.rule} changed after {written.label}, the edition it was written against")
                    else:
                        notes.append(
                            f"{cite.rule} in {A.label} differs from {written.label}, the edition it was written against"
                        )
            elif agree_a is False:
                status = "mismatch"
                what = ", ".join(keywords) if keywords else "the quoted text"
                notes.append(
                    f"{what} does not fit {cite.rule} ({self.title_of(cite.rule, A) or 'untitled'}) in {A.label}"
                )
            else:
                status = "ok"
        if written is None and cite.written:
            notes.append(f"written {cite.written}, before every stored edition")
        # The window of the text the citation means: the written edition's when it went stale.
        window = (
            self.window(cite.rule, base)
            if base and status != "mismatch"
            else (self.window(cite.rule, A) if node_a else (None, None))
        )
        if status == "orphan":
            keywords = (
                [kw for kw in self.named(cite) if kw != self.title_of(cite.rule, base)] if base else self.named(cite)
            )
        suggest = [] if status == "ok" else self.suggest(cite.rule, base, keywords, moved=status in ("orphan", "stale"))
        if status != "ok":
            suggest = list(dict.fromkeys([*self.quote_targets(cite), *suggest]))[:3]
        suggest = [s for s in suggest if not (status == "mismatch" and s == cite.rule)]
        return {
            "status": status, "valid_from": window[0], "valid_to": window[1], "suggest": suggest,
            "note": "; ".join(notes), "written_version": written.label if written else None,
        }  # fmt: skip


def _heading(title: str, text: str) -> str:
    """A rule's title, lower case: "702.90. Battle Cry" keeps it as the title or as a one-line text."""
    name = title or (text if len(text) <= 40 and "\n" not in text and not text.endswith(".") else "")
    return name.lower().strip(" .")


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]+", text.lower()))


def _norm(text: str) -> str:
    return re.sub(r"[^\w]+", " ", text.lower()).strip()


def _contained(quote: str, body: str) -> bool:
    """True if most of ``quote`` appears in ``body`` (punctuation and case ignored)."""
    q, b = _norm(quote), _norm(body)
    if q in b:
        return True
    qw, bw = q.split(), b.split()
    m = difflib.SequenceMatcher(None, qw, bw, autojunk=False)
    matched = sum(block.size for block in m.get_matching_blocks())
    return matched >= 0.85 * len(qw)
