"""The learned ranker (issue 19): its features, its numpy evaluator, its training queries, and what it
does to a page: it re-orders the candidates below the direct jumps, and never those jumps."""

from __future__ import annotations

import json
import random
import sys

import pytest

from kb.search import learned
from kb.search.query import ALL_LAYERS
from tests.helpers import ROOT

sys.path.append(str(ROOT / "bench"))


def test_sudachi_forms_meet_potential_and_variant_spellings():
    assert "置く" in learned.sudachi_forms("カウンターを置ける")[0]
    assert "引く" in learned.sudachi_forms("カードを1枚引ける")[0]
    assert learned.sudachi_forms("生贄に捧げる")[0] == learned.sudachi_forms("生け贄に捧げる")[0]
    assert "タップ" in learned.sudachi_forms("ﾀｯﾌﾟする")[0]


def test_synonym_groups_cover_a_word_the_text_says_otherwise():
    query = learned.sudachi_forms("負け")
    text = learned.sudachi_forms("そのプレイヤーはゲームに敗北する。")
    assert learned._norm_cover(query, text) == 0.0
    assert learned._norm_cover(query, text, syn=True) == 1.0


def test_span_is_the_shortest_window_holding_every_word():
    assert learned._span([[1, 20], [5, 22]]) == 3  # 20..22
    assert learned._span([[4], [4]]) == 1
    assert learned._span([[0], []]) == 0  # a word without positions: no window


def test_the_numpy_evaluator_agrees_with_lightgbm():
    import lightgbm as lgb
    import numpy as np

    rng = np.random.default_rng(7)
    x = rng.normal(size=(600, len(learned.FEATURES)))
    y = (x[:, 0] + 0.5 * x[:, 3] - x[:, 7] > 0.3).astype(int)
    data = lgb.Dataset(x, y, group=[20] * 30, feature_name=list(learned.FEATURES))
    booster = lgb.train({"objective": "lambdarank", "num_leaves": 7, "verbose": -1, "seed": 1}, data, 30)
    model = learned.Model(booster.dump_model())
    probe = rng.normal(size=(50, len(learned.FEATURES)))
    assert np.allclose(model.predict(probe.tolist()), booster.predict(probe), atol=1e-9)


def test_the_shipped_model_reads_the_features_the_code_computes():
    model = learned.Model.load()
    assert model is not None, "kb/data/ranker.json is missing: run bench/train_ranker.py"
    assert tuple(model.names) == learned.FEATURES
    assert len(model.trees) >= 50
    dump = json.loads(learned.MODEL_FILE.read_text(encoding="utf-8"))
    assert dump["trained_on"]["queries"] >= 1000


def test_a_model_of_other_features_is_refused():
    with pytest.raises(ValueError, match="other features"):
        learned.Model({"feature_names": ["a", "b"], "tree_info": []})


def test_noise_makes_what_people_type():
    import train_ranker

    assert train_ranker.halfwidth("トランプル") == "ﾄﾗﾝﾌﾟﾙ"
    assert train_ranker.halfwidth("ブロック・クリーチャー") == "ﾌﾞﾛｯｸ・ｸﾘｰﾁｬｰ"
    assert train_ranker.hiragana(train_ranker.reading("戦闘ダメージ")) == "せんとうだめーじ"


@pytest.fixture(scope="module")
def training_queries(searcher):
    import train_ranker

    return train_ranker.make_queries(searcher, 100_000, random.Random(train_ranker.SEED))


def test_training_queries_come_from_the_corpus_not_from_an_evaluation_set(training_queries):
    import blind
    import relevance

    kinds = {k for k, *_ in training_queries}
    # A name (トランプル, ブロッククリーチャー指定ステップ, its reading) is asked by both; a sentence
    # or word mix made by the templates never is.
    made = {q for k, q, _g, _t in training_queries if k not in ("heading", "term", "noisy")}
    assert {"heading", "term", "multi", "question"} <= kinds
    evaluation = {q for path in blind.BLIND_SETS for _k, q, _e in blind.load(path)} | {
        q["query"] for q in relevance.load_queries()
    }
    shared = made & evaluation
    assert not shared, sorted(shared)[:10]


