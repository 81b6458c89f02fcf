"""The search service: run a query's tiers (kb.search.query) over the index, filter by version, shape results.

Query building lives in kb.search.query and ranking priors in kb.search.ranking; this module opens the index,
scopes a search to a game, language and version, collects each tier's hits and reads their texts.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections import OrderedDict
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from whoosh import index as windex
from whoosh.query import And, Query, Term

from kb import ruleid
from kb.analysis import words
from kb.errors import RulekbError
from kb.loadtime import one_time_load
from kb.search import fusion, learned, results, semantic, spelling
from kb.search.bounded import Deadline, whoosh_search
from kb.search.confidence import LOW, confidence
from kb.search.counting import MatchCounter
from kb.search.fusion import fuse, words_only
from kb.search.index import CURRENT_DIR
from kb.search.query import (
    ALL_LAYERS,
    GAME_HINTS,
    HAS_JA,
    MAX_QUERY,
    MAX_UNITS,
    QUOTES,
    QueryBuilder,
    Tiers,
    bigram_query,
    clean_query,
    is_rule_query,
    quoted,
    rule_reference,
)
from kb.search.ranking import (
    GAME_BIAS,
    HIER,
    NEGATION_AGREES,
    POOL,
    SUPERSEDED,
    agrees,
    lift_parents,
    prior,
    settled,
)
from kb.search.results import BESIDE
from kb.search.scores import TierScorer
from kb.search.spelling import Speller
from kb.snippets import snippet_for

RANKED_KEPT = 256  # ranking passes kept: a searcher's recent searches, for their next pages

__all__ = ["ALL_LAYERS", "HIER", "MAX_QUERY", "MAX_UNITS", "Searcher"]

READ_ALIKE = 2.65  # the tier of a heading or term whose name reads as the query does
DM_RATIO = 4.0  # how much more frequent in Duel Masters' texts a word must be to name that game
_EN_PREFIX = re.compile(r"^\s*(?:rule|cr|c\.r\.)\b", re.I)


log = logging.getLogger(__name__)

TEXTS_KEPT = 30_000  # documents' (title, text) kept in memory: the default scope has about 9,000


_said: set[str] = set()


def _say_once(message: str) -> None:
    """Log why semantic ranking is off, once per process (the web app opens a searcher per thread;
    the CLI prints ``Searcher.semantic_status()`` itself)."""
    if message not in _said:
        _said.add(message)
        log.info(message)


@dataclass
class _Ranked:
    """One ranking pass (Searcher._rank): the fused order and what the page is made from."""

    ranked: Any
    scored: dict[int, tuple[float, float]]
    dense: list[tuple[int, float]]
    total: int
    lits: list[str]
    notes: list[str]
    rule_query: bool


@dataclass
class _Pass:
    """One search's working state, handed to each tier it runs: the Whoosh searcher and scope, how
    many hits are wanted, the game the query's words point to, hits so far and the clause each is."""

    s: Any
    docs: set[int] | None
    want: int
    prefer: str | None
    scored: dict[int, tuple[float, float]]
    where: dict[int, tuple[str, str, str]] = field(default_factory=dict)
    negated: list[str] = field(default_factory=list)  # the words the query negates
    parts: dict = field(default_factory=dict)  # each word's DisMax, scored once for every tier (kb.search.scores)


