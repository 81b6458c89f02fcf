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
from pathlib import Path

from whoosh import index as windex
from whoosh.analysis import StemmingAnalyzer
from whoosh.query import And, DisjunctionMax, Or, Phrase, Prefix, Query, Term

from kb import ruleid
from kb.analysis import (
    PASSIVE,
    Word,
    bigrams,
    fold_kana,
    is_kana_only,
    normalize,
    snippet_for,
    title_key,
    to_katakana,
    words,
)
from kb.errors import RulekbError
from kb.index import CURRENT_DIR, TERMS_FILE
from kb.thesaurus import Thesaurus

MAX_QUERY = 1000
MAX_UNITS = 12
SUPERSEDED = 0.8  # a text shown only for want of a newer one (the 2008 translation beside 2026's)
POOL = 3.0  # hits read per tier, per hit wanted: the priors below reorder them
HIER = 0.6  # a clause scoring at least this share of its sub-clause's score is put above it
GAME_BIAS = 1.3  # hits of the game the query's words point to (see Searcher._game_of)
DM_RATIO = 4.0  # how much more frequent in Duel Masters' texts a word must be to name that game
ALL_LAYERS = frozenset({"reading", "thesaurus", "translate", "bigram"})
_RULE_IN_TEXT = re.compile(r"(?<![\d.])([1-9]\d{2}\.\d{1,3}[a-kmnp-z]{0,2})(?![\w.])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_EN_PREFIX = re.compile(r"^\s*(?:rule|cr|c\.r\.)\b", re.I)
_HAS_JA = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
_english = StemmingAnalyzer()
# Word keys (base forms, okurigana dropped) that wrap a question: 教えて, 知りたい, 分からない, 意味, やり方, ルール.
_ASKING = frozenset(["教", "知", "分", "わかる", "意味", "やり方", "仕方", "方法", "ルル", "規則"])
# (game, what names it, what to drop from the query: nicknames the rules texts never use)
_GAME_HINTS = [
    ("dm", re.compile(r"デュエマ|デュエル[・･]?マスターズ|\bDM\b", re.I), re.compile(r"デュエマ|\bDM\b", re.I)),
    ("mtg", re.compile(r"\bMTG\b|マジック|\bmagic: the gathering\b", re.I), re.compile(r"\bMTG\b", re.I)),
]


def _en_terms(text: str) -> list[str]:
    return list(dict.fromkeys(t.text for t in _english(text)))


class Searcher:
    """Search one KB generation (store + index); long-lived and safe to share between threads.

    ``search(...)`` returns a list of hits; ``search_page(...)`` returns ``{"total", "hits"}`` for
    pagination (``total`` counts every match in scope). Hit keys: kind, game, lang, version, rule,
    title, text, snippet, highlights ([start, end] offsets into ``snippet``, which is an exact slice
    of the original ``text``, or of the title for a heading without text, starting at ``snippet_start``), score, also_in, and article_id for articles.
    """

    def __init__(self, store, index_dir: str | Path, *, layers: frozenset[str] = ALL_LAYERS):
        self.store = store
        self.layers = layers
        try:
            self.ix = windex.open_dir(str(index_dir))
            current = Path(index_dir) / CURRENT_DIR
            self.ix_current = windex.open_dir(str(current)) if current.is_dir() else None
        except Exception as exc:  # a missing or half-written index: tell the user what to do
            raise RulekbError(
                f"{index_dir}: no usable search index ({exc.__class__.__name__}); run `rulekb build`"
            ) from None
        self.vocab = self.ix.schema["ja"].analyzer.vocab
        pairs_path = Path(index_dir) / TERMS_FILE
        table = json.loads(pairs_path.read_text(encoding="utf-8")) if pairs_path.exists() else {}
        self.thesaurus = Thesaurus.load(vocab=self.vocab, pairs=table.get("ja2en", {}))
        renames = [(old.split(), new.split()) for old, new, _n in table.get("renames", [])]
        self.renames = sorted(renames, key=lambda r: -len(r[0]))  # the longest old wording first
        self._local = threading.local()
        self._filters: dict[tuple, set[int]] = {}
        self._game_df: dict[str, tuple[int, int]] = {}  # word -> (Duel Masters docs, Magic docs) holding it
        # Versions shown by default only for want of newer text (the 2008 translation beside 2026's).
        newest = {(v.game, v.lang): v.sort_date for v in store.versions() if v.sort_date}
        self._superseded = {
            (v.game, v.lang, v.label)
            for v in store.versions()
            if v.sort_date
            and v.sort_date[:4].isdigit()
            and int(newest[(v.game, v.lang)][:4]) - int(v.sort_date[:4]) > 5
        }

    def _searcher(self, current: bool = False):
        """This thread's Whoosh searcher of the full index, or of the default-scope one."""
        name = "current" if current else "full"
        s = getattr(self._local, name, None)
        if s is None:
            s = (self.ix_current if current else self.ix).searcher()
            setattr(self._local, name, s)
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
        if not game and not _is_rule_query(text):
            # "デュエマの…", "MTGで…": a game named in the query narrows it (when that game has hits).
            hint = next((g for g, names, _ in _GAME_HINTS if names.search(text)), None)
            if hint:
                page = self._run(query, hint, lang, version, limit, offset, count=count)
                if page["hits"] or offset:
                    return page
        s, docs, shown = self._scope(game, lang, version)
        self._local.prefer = None if game else self._game_of(text)
        self._local.where = {}
        want = offset + limit
        exact = self._exact(s, text, docs)
        scored: dict[int, tuple[float, float]] = {d: (3.0, 1000.0 - i) for i, d in enumerate(exact)}
        total = len(exact)
        lits: list[str] = []
        if not (exact and _is_rule_query(text)):
            # The game's nickname is a filter (see above), not a word to find.
            stripped = next((drop.sub(" ", text) for g, _, drop in _GAME_HINTS if g == game), text).strip()
            tiers, loose, lits = self.build_query(stripped or text)
            # Tiers decide the order, best first; a lower tier runs only while the page is not full.
            for tier, q in tiers:
                if _settled(scored, tier) >= want:
                    break
                self._collect(s, q, tier, docs, want, scored)
            if _settled(scored, 1.0) < want and "bigram" in self.layers and _HAS_JA.search(text):
                bq = self._bigram_query(text)
                if bq is not None:
                    self._collect(s, bq, 1.0, docs, want, scored)
            if loose is not None and _settled(scored, 0.0) < want:
                self._collect(s, loose, 0.0, docs, want, scored)
            if count and loose is not None:
                total = len(exact) + max(len(scored) - len(exact), len(s.search(loose, filter=docs, limit=1)))
            else:
                total = len(scored)
        _lift_parents(scored, self._local.where)
        order = sorted(scored, key=lambda d: scored[d], reverse=True)[offset:want]
        hits = []
        for d in order:
            tier, raw = scored[d]
            # Shown score: the tier plus the score inside it squashed into [0, 0.04): tiers are >= 0.05 apart.
            hits.append(self._hit(s, d, tier + 0.04 * raw / (1.0 + raw), shown, lits))
        return {"total": total, "hits": hits}

    def _collect(self, s, q: Query, tier: float, docs, want: int, scored: dict) -> None:
        """Add one tier's hits, nudged towards clauses over sub-clauses and current over superseded texts."""
        for hit in s.search(q, filter=docs, limit=int(want * POOL)):
            if hit.docnum not in scored:
                prior = _prior(hit.get("kind"), hit.get("rule") or "")
                if (hit.get("game"), hit.get("lang"), hit.get("dver")) in self._superseded:
                    prior *= SUPERSEDED
                if hit.get("game") == self._local.prefer:
                    prior *= GAME_BIAS
                scored[hit.docnum] = (tier, hit.score * prior)
                if hit.get("kind") == "rule":
                    self._local.where[hit.docnum] = (hit["game"], hit["lang"], hit["rule"])

    def _game_of(self, text: str) -> str | None:
        """The game a query's Japanese words point to: Duel Masters when one of them is far more
        frequent in its texts than in Magic's (シールド, マナゾーン, ブレイク), else Magic, the larger KB."""
        if self.ix_current is None or not _HAS_JA.search(text):
            return None
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

    def build_query(self, text: str) -> tuple[list[tuple[float, Query]], Query | None, list[str]]:
        """(tiers, loose, highlight literals) for user text.

        A view is one way to say the query (its own words, a thesaurus rewrite, a kana reading, a
        translation), as units, one per word. Tiers, best first: 2 every unit of a native view,
        1.6 all units but one (questions carry words the clause lacks), 1.3 every unit of a
        translated view, 1.25 an English wording the editions replaced (mined renames), 1.2 every
        unit of today's words put in old vocabulary; loose = any unit of any view. Above them all, 2.5: the query's own
        words as a phrase, 2.6 a heading or term whose name starts with the query (an incomplete
        or shortened name), 2.7 a heading or term named by the query's translation, and 2.8 a
        heading, article or glossary term named exactly as the query.
        """
        qwords = words(text, self.vocab)
        # "…について教えて", "…の意味を知りたい": the wrapper of a question is no word to find.
        qwords = [w for w in qwords if w.key not in _ASKING] or qwords
        qkeys = [w.key for w in qwords]
        tkeys = qkeys
        norm = normalize(text)[0]
        lits = {w.key for w in qwords} | {p for w in qwords for p, _, _ in w.parts}
        lits |= {normalize(text[w.start : w.end])[0] for w in qwords}
        native: list[tuple[list[Query], float]] = []
        translated: list[tuple[list[Query], float]] = []
        older: list[tuple[list[Query], float]] = []
        if qwords:
            native.append((self._units(qwords), 1.0))
        if "reading" in self.layers and is_kana_only(text):
            kata = to_katakana(norm.replace(" ", ""))
            kw = words(kata, self.vocab)
            if kw:
                native.append((self._units(kw), 0.9))
                tkeys = [w.key for w in kw]  # とらんぷる is トランプル: translate that too
            native.append(([Term("jr", fold_kana(kata))], 1.2))
            lits.add(kata)
        if "thesaurus" in self.layers:
            rewrites = self.thesaurus.rewrite(qkeys)
            for alt, dsts in _rewritten(qwords, rewrites, lambda t: words(t, self.vocab)):
                native.append((self._units(alt), 0.9))
                lits.update(normalize(d)[0] for d in dsts)
            # Today's word in an old text's words (追放 -> ゲームから取り除く): below today's texts.
            for alt, dsts in _rewritten(
                qwords, self.thesaurus.rewrite(qkeys, ("older",)), lambda t: words(t, self.vocab)
            ):
                older.append((self._units(alt), 0.8))
                lits.update(normalize(d)[0] for d in dsts)
        en = _en_terms(text)[:MAX_UNITS]
        renamed: list[tuple[list[Query], float]] = []
        if en:
            native.append(([Term("en", t) for t in en], 1.0))
            lits.update(re.findall(r"[a-z]{3,}", norm))
            if "thesaurus" in self.layers:
                # Wordings the editions replaced, mined from the lineage ("tribal" -> kindred).
                for old, new in self.renames:
                    for i in range(len(en) - len(old) + 1):
                        if en[i : i + len(old)] == old:
                            stems = dict.fromkeys(en[:i] + new + en[i + len(old) :])
                            view = ([Term("en", t) for t in stems], 0.9)
                            # A wording today's texts no longer use is searched as today's at once.
                            (native if self._obsolete(old) else renamed).append(view)
                            break
        if "translate" in self.layers:
            for term in dict.fromkeys(self.thesaurus.to_english(qkeys) + self.thesaurus.to_english(tkeys)):
                translated.append(([Term("en", t) for t in _en_terms(term)], 0.5))
                lits.update(term.lower().split())
            for term in self.thesaurus.to_japanese(text):
                translated.append((self._units(words(term, self.vocab)), 0.6))
                lits.add(normalize(term)[0])
        for rule in _RULE_IN_TEXT.findall(norm):
            native.append(([Term("rule", rule, boost=20.0)], 1.0))
        native = [(u, b) for u, b in native if u]
        translated = [(u, b) for u, b in translated if u]
        lits.discard("")
        lits.discard(PASSIVE)
        tiers: list[tuple[float, Query]] = [(2.8, Term("tk", title_key(text)))]
        # 2.5: the words in the query's order, next to each other (a gap of one word allowed).
        phrases = []
        ja_keys = list(dict.fromkeys(qkeys))[:MAX_UNITS]
        if len(ja_keys) > 1 and _HAS_JA.search(text):
            phrases.append(Phrase("ja", ja_keys, slop=2))
        raw = re.findall(r"[a-z0-9']+", norm)[:MAX_UNITS]
        if len(raw) > 1:
            phrases.append(Phrase("ew", raw))
        if phrases:
            tiers.append((2.5, Or(phrases) if len(phrases) > 1 else phrases[0]))
        tkey = title_key(text)
        if len(tkey) >= 2:
            # A heading or term whose name starts with the query (ダイレクトアタック -> ダイレクトアタックステップ).
            tiers.append((2.6, Prefix("tk", tkey)))
        if native:
            tiers.append((2.0, _all_of(native)))
            fewer = [(u[:i] + u[i + 1 :], b) for u, b in native[:2] if 3 <= len(u) <= 8 for i in range(len(u))]
            if fewer:
                tiers.append((1.6, _all_of(fewer)))
        if "translate" in self.layers:
            names = self.thesaurus.names_for(qkeys, text) or self.thesaurus.names_for(tkeys, text)
            if names:
                # The query is a known term: the heading or glossary entry named by its translation.
                tiers.append((2.7, Or([Term("tk", title_key(n)) for n in names])))
        if translated:
            tiers.append((1.3, _all_of(translated)))
        if renamed:
            tiers.append((1.25, _all_of(renamed[:4])))
        older = [(u, b) for u, b in older if u]
        if older:
            tiers.append((1.2, _all_of(older)))
        tiers.sort(key=lambda t: -t[0])
        views = native + translated + older + renamed[:4]
        loose = Or([_boosted(u, b) for units, b in views for u in units]) if views else None
        return tiers, loose, sorted(lits, key=len, reverse=True)

    def _obsolete(self, stems: list[str]) -> bool:
        """True when the default scope hardly uses a wording any more (a handful of clauses at most)."""
        if self.ix_current is None:
            return False
        reader = self._searcher(True).reader()
        return min(reader.doc_frequency("en", t) for t in stems) <= 5

    def _units(self, ws: list[Word]) -> list[Query]:
        """One query per distinct word: its key in the Japanese fields, its reading, its parts."""
        out = []
        # A pasted paragraph is searched by its first MAX_UNITS distinct words: enough to find it.
        for w in list(dict((w.key, w) for w in ws).values())[:MAX_UNITS]:
            alts: list[Query] = [Term("ja", w.key), Term("jt", w.key, boost=1.5), Term("jx", w.key, boost=0.3)]
            if "reading" in self.layers and w.reading:
                alts.append(Term("jr", w.reading, boost=0.3))
            if w.parts:
                alts.append(And([Term("ja", p) for p, _, _ in w.parts], boost=0.3))  # recall only
            out.append(DisjunctionMax(alts, tiebreak=0.1))
        return out

    @staticmethod
    def _bigram_query(text: str) -> Query | None:
        grams = list(dict.fromkeys(g for g, _, _ in bigrams(text)))
        if not grams:
            return None
        return And([Term("jb", g) for g in grams[:24]])

    @staticmethod
    def _exact(s, text: str, docs: set[int] | None) -> list[int]:
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
        current = token == "default" and self.ix_current is not None
        s = self._searcher(current)
        clauses: list[Query] = [] if current else [Term("vers", token)]
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

    # -- results ---------------------------------------------------------------------------
    def _hit(self, s, docnum: int, score: float, shown: str | None, lits: list[str]) -> dict:
        f = s.stored_fields(docnum)
        kind = f["kind"]
        hit = {"kind": kind, "game": f["game"], "lang": f["lang"], "version": shown or f.get("dver") or None,
               "rule": f.get("rule") or None, "score": round(score, 4), "also_in": max(0, (f.get("nvers") or 0) - 1)}  # fmt: skip
        if kind == "rule":
            title, text = self.store.conn.execute(
                "SELECT title, text FROM contents WHERE hash=?", (f["hash"],)
            ).fetchone()
        elif kind == "term":
            row = self.store.conn.execute(
                "SELECT term, english, definition FROM terms WHERE id=?", (f["ref"],)
            ).fetchone()
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


def _prior(kind: str | None, rule: str) -> float:
    """Headings and clauses state the rule their sub-clauses refine: a slight preference."""
    if kind != "rule":
        return 1.0
    return 1.35 if "." not in rule else 1.25 if rule[-1].isdigit() else 1.0


def _lift_parents(scored: dict, where: dict) -> None:
    """Put a clause just above its best sub-clause when both match in the same tier and the clause
    scores nearly as well: the clause states the rule its sub-clauses refine ("rule in context")."""
    where = {d: w for d, w in where.items() if d in scored}
    docs = {w: d for d, w in where.items()}
    for d, (game, lang, rule) in sorted(where.items(), key=lambda kv: -scored[kv[0]][1]):
        p = docs.get((game, lang, ruleid.parent(rule) or ""))
        if p is None or scored[p][0] != scored[d][0]:
            continue
        tier, raw = scored[d]
        if scored[p][1] >= HIER * raw:
            scored[p] = (tier, max(scored[p][1], raw * 1.001))


def _settled(scored: dict, tier: float) -> int:
    """How many hits no tier below ``tier`` can overtake."""
    return sum(1 for t, _ in scored.values() if t >= tier)


def _all_of(views: list[tuple[list[Query], float]]) -> Query:
    """Docs matching every unit of at least one view."""
    return Or([And(u, boost=b) if len(u) > 1 else _boosted(u[0].copy(), b) for u, b in views])


def _rewritten(qwords: list[Word], rewrites: list[tuple[int, int, str]], analyse) -> list[tuple[list[Word], list[str]]]:
    """Word lists with each rewrite applied alone, and with all non-overlapping ones applied together."""
    out = [(qwords[:i] + analyse(dst) + qwords[i + n :], [dst]) for i, n, dst in rewrites[:6]]
    if len(rewrites) > 1:
        combined: list[Word] = []
        used: list[str] = []
        pos = 0
        for i, n, dst in sorted(rewrites):
            if i < pos:
                continue
            combined += qwords[pos:i] + analyse(dst)
            used.append(dst)
            pos = i + n
        out.append((combined + qwords[pos:], used))
    return out


def _boosted(q: Query, boost: float) -> Query:
    q = q.copy()
    q.boost = q.boost * boost
    return q


def _is_rule_query(text: str) -> bool:
    return ruleid.parse(ruleid.normalize(text)) is not None