def test_training_queries_are_made_the_same_way_every_time(searcher, training_queries):
    import train_ranker

    again = train_ranker.make_queries(searcher, 100_000, random.Random(train_ranker.SEED))
    assert [q for _k, q, *_ in again] == [q for _k, q, *_ in training_queries]


def test_the_ranker_reorders_below_the_direct_jumps(kb):
    from kb.search.searcher import Searcher

    store, index, _, _ = kb
    on = Searcher(store, index)
    off = Searcher(store, index, layers=ALL_LAYERS - {"learned"})
    assert on.ranker() is not None
    # A rule number and an exact name keep their jump.
    assert on.search("509.1c", limit=1)[0]["rule"] == "509.1c"
    assert on.search("トランプル", limit=1)[0]["rule"] == off.search("トランプル", limit=1)[0]["rule"]
    # Below them, the model's order: at least one of these questions' pages differs from the tiers'.
    questions = [
        "ブロックされたクリーチャーが戦闘から取り除かれたら",
        "攻撃クリーチャー ブロック 複数",
        "ダメージ 割り振り 順番",
    ]
    pages = [([h["rule"] for h in on.search(q)], [h["rule"] for h in off.search(q)]) for q in questions]
    assert any(a != b for a, b in pages)
    hits = on.search(questions[0])
    assert any(any(w.startswith("learned #") for w in h["why"]) for h in hits)
    assert all(a["score"] >= b["score"] for a, b in zip(hits, hits[1:], strict=False))


def test_the_rules_of_a_variant_the_query_does_not_name_come_after_the_general_ones(kb, monkeypatch):
    from kb.search import learned
    from kb.search.searcher import Searcher

    store, index, _, _ = kb

    def variant(rule: str, text: str) -> bool:
        return rule[:3] >= "800" or "Two-Headed Giant" in text or "Commander" in text

    def first_rules(searcher, q: str) -> list[tuple[str, str]]:
        return [(h["rule"], h["text"]) for h in searcher.search(q, lang="en", limit=10) if h["kind"] == "rule"]

    on = first_rules(Searcher(store, index), "life total 0 lose the game")
    assert not variant(*on[0]), on[0]  # 104.3b or 704.5a, not Two-Headed Giant's team life
    kinds = [variant(*r) for r in on]
    assert kinds == sorted(kinds)  # every general rule of the first ten before every variant's
    named = first_rules(Searcher(store, index), "two-headed giant team life")
    assert any(variant(*r) for r in named[:3])  # a query naming the variant keeps its rules up front
    # without the rule, the model's own order puts a variant's clause first here (what the rule is for)
    monkeypatch.setattr(learned, "_general_first", lambda searcher, s, order, facts: order)
    off = first_rules(Searcher(store, index), "life total 0 lose the game")
    assert any(variant(*r) for r in off[:2]), off[:2]


def test_a_server_reads_the_forms_of_the_default_scope_once_at_start(kb, monkeypatch):
    """warm_forms reads the Sudachi forms of every Japanese text a search may rank (web.warmup calls it),
    so a search then tokenises only its own query."""
    from kb.search.searcher import Searcher

    store, index_dir, _, _ = kb
    monkeypatch.setattr(learned, "_forms", learned.OrderedDict())
    searcher = Searcher(store, index_dir)
    warmed = searcher.warm_forms()
    assert warmed > 100 and len(learned._forms) == len(set(learned._forms)) >= warmed * 0.9
    calls = []
    real = learned._sudachi
    monkeypatch.setattr(learned, "_sudachi", lambda: calls.append(1) or real())
    searcher.search_page("墓地 追放", limit=10)
    assert len(calls) <= 2  # the query's own forms (and at most one text outside the default scope)