class Searcher:
    """Search one KB generation (store + index); long-lived and safe to share between threads.

    ``search(...)`` returns a list of hits; ``search_page(...)`` returns ``{"total", "hits"}`` for
    pagination (``total`` counts every match in scope). Hit keys: kind, game, lang, version, rule,
    title, text, snippet, highlights ([start, end] offsets into ``snippet``, which is an exact slice
    of the original ``text``, or of the title for a heading without text, starting at ``snippet_start``), score, also_in, and article_id for articles.
    """

    def __init__(self, store, index_dir: str | Path, *, layers: frozenset[str] = ALL_LAYERS, arrays: bool = True):
        self.store = store
        self.layers = layers
        # The word tiers scored on arrays (kb.search.scores), or by Whoosh's matchers: the same hits
        # and scores either way (tested); False is the baseline bench/search.py times it against.
        self.arrays = arrays
        try:
            self.ix = windex.open_dir(str(index_dir))
            current = Path(index_dir) / CURRENT_DIR
            self.ix_current = windex.open_dir(str(current)) if current.is_dir() else None
        except Exception as exc:  # a missing or half-written index: tell the user what to do
            raise RulekbError(
                f"{index_dir}: no usable search index ({exc.__class__.__name__}); run `rulekb build`"
            ) from None
        self.index_dir = Path(index_dir)
        self._dense_ix: dict[str, semantic.DenseIndex | None] = {}
        self._dense_cover: dict[tuple, bool] = {}
        self._dense_off: str | None = None
        self._holds: dict[str, bool] = {}  # version id -> the current index holds all its documents
        self.fusion: dict = {}  # overrides of kb.search.fusion's constants (bench/relevance.py --fusion)
        self._embedder = None
        self._ranker: learned.Model | None | bool = False  # False: not loaded yet
        self.capture: list | None = None  # bench/train_ranker.py: each page's candidates and features
        self._clause_docs: dict | None = None  # (game, lang, rule) -> document of the default scope (learned)
        self._clause_lookups = 0
        self.variant_heads: dict[str, set[str]] | None = None  # rules 800–999's heading words (learned)
        self.schema = self.ix.schema  # read once: Index.schema reads the index's table of contents each time
        self.vocab = self.schema["ja"].analyzer.vocab
        self.builder = QueryBuilder.from_index(index_dir, self.vocab, layers, self._current_reader)
        self.thesaurus = self.builder.thesaurus
        self._local = threading.local()
        self._filters: dict[tuple, set[int]] = {}
        self._game_df: dict[str, tuple[int, int]] = {}  # word -> (Duel Masters docs, Magic docs) holding it
        self._speller: Speller | None = None  # English words typed wrong (built at the first English query)
        self._counters = {True: MatchCounter(), False: MatchCounter()}  # matches of the current / full index
        self._scorers = {True: TierScorer(), False: TierScorer()}  # word tiers' top hits, on arrays
        self._texts: dict[tuple, tuple[str, str]] = {}  # (kind, hash or ref, lang) -> (title, text)
        self._stored: dict[str, dict[int, dict]] = {"current": {}, "full": {}}  # stored fields by document
        self._ranked_cache: OrderedDict[tuple, _Ranked] = OrderedDict()  # recent searches' ranking passes
        self._ranked_lock = threading.Lock()
        # What each version is (official, official-translation, private-translation, viewer, wiki-quote);
        # an article, which has no version, is a wiki page.
        self._provenance = {(v.game, v.lang, v.label): v.meta.get("provenance") for v in store.versions()}
        # Versions shown by default only for want of newer text (the 2008 translation beside 2026's).
        newest = {(v.game, v.lang): v.sort_date for v in store.versions() if v.sort_date}
        self.superseded_ids = {
            (v.game, v.lang, v.label): (v.id, v.sort_date)
            for v in store.versions()
            if v.sort_date
            and v.sort_date[:4].isdigit()
            and int(newest[(v.game, v.lang)][:4]) - int(v.sort_date[:4]) > 5
        }
        self._superseded = set(self.superseded_ids)

    def _searcher(self, current: bool = False):
        """This thread's Whoosh searcher of the full index, or of the default-scope one."""
        name = "current" if current else "full"
        s = getattr(self._local, name, None)
        if s is None:
            s = (self.ix_current if current else self.ix).searcher()
            s.stored_fields = _kept_fields(s.stored_fields, self._stored[name])
            setattr(self._local, name, s)
        return s

    def full_searcher(self):
        """This thread's Whoosh searcher of the full index (every version)."""
        return self._searcher(False)

    def _current_reader(self):
        """This thread's reader of the default-scope index, or None when there is none."""
        return self._searcher(True).reader() if self.ix_current is not None else None

    # -- public ----------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        game: str | None = None,
        lang: str | None = None,
        version: str | None = None,
        limit: int = 10,
        offset: int = 0,
    ) -> list[dict]:
        """Hits for ``query`` in scope, best first (see the class docstring for their keys)."""
        return self._run(query, game, lang, version, limit, offset, count=False)["hits"]

    def search_page(
        self,
        query: str,
        *,
        game: str | None = None,
        lang: str | None = None,
        version: str | None = None,
        limit: int = 10,
        offset: int = 0,
    ) -> dict:
        """``{"total": N, "hits": [...], "notes": [...], "partial": bool}``: one page of hits, the number of
        matches in scope, notes for the user, and whether the query's time budget cut its last tiers."""
        return self._run(query, game, lang, version, limit, offset, count=True)

    def _run(self, query, game, lang, version, limit, offset, *, count: bool) -> dict:
        """One page of hits; a query with a mistyped English word is searched as corrected, and says so."""
        spelled = self._spelled(clean_query(query))
        page = self._search(spelled[0] if spelled else query, game, lang, version, limit, offset, count=count)
        page["notes"][:0] = spelled[1] if spelled else []
        page["spelled"] = spelled[0] if spelled else None  # the query as searched, when a word was mistyped
        return page

    def _search(self, query, game, lang, version, limit, offset, *, count: bool) -> dict:
        text = clean_query(query)
        if limit < 1 or offset < 0:
            raise RulekbError("limit must be at least 1 and offset at least 0")
        ref = rule_reference(text)
        if ref is not None and ref.rule != ruleid.normalize(text):
            # "704.5a項", "r704.5a", "dm 101.1", "5.5.0.0 409.1": the number, in the game and version said
            text = query = ref.rule
            game = game or ref.game
            if ref.version and not version:
                with contextlib.suppress(RulekbError):  # a version this KB holds once, else the default scope
                    version = self.store.find_version(ref.version, game, lang).label
        if not game and not is_rule_query(text):
            # "デュエマの…", "MTGで…": a game named in the query narrows it (when that game has hits).
            hint = next((g for g, names, _ in GAME_HINTS if names.search(text)), None)
            if hint:
                page = self._search(query, hint, lang, version, limit, offset, count=count)
                if page["hits"] or offset:
                    return page
        deadline = Deadline()  # after the narrowed try: a try that found nothing leaves this one its budget
        s, docs, shown = self._scope(game, lang, version)
        phrases = quoted(text)
        if phrases:
            # "quoted words" must appear as written (up to width, case, dots and inflection).
            docs = self._phrase_docs(s, phrases, docs)
            text = QUOTES.sub(" ", text).strip() or phrases[0]
        want = offset + limit
        # The game's nickname is a filter (see above), not a word to find.
        stripped = next((drop.sub(" ", text) for g, _, drop in GAME_HINTS if g == game), text).strip() or text
        key = (game, lang, version) if not phrases else None
        # The query's vector is computed on another thread while the word tiers run (the embedder's
        # C engine releases the GIL): a search costs the longer of the two, not their sum.
        qvec = None if is_rule_query(text) else self._start_query_vector(stripped, s, docs, key)
        # One row per clause: a row may hold two documents (a clause and its other language), so a page
        # of ``want`` rows may need more documents than ``want``; rank again for more only then.
        exact = self.exact(s, text, docs)
        prefer = None if game else self._game_of(text)
        # The learned ranker re-orders a fixed depth of candidates: the first pages are ranked alike
        # whatever their offset (a page of ten and a page of forty share their top ten).
        depth = max(want, learned.PAGE_DEPTH) if "learned" in self.layers else want
        need, ranked_before = depth, -1
        while True:
            rank_key = (query, game, lang, version, need, count, tuple(sorted(self.fusion.items())))
            p = self._ranked_before(rank_key)
            if p is None:
                p = self._rank(s, docs, text, stripped, phrases, exact, prefer, need, count, deadline, qvec, key)
                if not deadline.hit and self.capture is None:
                    self._remember_ranked(rank_key, p)
            rows = results.one_row_per_clause(p.ranked.order, lambda d: self._clause_of(s, d, shown), want)
            if len(rows) >= want or len(p.ranked.order) <= ranked_before or need >= 8 * depth or deadline.spent():
                break  # full, or asking for more found no more, or enough tries
            need, ranked_before = need * 2, len(p.ranked.order)
        merged = sum(other is not None for _, other in rows)
        hits = []
        for d, other in rows[offset:]:
            hit = self._hit_of(s, d, p.ranked, shown, p.lits)
            if other is not None:
                hit["other"] = {k: v for k, v in self._hit_of(s, other, p.ranked, shown, p.lits).items() if k in BESIDE}
            hits.append(hit)
        notes = list(p.notes)  # a ranking pass is kept for the next pages: not changed here
        if "priors" in self.layers and offset == 0 and not p.rule_query:
            results.removed_rules(self, hits, p.lits)
            del hits[limit:]
        if is_rule_query(text) and not (game or version) and offset == 0:
            notes += results.other_game(
                self, text, {h["game"] for h in hits if h["rule"] == ruleid.normalize(text)}, lang, hits
            )
        if deadline.hit:
            log.warning("query %r stopped after %.1f CPU s: its lower tiers were skipped", text, deadline.budget)
            notes.append(f"the search stopped after {deadline.budget:g} s: these are the hits it found by then")
        signals = {
            "tier": max((p.scored[d][0] for d in p.ranked.order[:want] if d in p.scored), default=None),
            "cosine": p.dense[0][1] if p.dense else None,
            "rule": p.rule_query,
        }
        sure = confidence(stripped, **signals) if hits else LOW
        for h in hits:
            h["confidence"] = sure
        return {
            # every match is on a row when the rows ran out: then the count is exact
            "total": len(rows) if len(rows) < want and not deadline.hit else max(p.total - merged, len(rows)),
            "hits": hits,
            "notes": notes,
            "partial": deadline.hit,
            "confidence": sure,
            "signals": signals,
        }

    def _spelled(self, text: str) -> tuple[str, list[str]] | None:
        """(the query with its mistyped English words corrected, a note saying so), or None when no word is
        (kb.search.spelling): a rule number, a quoted phrase and the thesaurus' words stay as typed."""
        if is_rule_query(text) or quoted(text) or not re.search(rf"[A-Za-z]{{{spelling.MIN_LEN}}}", text):
            return None
        if self._speller is None:
            with one_time_load():  # ~70 ms once a process: not a query's time
                self._speller = Speller.of_reader(self._searcher(False).reader())
        th = self.thesaurus
        fixed, fixes = self._speller.text(text, keep=lambda w: w in th.en2ja or (w,) in th.rewrites)
        if not fixes:
            return None
        typed = ", ".join(f"“{t}”" for t, _ in fixes)
        return fixed, [f"searched for “{fixed}”: no text has {typed}"]

    def forget_ranked(self) -> None:
        """Drop the kept ranking passes (benchmarks time searches ranked afresh)."""
        with self._ranked_lock:
            self._ranked_cache.clear()

    def _ranked_before(self, rank_key: tuple) -> _Ranked | None:
        with self._ranked_lock:
            p = self._ranked_cache.get(rank_key)
            if p is not None:
                self._ranked_cache.move_to_end(rank_key)
            return p

    def _remember_ranked(self, rank_key: tuple, p: _Ranked) -> None:
        """Keep a ranking pass: the next page of the same search (any page within the ranked depth,
        any page size) is cut from it instead of ranked again; a pass cut short by the budget is not kept."""
        with self._ranked_lock:
            self._ranked_cache[rank_key] = p
            while len(self._ranked_cache) > RANKED_KEPT:
                self._ranked_cache.popitem(last=False)

    def _rank(self, s, docs, text, stripped, phrases, exact, prefer, need, count, deadline, qvec, key) -> _Ranked:
        """One ranking pass for ``need`` documents: exact hits, word tiers, dense fusion, page order."""
        scored: dict[int, tuple[float, float]] = {d: (3.0, 1000.0 - i) for i, d in enumerate(exact)}
        run = _Pass(s, docs, need, prefer, scored)
        total = len(exact)
        lits: list[str] = []
        rule_query = bool(exact and is_rule_query(text))
        notes = results.rule_notes(self, s, text, exact, docs, scored) if is_rule_query(text) else []
        if not rule_query:
            total, found = self._word_tiers(run, text, stripped, len(exact), count, deadline)
            lits = phrases + found
        if "priors" in self.layers:
            lift_parents(scored, run.where)
        dense = self._dense(qvec, docs, key) if qvec is not None else []
        settings = dict(self.fusion)
        long_guard = settings.pop("long_guard", None)
        if long_guard is not None and len({w.key for w in words(stripped, self.vocab)}) >= 3:
            settings["guard"] = long_guard  # a question: "all words" may be all the wrong words
        ranked = fuse(scored, dense, **settings) if dense else words_only(scored)
        if "learned" in self.layers and not rule_query and not deadline.spent():
            model = self.ranker()
            if model is not None or self.capture is not None:
                facts = learned.query_facts(self, s, stripped, prefer)
                learned.rerank(self, s, model, facts, ranked, scored, dense, qvec, need, self.capture)
        if "priors" in self.layers:
            results.arrange_page(self, s, ranked, scored, docs, need, lang_first="ja" if HAS_JA.search(text) else None)
        return _Ranked(ranked, scored, dense, max(total, len(ranked.order)), lits, notes, rule_query)

    def _clause_of(self, s, d: int, shown: str | None) -> tuple | None:
        """(game, rule) when document ``d`` is a clause whose other-language text may share its row
        (kb.search.results.one_row_per_clause), with its language; None otherwise."""
        f = s.stored_fields(d)
        if f.get("kind") != "rule" or not f.get("rule"):
            return None
        version = shown or f.get("dver") or None
        if self._provenance.get((f["game"], f["lang"], version)) == "private-translation":
            return None  # the 2008 translation's numbers are an older numbering's, not the same clause
        return (f["game"], f["rule"]), f["lang"]

    def _hit_of(self, s, d: int, ranked, shown: str | None, lits: list[str]) -> dict:
        hit = self.hit(s, d, ranked.score[d], shown, lits)
        hit["why"] = ranked.why[d]
        return hit

    def _word_tiers(
        self, run: _Pass, text: str, stripped: str, exact: int, count: bool, deadline: Deadline
    ) -> tuple[int, list[str]]:
        """Collect the query's word tiers into ``run.scored``; return (matches in scope, literal words).

        Tiers decide the order, best first; a lower tier runs only while the page is not full and the
        query's budget lasts. With ``count`` the loose query's matches are counted (not scored).
        """
        scored, want = run.scored, run.want
        tiers, loose, lits = self.build_query(stripped)
        run.negated = self.builder.negated(stripped)
        alike = "reading" in self.layers
        for tier, q in tiers:
            if settled(scored, tier) >= want or deadline.spent():
                break
            if alike and tier < READ_ALIKE:
                alike = False
                self._names_read_alike(run, stripped)
            self._collect(run, q, tier)
        if settled(scored, 1.0) < want and "bigram" in self.layers and HAS_JA.search(text) and not deadline.spent():
            bq = bigram_query(text)
            if bq is not None:
                self._collect(run, bq, 1.0)
        if loose is not None and settled(scored, 0.0) < want and not deadline.spent():
            self._collect(run, loose, 0.0)
        if count and loose is not None and deadline.left():
            # every match counted, none scored (a top-1 search's count leaves out the low scorers)
            matches = self._counters[run.s is self._searcher(True)].count(run.s, loose, run.docs)
            return exact + max(len(scored) - exact, matches), lits
        return len(scored), lits

    def _phrase_docs(self, s, phrases: list[str], docs: set[int] | None) -> set[int]:
        """Documents in scope holding every quoted phrase (Japanese words in order, English words as written)."""
        out = docs
        for phrase in phrases:
            q = self.builder.phrase(phrase)
            found = set(q.docs(s)) if q is not None else set()
            out = found if out is None else out & found
        return out if out is not None else set()

    def ranker(self) -> learned.Model | None:
        """The learned ranker (kb/data/ranker.json), loaded on first use; None when there is none."""
        if self._ranker is False:
            with one_time_load():
                self._ranker = learned.Model.load()
        return self._ranker

    # -- semantic --------------------------------------------------------------------------
    def semantic_status(self) -> str | None:
        """Why semantic ranking was off for the searches so far (None when it was on or not needed): it
        tells what they found out and loads nothing, so a rule number's jump never loads the model."""
        return self._dense_off

    def _dense_index(self, current: bool):
        """The dense index of the current or full Whoosh index, opened on first use (None: off)."""
        which = "current" if current else "full"
        if which not in self._dense_ix:
            ix = None
            if "dense" not in self.layers:
                self._dense_off = "semantic ranking is off (not requested)"
            else:
                embedder = semantic.load_embedder()
                if embedder is None:
                    self._dense_off = semantic.unavailable_reason()
                else:
                    with one_time_load():
                        ix = semantic.DenseIndex.open(self.index_dir, embedder.name, which)
                        semantic.seed_names(embedder, self.index_dir)
                    if ix is None and current:
                        self._dense_off = (
                            "semantic ranking is off: this index has no vectors of "
                            f"{embedder.name} (rebuild with `rulekb build --force`)"
                        )
                    self._embedder = embedder
            self._dense_ix[which] = ix
            if current and self._dense_off and "not requested" not in self._dense_off:
                _say_once(self._dense_off)
        return self._dense_ix[which]

    def _start_query_vector(self, text: str, s, docs: set[int] | None, key: tuple) -> tuple[Future, Any] | None:
        """Start embedding ``text`` when the scope has vectors (None when dense retrieval does not apply)."""
        current = s is self._searcher(True) and self.ix_current is not None
        ix = self._dense_index(current)
        if ix is None:
            return None
        if key not in self._dense_cover:
            self._dense_cover[key] = ix.covers(docs, s.doc_count_all())
        if not self._dense_cover[key]:
            return None  # an old version: its documents have no vectors
        return semantic.query_thread().submit(self._embedder, text), ix

    def _dense(self, qvec: tuple[Future, Any], docs: set[int] | None, key: tuple) -> list[tuple[int, float]]:
        """The dense top-k in scope for the query vector being computed (``_start_query_vector``)."""
        vec, ix = qvec
        return ix.top(vec.result(), self.fusion.get("pool", fusion.POOL), docs, key)

    def term_postings(self, s, field: str, key: str):
        """(sorted document numbers, BM25F scores) of one term in searcher ``s``'s index, kept for the
        next searches; (None, None) for a term the index lacks; None without numpy."""
        return self._scorers[s is self._searcher(True)].postings(s, field, key) if self.arrays else None

    def _collect(self, run: _Pass, q: Query, tier: float) -> None:
        """Add one tier's hits, nudged towards clauses over sub-clauses and current over superseded texts."""
        limit = int(run.want * POOL)
        scorer = self._scorers[run.s is self._searcher(True)] if self.arrays else None
        found = scorer.top(run.s, q, run.docs, limit, run.parts) if scorer else None
        if found is None:  # a phrase, a prefix: Whoosh scores it
            found = [(hit.docnum, hit.score) for hit in whoosh_search(run.s, q, filter=run.docs, limit=limit)]
        for docnum, score in found:
            if docnum not in run.scored:
                f = run.s.stored_fields(docnum)
                bias = prior(f.get("kind"), f.get("rule") or "") if "priors" in self.layers else 1.0
                if (f.get("game"), f.get("lang"), f.get("dver")) in self._superseded and "priors" in self.layers:
                    bias *= SUPERSEDED
                if f.get("game") == run.prefer and "priors" in self.layers:
                    bias *= GAME_BIAS
                if run.negated and "priors" in self.layers and agrees(self.text_of(f), run.negated):
                    bias *= NEGATION_AGREES
                run.scored[docnum] = (tier, score * bias)
                if f.get("kind") == "rule":
                    run.where[docnum] = (f["game"], f["lang"], f["rule"])

    def _names_read_alike(self, run: _Pass, text: str) -> None:
        """Tier 2.65: headings and terms whose name reads as the query does (an IME slip: 回避脳力 for
        回避能力, 先頭ダメージ for 戦闘ダメージ; or a kanji name typed in kana)."""
        reading = self.builder.reading_of(text)
        if not reading or len(reading) < 3:
            return
        for hit in whoosh_search(run.s, Term("jr", reading), filter=run.docs, limit=30):
            f = hit.fields()
            if hit.docnum in run.scored or f["kind"] not in ("term", "rule"):
                continue
            title = self.title_of(f)
            name = title.split(" / ")[0] if f["kind"] == "term" else title.split("／")[0].strip()
            if name and self.builder.reading_of(name) == reading:
                run.scored[hit.docnum] = (READ_ALIKE, hit.score)
                if f["kind"] == "rule":
                    run.where[hit.docnum] = (f["game"], f["lang"], f["rule"])

    def _game_of(self, text: str) -> str | None:
        """The game a query's Japanese words point to: Duel Masters when one of them is far more
        frequent in its texts than in Magic's (シールド, マナゾーン, ブレイク), else Magic, the larger KB."""
        if self.ix_current is None:
            return None
        if not HAS_JA.search(text):
            # Duel Masters' rules are Japanese only: a query with no Japanese (SBA, trample) is Magic's
            return "mtg" if self._scope("mtg", None, None)[1] else None
        s = self._searcher(True)
        dm, mtg = self._scope("dm", "ja", None)[1], self._scope("mtg", "ja", None)[1]
        if not dm or not mtg:
            return None
        for w in words(text, self.vocab):
            if w.key not in self._game_df:
                ids = set(s.reader().postings("ja", w.key).all_ids()) if (("ja", w.key) in s.reader()) else set()
                self._game_df[w.key] = (len(ids & dm), len(ids & mtg))
            n_dm, n_mtg = self._game_df[w.key]
            # Magic's Japanese texts are partial and partly old (プレイする for 唱える): a word its
            # JA<->EN glossary knows is a Magic word too, whatever its frequency there.
            if (
                n_dm >= 2
                and n_dm / len(dm) > DM_RATIO * (n_mtg + 0.5) / len(mtg)
                and not self.thesaurus.to_english([w.key])
            ):
                return "dm"
        return "mtg"

    # -- query -----------------------------------------------------------------------------
    def build_query(self, text: str) -> tuple[Tiers, Query | None, list[str]]:
        """(tiers, loose, highlight literals) for user text (see kb.search.query.QueryBuilder.build)."""
        return self.builder.build(text)

    @staticmethod
    def exact(s, text: str, docs: set[int] | None) -> list[int]:
        """Docs of the clause a rule-number query names (``509.1c``, ``ルール509.1c``, ``CR 509.1c``)."""
        rule = ruleid.normalize(text)
        if ruleid.parse(rule) is None:
            return []
        found = [d for d in s.document_numbers(rule=rule) if docs is None or d in docs]
        english_first = bool(_EN_PREFIX.match(text))
        kinds = {"rule": 0, "term": 1, "article": 2}

        def order(d: int) -> tuple:
            f = s.stored_fields(d)
            return (kinds.get(f["kind"], 3), (f["lang"] == "ja") == english_first, f["game"] != "mtg")

        return sorted(found, key=order)

    # -- scope -----------------------------------------------------------------------------
    def _scope(self, game: str | None, lang: str | None, version: str | None):
        """(Whoosh searcher, doc numbers in scope or None for all, label to show or None).

        The default scope reads the small current index; a named version reads the full one,
        filtered on its ``vers`` term. Filters are cached: the index never changes under a Searcher.
        """
        token, shown = "default", None
        if version and not (version == "latest" and not (game and lang)):
            v = (
                self.store.find_version(version, game, lang)
                if version != "latest"
                else self.store.get_version(game, lang, "latest")
            )
            token, shown = str(v.id), v.label
        current = self.ix_current is not None and (token == "default" or self._current_holds(token))
        s = self._searcher(current)
        clauses: list[Query] = [] if token == "default" else [Term("vers", token)]
        if game:
            clauses.append(Term("game", game))
        if lang:
            clauses.append(Term("lang", lang))
        if not clauses:
            return s, None, shown
        key = (current, token, game, lang)
        if key not in self._filters:
            q = And(clauses) if len(clauses) > 1 else clauses[0]
            self._filters[key] = set(q.docs(s))
        return s, self._filters[key], shown

    def _current_holds(self, token: str) -> bool:
        """True when every document of version ``token`` is in the small current index (the newest
        edition of a game and language usually is): its search reads that index, a third of the size."""
        if token not in self._holds:
            full = self._searcher(False).doc_frequency("vers", token)
            self._holds[token] = full > 0 and self._searcher(True).doc_frequency("vers", token) == full
        return self._holds[token]

    # -- results ---------------------------------------------------------------------------
    def warm_forms(self) -> int:
        """Read the Sudachi forms of every text of the default scope now, as the ranker reads them (a
        few seconds a server spends once, not its first few thousand searches a few milliseconds
        each); how many."""
        if self.ix_current is None or "learned" not in self.layers:
            return 0
        done = 0
        for _d, f in self._searcher(True).reader().iter_docs():
            title, text = self._title_text(f)
            learned.sudachi_forms(f"{title} {text}".strip())
            done += 1
        return done

    def title_of(self, f: dict) -> str:
        """The title of a rule heading or the ``term / English`` of a glossary entry."""
        return self._title_text(f)[0]

    def text_of(self, f: dict) -> str:
        return self._title_text(f)[1]

    def _title_text(self, f: dict) -> tuple[str, str]:
        """A document's (title, text), read from the store once (a generation's texts never change)."""
        key = (f["kind"], f.get("hash") if f["kind"] == "rule" else f.get("ref"), f["lang"])
        found = self._texts.get(key)
        if found is None:
            if len(self._texts) >= TEXTS_KEPT:
                self._texts.clear()  # a rare reset keeps the memory bounded: the default scope fits
            found = self._texts[key] = self._read_title_text(f)
        return found

    def _read_title_text(self, f: dict) -> tuple[str, str]:
        if f["kind"] == "rule":
            return tuple(self.store.content(f["hash"]))
        if f["kind"] == "term":
            term, english, definition = self.store.term_entry(f["ref"])
            return term + (f" / {english}" if english and f["lang"] == "ja" else ""), definition or ""
        return tuple(self.store.article_text(f["ref"]))

    def hit(self, s, docnum: int, score: float, shown: str | None, lits: list[str]) -> dict:
        f = s.stored_fields(docnum)
        kind = f["kind"]
        version = shown or f.get("dver") or None
        hit = {
            "kind": kind,
            "game": f["game"],
            "lang": f["lang"],
            "version": version,
            "rule": f.get("rule") or None,
            "score": round(score, 4),
            "also_in": max(0, (f.get("nvers") or 0) - 1),
            "provenance": self._provenance.get((f["game"], f["lang"], version), "wiki-quote"),
        }
        title, text = self._title_text(f)
        if kind == "article":
            hit["article_id"] = f["ref"]
            hit["version"] = None
        body = text or title
        snippet, start, marks = snippet_for(body, lits)
        hit.update(title=title, text=text, snippet=snippet, snippet_start=start, highlights=marks)
        return hit


def _kept_fields(read, kept: dict[int, dict]):
    """A Whoosh searcher's ``stored_fields`` that unpickles each document once for every thread's searcher
    of the index (the index never changes under a Searcher); each call gets its own copy."""

    def stored_fields(docnum: int) -> dict:
        f = kept.get(docnum)
        if f is None:
            f = kept[docnum] = read(docnum)
        return dict(f)

    return stored_fields
