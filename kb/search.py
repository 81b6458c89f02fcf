"""The search service: parse a user's query into Whoosh queries, filter by version, shape results.

User text is never handed to Whoosh's query parser: queries are built from analysed words, so
``" ( ) AND OR NOT * : ~ ^`` are plain characters. Layers, each measured in bench/relevance.py:
words (Janome keys, katakana compounds and parts) -> readings (kana input, same-reading slips) ->
thesaurus rewrites (player words, old vocabulary) -> JA<->EN terms -> character bigrams (fallback).
"""

from __future__ import annotations

import json
import re
import threading
import unicodedata
from pathlib import Path

from whoosh import index as windex
from whoosh.analysis import StemmingAnalyzer
from whoosh.query import And, DisjunctionMax, Or, Query, Term

from kb import ruleid
from kb.analysis import Word, bigrams, fold_kana, is_kana_only, normalize, to_katakana, words
from kb.errors import RulekbError
from kb.index import TERMS_FILE
from kb.thesaurus import Thesaurus

MAX_QUERY = 1000
ALL_LAYERS = frozenset({"reading", "thesaurus", "translate", "bigram"})
_RULE_IN_TEXT = re.compile(r"(?<![\d.])([1-9]\d{2}\.\d{1,3}[a-kmnp-z]{0,2})(?![\w.])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_EN_PREFIX = re.compile(r"^\s*(?:rule|cr|c\.r\.)\b", re.I)
_HAS_JA = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
_english = StemmingAnalyzer()


def _en_terms(text: str) -> list[str]:
    return list(dict.fromkeys(t.text for t in _english(text)))


class Searcher:
    """Search one KB generation (store + index); long-lived and safe to share between threads.

    ``search(...)`` returns a list of hits; ``search_page(...)`` returns ``{"total", "hits"}`` for
    pagination (``total`` counts every match in scope). Hit keys: kind, game, lang, version, rule,
    title, text, snippet, highlights ([start, end] offsets into ``snippet``, which is an exact slice
    of the original ``text`` starting at ``snippet_start``), score, also_in, and article_id for articles.
    """

    def __init__(self, store, index_dir: str | Path, *, layers: frozenset[str] = ALL_LAYERS):
        self.store = store
        self.layers = layers
        try:
            self.ix = windex.open_dir(str(index_dir))
        except Exception as exc:  # a missing or half-written index: tell the user what to do
            raise RulekbError(f"{index_dir}: no usable search index ({exc.__class__.__name__}); run `rulekb build`") from None
        self.vocab = self.ix.schema["ja"].analyzer.vocab
        pairs_path = Path(index_dir) / TERMS_FILE
        pairs = json.loads(pairs_path.read_text(encoding="utf-8"))["ja2en"] if pairs_path.exists() else {}
        self.thesaurus = Thesaurus.load(vocab=self.vocab, pairs=pairs)
        self._local = threading.local()
        self._filters: dict[tuple, set[int]] = {}
        self._labels = {v.id: v.label for v in store.versions()}

    def _searcher(self):
        s = getattr(self._local, "searcher", None)
        if s is None:
            s = self._local.searcher = self.ix.searcher()
        return s

    # -- public ----------------------------------------------------------------------------
    def search(self, query: str, *, game: str | None = None, lang: str | None = None, version: str | None = None,
               limit: int = 10, offset: int = 0) -> list[dict]:  # fmt: skip
        """Hits for ``query`` in scope, best first (see the class docstring for their keys)."""
        return self._run(query, game, lang, version, limit, offset, count=False)["hits"]

    def search_page(self, query: str, *, game: str | None = None, lang: str | None = None, version: str | None = None,
                    limit: int = 10, offset: int = 0) -> dict:  # fmt: skip
        """``{"total": N, "hits": [...]}``: one page of hits and the number of matches in scope."""
        return self._run(query, game, lang, version, limit, offset, count=True)

    def _run(self, query, game, lang, version, limit, offset, *, count: bool) -> dict:
        text = self._clean(query)
        if limit < 1 or offset < 0:
            raise RulekbError("limit must be at least 1 and offset at least 0")
        docs, shown = self._scope(game, lang, version)
        s = self._searcher()
        want = offset + limit
        exact = self._exact(text, docs)
        scored: dict[int, float] = {d: 1000.0 - i for i, d in enumerate(exact)}
        q, highlight = self.build_query(text)
        total = len(exact)
        if q is not None:
            res = s.search(q, filter=docs, limit=want + len(exact))
            total += len(res) if count else res.scored_length()
            for hit in res:
                scored.setdefault(hit.docnum, hit.score)
            if "bigram" in self.layers and len(scored) < want and _HAS_JA.search(text):
                bq = self._bigram_query(text)
                if bq is not None:
                    floor = min(scored.values(), default=1.0)
                    bres = s.search(bq, filter=docs, limit=want)
                    top = max((h.score for h in bres), default=1.0) or 1.0
                    for hit in bres:
                        if hit.docnum not in scored:
                            scored[hit.docnum] = floor * 0.5 * hit.score / top
                            total += 1
        order = sorted(scored, key=lambda d: -scored[d])[offset:want]
        return {"total": total, "hits": [self._hit(s, d, scored[d], shown, highlight) for d in order]}

    # -- query -----------------------------------------------------------------------------
    @staticmethod
    def _clean(query: str) -> str:
        if not isinstance(query, str):
            raise RulekbError("the query must be text")
        if len(query) > MAX_QUERY:
            raise RulekbError(f"query too long ({len(query)} characters; at most {MAX_QUERY})")
        text = _CONTROL.sub(" ", query).strip()
        if not text:
            raise RulekbError("empty query: type a word, a phrase or a rule number")
        return text

    def build_query(self, text: str) -> tuple[Query | None, list[str]]:
        """The Whoosh query for user text, and the literal forms to highlight."""
        qwords = [w for w in words(text, self.vocab)]
        qkeys = [w.key for w in qwords]
        norm = normalize(text)[0]
        lits = {w.key for w in qwords} | {p for w in qwords for p, _, _ in w.parts}
        lits |= {normalize(text[w.start : w.end])[0] for w in qwords}
        lits |= {w.key[:-1] for w in qwords if w.pos in ("動詞", "形容詞") and len(w.key) > 2}
        views: list[Query] = []
        if qwords:
            views.append(self._view(qwords))
        if "reading" in self.layers and is_kana_only(text):
            kata = to_katakana(norm.replace(" ", ""))
            kw = words(kata, self.vocab)
            if kw:
                views.append(self._view(kw, boost=0.9))
            views.append(Term("jr", fold_kana(kata), boost=1.5))
            lits.add(kata)
        if "thesaurus" in self.layers:
            for i, n, dst in self.thesaurus.rewrite(qkeys)[:6]:
                alt = qwords[:i] + words(dst, self.vocab) + qwords[i + n :]
                views.append(self._view(alt, boost=0.9))
                lits.add(normalize(dst)[0])
        en = _en_terms(text)
        if en:
            views.append(self._en_view(en))
            lits.update(re.findall(r"[a-z]{3,}", norm))
        if "translate" in self.layers:
            for term in self.thesaurus.to_english(qkeys):
                views.append(self._en_view(_en_terms(term), boost=0.5))
                lits.update(term.lower().split())
            for term in self.thesaurus.to_japanese(text):
                views.append(self._view(words(term, self.vocab), boost=0.6))
                lits.add(normalize(term)[0])
        for rule in _RULE_IN_TEXT.findall(norm):
            views.append(Term("rule", rule, boost=20.0))
        lits.discard("")
        return (Or(views) if len(views) > 1 else views[0]) if views else None, sorted(lits, key=len, reverse=True)

    def _unit(self, w: Word) -> Query:
        alts: list[Query] = [Term("ja", w.key), Term("jt", w.key, boost=1.5), Term("jx", w.key, boost=0.3)]
        if "reading" in self.layers and w.reading:
            alts.append(Term("jr", w.reading, boost=0.3))
        if w.parts:
            alts.append(And([Term("ja", p) for p, _, _ in w.parts], boost=0.7))
        return DisjunctionMax(alts, tiebreak=0.1)

    def _view(self, ws: list[Word], boost: float = 1.0) -> Query:
        units = [self._unit(w) for w in dict((w.key, w) for w in ws).values()]
        if len(units) == 1:
            units[0].boost = boost
            return units[0]
        return Or([And(units, boost=1.0), Or(units)], boost=boost)

    @staticmethod
    def _en_view(stems: list[str], boost: float = 1.0) -> Query:
        units: list[Query] = [
            DisjunctionMax([Term("en", t), Term("et", t, boost=1.5), Term("ex", t, boost=0.3)], tiebreak=0.1)
            for t in stems
        ]
        if not units:
            return Or([])
        if len(units) == 1:
            units[0].boost = boost
            return units[0]
        return Or([And(units), Or(units)], boost=boost)

    @staticmethod
    def _bigram_query(text: str) -> Query | None:
        grams = list(dict.fromkeys(g for g, _, _ in bigrams(text)))
        if not grams:
            return None
        return And([Term("jb", g) for g in grams[:24]])

    def _exact(self, text: str, docs: set[int]) -> list[int]:
        """Docs of the clause a rule-number query names (``509.1c``, ``ルール509.1c``, ``CR 509.1c``)."""
        rule = ruleid.normalize(text)
        if ruleid.parse(rule) is None:
            return []
        s = self._searcher()
        found = [d for d in s.document_numbers(rule=rule) if d in docs]
        english_first = bool(_EN_PREFIX.match(text))
        kinds = {"rule": 0, "term": 1, "article": 2}

        def order(d: int) -> tuple:
            f = s.stored_fields(d)
            return (kinds.get(f["kind"], 3), (f["lang"] == "ja") == english_first, f["game"] != "mtg")

        return sorted(found, key=order)

    # -- scope -----------------------------------------------------------------------------
    def _scope(self, game: str | None, lang: str | None, version: str | None) -> tuple[set[int], str | None]:
        """Doc numbers in scope (cached) and the label to show (None: each doc's default version)."""
        token, shown = "default", None
        if version and not (version == "latest" and not (game and lang)):
            v = self.store.find_version(version, game, lang) if version != "latest" else self.store.get_version(game, lang, "latest")
            token, shown = str(v.id), v.label
        key = (token, game, lang)
        if key not in self._filters:
            clauses: list[Query] = [Term("vers", token)]
            if game:
                clauses.append(Term("game", game))
            if lang:
                clauses.append(Term("lang", lang))
            q = And(clauses) if len(clauses) > 1 else clauses[0]
            self._filters[key] = set(q.docs(self._searcher()))
        return self._filters[key], shown

    # -- results ---------------------------------------------------------------------------
    def _hit(self, s, docnum: int, score: float, shown: str | None, lits: list[str]) -> dict:
        f = s.stored_fields(docnum)
        kind = f["kind"]
        hit = {"kind": kind, "game": f["game"], "lang": f["lang"], "version": shown or f.get("dver") or None,
               "rule": f.get("rule") or None, "score": round(score, 3), "also_in": max(0, (f.get("nvers") or 0) - 1)}  # fmt: skip
        if kind == "rule":
            title, text = self.store.conn.execute("SELECT title, text FROM contents WHERE hash=?", (f["hash"],)).fetchone()
        elif kind == "term":
            row = self.store.conn.execute("SELECT term, english, definition FROM terms WHERE id=?", (f["ref"],)).fetchone()
            title = row[0] + (f" / {row[1]}" if row[1] and f["lang"] == "ja" else "")
            text = row[2] or ""
        else:
            a = self.store.conn.execute("SELECT title, text FROM articles WHERE id=?", (f["ref"],)).fetchone()
            title, text = a
            hit["article_id"] = f["ref"]
            hit["version"] = None
        body = text or title
        snippet, start, marks = snippet_for(body, lits)
        hit.update(title=title, text=text, snippet=snippet, snippet_start=start, highlights=marks)
        return hit


def highlight_spans(text: str, lits: list[str]) -> list[list[int]]:
    """[start, end] spans of ``lits`` in ``text`` (matched on NFKC + lower case), original offsets."""
    norm, starts, ends = normalize(text)
    taken = [False] * len(norm)
    spans = []
    for lit in lits:
        lit = unicodedata.normalize("NFKC", lit).lower()
        if not lit or (len(lit) < 2 and not _HAS_JA.search(lit)):
            continue
        i = norm.find(lit)
        while i >= 0:
            j = i + len(lit)
            if not any(taken[i:j]):
                taken[i:j] = [True] * (j - i)
                spans.append([starts[i], ends[j - 1]])
            i = norm.find(lit, j)
    return sorted(spans)


def snippet_for(text: str, lits: list[str], width: int = 160) -> tuple[str, int, list[list[int]]]:
    """A slice of ``text`` around the first highlight, its start, and highlight offsets inside it."""
    spans = highlight_spans(text, lits)
    start = max(0, spans[0][0] - width // 4) if spans else 0
    end = min(len(text), start + width)
    marks = [[a - start, b - start] for a, b in spans if a >= start and b <= end]
    return text[start:end], start, marks
