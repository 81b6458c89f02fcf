"""The search service: run a query's tiers (kb.query) over the index, filter by version, shape results.

Query building lives in kb.query and ranking priors in kb.ranking; this module opens the index,
scopes a search to a game, language and version, collects each tier's hits and reads their texts.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

from whoosh import index as windex
from whoosh.query import And, Query, Term

from kb import ruleid
from kb.analysis import snippet_for, words
from kb.errors import RulekbError
from kb.index import CURRENT_DIR
from kb.query import (
    ALL_LAYERS,
    GAME_HINTS,
    HAS_JA,
    MAX_QUERY,
    MAX_UNITS,
    QueryBuilder,
    Tiers,
    bigram_query,
    clean_query,
    is_rule_query,
)
from kb.ranking import GAME_BIAS, HIER, POOL, SUPERSEDED, lift_parents, prior, settled

__all__ = ["ALL_LAYERS", "HIER", "MAX_QUERY", "MAX_UNITS", "Searcher"]

DM_RATIO = 4.0  # how much more frequent in Duel Masters' texts a word must be to name that game
_EN_PREFIX = re.compile(r"^\s*(?:rule|cr|c\.r\.)\b", re.I)


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
        self.builder = QueryBuilder.from_index(index_dir, self.vocab, layers, self._current_reader)
        self.thesaurus = self.builder.thesaurus
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

    def _current_reader(self):
        """This thread's reader of the default-scope index, or None when there is none."""
        return self._searcher(True).reader() if self.ix_current is not None else None

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
        text = clean_query(query)
        if limit < 1 or offset < 0:
            raise RulekbError("limit must be at least 1 and offset at least 0")
        if not game and not is_rule_query(text):
            # "デュエマの…", "MTGで…": a game named in the query narrows it (when that game has hits).
            hint = next((g for g, names, _ in GAME_HINTS if names.search(text)), None)
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
        if not (exact and is_rule_query(text)):
            # The game's nickname is a filter (see above), not a word to find.
            stripped = next((drop.sub(" ", text) for g, _, drop in GAME_HINTS if g == game), text).strip()
            tiers, loose, lits = self.build_query(stripped or text)
            # Tiers decide the order, best first; a lower tier runs only while the page is not full.
            for tier, q in tiers:
                if settled(scored, tier) >= want:
                    break
                self._collect(s, q, tier, docs, want, scored)
            if settled(scored, 1.0) < want and "bigram" in self.layers and HAS_JA.search(text):
                bq = bigram_query(text)
                if bq is not None:
                    self._collect(s, bq, 1.0, docs, want, scored)
            if loose is not None and settled(scored, 0.0) < want:
                self._collect(s, loose, 0.0, docs, want, scored)
            if count and loose is not None:
                total = len(exact) + max(len(scored) - len(exact), len(s.search(loose, filter=docs, limit=1)))
            else:
                total = len(scored)
        if "priors" in self.layers:
            lift_parents(scored, self._local.where)
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
                bias = prior(hit.get("kind"), hit.get("rule") or "") if "priors" in self.layers else 1.0
                if (hit.get("game"), hit.get("lang"), hit.get("dver")) in self._superseded and "priors" in self.layers:
                    bias *= SUPERSEDED
                if hit.get("game") == self._local.prefer and "priors" in self.layers:
                    bias *= GAME_BIAS
                scored[hit.docnum] = (tier, hit.score * bias)
                if hit.get("kind") == "rule":
                    self._local.where[hit.docnum] = (hit["game"], hit["lang"], hit["rule"])

    def _game_of(self, text: str) -> str | None:
        """The game a query's Japanese words point to: Duel Masters when one of them is far more
        frequent in its texts than in Magic's (シールド, マナゾーン, ブレイク), else Magic, the larger KB."""
        if self.ix_current is None or not HAS_JA.search(text):
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
    def build_query(self, text: str) -> tuple[Tiers, Query | None, list[str]]:
        """(tiers, loose, highlight literals) for user text (see kb.query.QueryBuilder.build)."""
        return self.builder.build(text)

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
