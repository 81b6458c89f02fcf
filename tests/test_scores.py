"""kb.search.scores gives Whoosh's own top hits, number for number and in order, on random queries of
words, AND, OR and DisMax over two real Whoosh indexes: one above 5,000 documents (Whoosh's OR is a
tree of unions there) and one below (its OR of three or more parts preloads their scores)."""

from __future__ import annotations

import random

import pytest
from whoosh import fields, index
from whoosh.analysis import SpaceSeparatedTokenizer
from whoosh.query import And, DisjunctionMax, NullQuery, Or, Phrase, Prefix, Term

from kb.search.bounded import whoosh_search
from kb.search.scores import TierScorer

WORDS = [f"w{i}" for i in range(40)]
FIELDS = ("a", "b", "c")


def _doc(rng: random.Random) -> dict:
    # Zipf-like: a few words in most documents, most words in few (postings overlap, as real words do)
    pick = lambda n: " ".join(rng.choices(WORDS, weights=[1 / (i + 1) for i in range(len(WORDS))], k=n))  # noqa: E731
    return {"a": pick(rng.randint(1, 30)), "b": pick(rng.randint(0, 6)), "c": pick(rng.randint(0, 3))}


@pytest.fixture(scope="module", params=[6200, 1500], ids=["large", "small"])
def searcher(request, tmp_path_factory):
    where = tmp_path_factory.mktemp(f"scores{request.param}")
    schema = fields.Schema(**{f: fields.TEXT(analyzer=SpaceSeparatedTokenizer(), phrase=False) for f in FIELDS})
    ix = index.create_in(str(where), schema)
    rng = random.Random(request.param)
    with ix.writer() as w:
        for _ in range(request.param):
            w.add_document(**_doc(rng))
    with ix.searcher() as s:
        assert s.is_atomic()
        yield s


def _query(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth >= 3 or roll < 0.35:
        word = rng.choice(WORDS + ["missing"])
        boost = rng.choice([1.0, 1.0, 0.3, 0.5, 1.5, 20.0])
        return Term(rng.choice(FIELDS), word, boost=boost)
    if roll < 0.38:
        return NullQuery
    kind = rng.choice([And, Or, Or, DisjunctionMax])
    subs = [_query(rng, depth + 1) for _ in range(rng.choice([1, 2, 2, 3, 4, 6]))]
    return kind(subs, boost=rng.choice([1.0, 1.0, 0.9, 1.2]))


def test_random_trees_score_as_whoosh_does(searcher):
    rng = random.Random(19)
    scorer = TierScorer()
    n = searcher.doc_count_all()
    checked = matched = 0
    for _ in range(400):
        q = _query(rng)
        docs = set(rng.sample(range(n), n // 3)) if rng.random() < 0.3 else None
        limit = rng.choice([1, 10, 75, 500])
        want = [(h.docnum, h.score) for h in whoosh_search(searcher, q, filter=docs, limit=limit)]
        got = scorer.top(searcher, q, docs, limit)
        assert got == want, repr(q)
        checked += 1
        matched += bool(want)
    assert checked == 400 and matched > 200  # most random queries match something


def test_the_dismax_quirk_is_whoosh_s(searcher):
    """Whoosh's DisMax scores a document with the other side's score at that side's next match: the
    scores differ from a plain maximum, and this module gives Whoosh's."""
    q = Or([DisjunctionMax([Term("a", "w0"), Term("b", "w5", boost=1.5)]), Term("c", "w1")])
    want = [(h.docnum, h.score) for h in whoosh_search(searcher, q, limit=200)]
    assert TierScorer().top(searcher, q, None, 200) == want


def test_queries_it_does_not_score_are_left_to_whoosh(searcher):
    scorer = TierScorer()
    assert scorer.top(searcher, Prefix("a", "w1"), None, 10) is None
    assert scorer.top(searcher, Or([Term("a", "w1"), Phrase("a", ["w1", "w2"])]), None, 10) is None
    assert scorer.top(searcher, Or([Term("a", "w1"), Term("a", "w2")], scale=0.5), None, 10) is None
    assert scorer.top(searcher, Term("a", "missing"), None, 10) == []


def test_postings_kept_are_bounded(searcher):
    scorer = TierScorer(max_postings=2000)
    for w in WORDS:
        scorer.top(searcher, Term("a", w), None, 5)
    assert scorer._held <= 2000 or len(scorer._terms) == 1
    assert len(scorer._terms) < len(WORDS)
    q = Or([Term("a", "w0"), Term("a", "w3"), Term("b", "w7")])
    assert scorer.top(searcher, q, None, 50) == [(h.docnum, h.score) for h in whoosh_search(searcher, q, limit=50)]


QUERIES = [
    "トランプル",
    "ブロック クリーチャー",
    "攻撃クリーチャー ブロック 複数",
    "ダメージ 割り振り 順番",
    "ライフが0になったら負け",
    "呪文のコピー 追放",
    "combat damage step",
    "first strike trample",
    "シールド ブレイク",
]


def test_search_pages_are_the_ones_whoosh_scoring_gives(kb, monkeypatch):
    """Every page, hit for hit and score for score, is the page Whoosh's own scoring of the tiers (and its
    matcher walk for the ranker's features) gives, in the default scope and a narrowed one."""
    from kb.search.searcher import Searcher

    store, index, _, _ = kb
    fast = Searcher(store, index)
    scored = []
    for scorer in fast._scorers.values():
        top = scorer.top
        monkeypatch.setattr(scorer, "top", lambda *a, _top=top: scored.append(_top(*a)) or scored[-1])
    pages = [fast.search_page(q, limit=20, **scope) for q in QUERIES for scope in ({}, {"lang": "en"})]
    assert sum(r is not None for r in scored) > 3 * len(QUERIES)  # the tiers went through the arrays

    slow = Searcher(store, index, arrays=False)
    assert [slow.search_page(q, limit=20, **scope) for q in QUERIES for scope in ({}, {"lang": "en"})] == pages
    assert sum(bool(p["hits"]) for p in pages) >= len(pages) - 2


def test_kept_postings_read_candidates_as_the_matcher_walk_does(kb):
    """The ranker's presence features from kept postings equal the matcher walk's, candidates in any order."""
    from kb.search import learned
    from kb.search.searcher import Searcher

    store, index, _, _ = kb
    searcher = Searcher(store, index)
    s = searcher._searcher(True) if searcher.ix_current is not None else searcher._searcher(False)
    n = s.doc_count_all()
    rng = random.Random(4)
    keys = ["ブロック", "クリーチャー", "ダメ", "ック", "攻撃", "missing"]
    found = 0
    for field in ("jt", "jr", "jb", "ja"):
        for ordered in (True, False):
            docs = rng.sample(range(n), n)
            docs = sorted(docs) if ordered else docs
            walked, kept = {}, {}
            a = learned._presence(s, field, keys, docs, bm25=walked)
            b = learned._presence(s, field, keys, docs, bm25=kept, postings=searcher.term_postings)
            assert a == b and walked == kept, (field, ordered)
            found += len(kept)
    assert found > 50
