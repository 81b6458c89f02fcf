"""The index build and the search service over real texts: seeds, one English edition, the DM rules."""

from __future__ import annotations

import shutil
import threading

import pytest

from ingest.common import Hints
from kb.build import BUNDLED_CORPUS, build_kb, ingest_into, read_manifest
from kb.errors import NotFound, RulekbError
from kb.home import Home
from kb.search.index import build_index
from kb.search.searcher import Searcher
from kb.store import Store
from tests._kbfixtures import is_seed, seed_corpus
from tests.helpers import first


def test_build_reports_stats_and_progress(kb):
    store, index_dir, stats, calls = kb
    distinct = store.conn.execute(
        "SELECT COUNT(*) FROM (SELECT DISTINCT v.game, v.lang, n.rule, n.hash FROM nodes n JOIN versions v ON v.id=n.version_id)"
    ).fetchone()[0]
    assert stats["rules"] == distinct  # one document per distinct text, not per node
    assert stats["size"] > 0 and (index_dir / "current").is_dir()
    assert calls and calls[-1][0] == calls[-1][1] == stats["docs"]


@pytest.mark.parametrize(
    "q",
    [
        "509.1c",
        "５０９．１ｃ",
        "rule 509.1c",
        "ルール509.1c",
        "CR 509.1c",
        "総合ルール 509.1c",
        # what else people type around a number
        "r509.1c",
        "rules 509.1c",
        "第509.1c項",
        "509.1cとは",
        "509.1c って何？",
        "509.1 c",
        "MTG 509.1c",
    ],
)
def test_rule_numbers_go_straight_to_the_clause(searcher, q):
    hit = first(searcher, q)
    assert (hit["game"], hit["rule"], hit["kind"]) == ("mtg", "509.1c", "rule")


def test_a_game_or_version_said_beside_a_number_scopes_it(searcher):
    from kb.search.query import rule_reference

    assert rule_reference("デュエマ 101.1").game == "dm" and rule_reference("5.5.0.0 409.1").version == "5.5.0.0"
    assert rule_reference("704-5a") is None and rule_reference("704.5a 704.5b") is None  # not one number
    assert rule_reference("トランプル 702.19b") is None  # words beside a number are searched as words
    # the game said after the number, and Duel Masters' own name for its rules (Magic's are 総合ルール)
    assert rule_reference("101.1項 デュエマ").game == "dm" and rule_reference("509.1c (MTG)").game == "mtg"
    assert rule_reference("総合ゲームルール101.1").game == "dm" and rule_reference("総合ルール 103.4").game is None
    assert rule_reference("CR509.1").game == "mtg" and rule_reference("rule 509.1").game is None  # Magic's "CR"
    page = searcher.search_page("dm 101.1")
    assert page["hits"][0]["game"] == "dm" and page["hits"][0]["rule"] == "101.1"
    assert first(searcher, "20991231 509.1c")["rule"] == "509.1c"  # a version the KB lacks is not an error


def test_english_prefix_prefers_the_english_clause(searcher):
    assert first(searcher, "CR 702.19b")["lang"] == "en"
    assert first(searcher, "ルール509.1c")["lang"] == "ja"


@pytest.mark.parametrize(
    "q", ["ブロッククリーチャー指定ステップ", "ブロック・クリーチャー指定ステップ", "ﾌﾞﾛｯｸ･ｸﾘｰﾁｬｰ指定ｽﾃｯﾌﾟ"]
)
def test_dot_and_width_variants_find_the_step(searcher, q):
    top = {(h["game"], h["rule"]) for h in searcher.search(q, limit=5)} | {
        h["title"] for h in searcher.search(q, limit=5) if h["kind"] == "article"
    }
    assert ("mtg", "509") in top and ("dm", "507") in top


def test_katakana_part_finds_compound(searcher):
    hits = searcher.search("コスト", game="mtg", lang="ja", limit=50)
    assert any("マナ・コスト" in h["text"] for h in hits)


def test_long_vowel_variant(searcher):
    hit = first(searcher, "防御プレーヤー", game="mtg", lang="ja")
    assert "防御プレイヤー" in hit["text"]


def test_inflected_form_finds_other_forms(searcher):
    hit = first(searcher, "ブロックのコストを支払わなかった", game="mtg", lang="ja")
    assert hit["rule"] in ("509.1d", "309.2b")  # 支払い in the text


def test_kana_only_and_same_reading_slip(searcher):
    assert "防御プレイヤー" in first(searcher, "ぼうぎょぷれいやー")["text"]
    # the step's first clause, then its heading
    assert [h["rule"] for h in searcher.search("せんとうだめーじすてっぷ", game="mtg", limit=2)] in (
        ["510.1", "510"],
        ["310.1", "310"],
    )
    assert "戦闘ダメージ" in first(searcher, "先頭ダメージ", game="mtg", lang="ja")["snippet"]


def test_thesaurus_player_words_and_old_vocabulary(searcher):
    assert any("防御プレイヤー" in h["text"] for h in searcher.search("攻撃される側", game="mtg", limit=3))
    # 追放 is today's word; the old text says ゲームから取り除く (applied both ways)
    hits = searcher.search("追放", version="5.5.0.0", limit=5)
    assert hits and all(h["version"] == "5.5.0.0" for h in hits)
    assert any("ゲームから取り除" in h["text"] for h in hits)


def test_bilingual_queries(searcher):
    en = first(searcher, "トランプル")
    assert (en["lang"], en["rule"].split(".")[0]) == ("en", "702")
    assert first(searcher, "Blocking Requirement")["rule"] in ("509.1c", "509.1")
    assert first(searcher, "trample")["rule"].startswith("702.19")


def test_duel_masters(searcher):
    assert any(h["rule"].startswith("509") for h in searcher.search("ダイレクトアタック", game="dm", limit=3))
    assert first(searcher, "ツインパクト")["rule"].startswith("810")


def test_highlights_are_offsets_into_the_original_snippet(searcher):
    hits = searcher.search("ブロック", game="mtg", lang="ja", limit=10)
    # (English words of the translation, e.g. "blocked" in a bilingual clause, are marked too)
    spans = [(h, a, b) for h in hits for a, b in h["highlights"] if not h["snippet"][a:b].isascii()]
    assert len(spans) > len(hits)  # repeated words are each marked
    for h, a, b in spans:
        assert h["snippet"][a:b] == "ブロック"
        body = h["text"] or h["title"]  # a heading's snippet comes from its title
        assert body[h["snippet_start"] + a : h["snippet_start"] + b] == "ブロック"
    wide = first(searcher, "ﾌﾞﾛｯｸ", game="mtg", lang="ja")
    a, b = wide["highlights"][0]
    assert wide["snippet"][a:b] == "ブロック"  # the half-width query marks the full-width text


def test_default_scope_shows_each_clause_once_with_also_in(searcher, kb):
    store = kb[0]
    hits = searcher.search("ブロック", limit=100)
    keys = [(h["game"], h["lang"], h["rule"]) for h in hits if h["kind"] == "rule"]
    assert len(keys) == len(set(keys))
    hit = first(searcher, "509.1c")
    held = {vid for (vid,) in store.conn.execute("SELECT version_id FROM nodes WHERE rule='509.1c'")}
    same = [
        vid
        for (vid,) in store.conn.execute(
            "SELECT n.version_id FROM nodes n JOIN versions v ON v.id=n.version_id WHERE n.rule='509.1c' AND v.lang='ja'"
            " AND n.hash=(SELECT hash FROM nodes n2 JOIN versions v2 ON v2.id=n2.version_id WHERE n2.rule='509.1c'"
            " AND v2.label=?)",
            (hit["version"],),
        )
    ]
    assert len(held) >= 2 and hit["also_in"] == len(same) - 1


def test_version_filters(searcher):
    old = searcher.search("ブロック", version="20231117.0", limit=20)
    assert (
        old
        and {h["version"] for h in old} == {"20231117.0"}
        and all(h["rule"].startswith("509") or h["rule"].startswith("510") for h in old)
    )
    assert {h["game"] for h in searcher.search("クリーチャー", game="dm", limit=20)} == {"dm"}
    with pytest.raises(NotFound):
        searcher.search("ブロック", version="19990101")


def test_the_newest_edition_is_searched_in_the_small_index_with_the_same_hits(kb, searcher):
    """A named version whose every document the current index holds (the newest English edition here)
    is searched there, a third of the work of the full index (issue 22: link's suggestions name it):
    the hits and the total are those of the full index filtered to that version."""
    from kb.search.searcher import Searcher

    store, index_dir, _, _ = kb
    newest = store.get_version("mtg", "en", "latest")
    assert searcher._current_holds(str(newest.id))
    assert not searcher._current_holds(str(store.find_version("5.5.0.0", "mtg", "ja").id))  # superseded texts
    full = Searcher(store, index_dir)
    full._current_holds = lambda token: False  # the full index, as before
    for query in ("blocking creature deals combat damage", "trample", "ブロック"):
        searcher._ranked_cache.clear()
        a = searcher.search_page(query, game="mtg", lang="en", version=newest.label, limit=10)
        b = full.search_page(query, game="mtg", lang="en", version=newest.label, limit=10)
        assert a["total"] == b["total"] > 0
        assert {h["rule"] for h in a["hits"]} <= {
            h["rule"] for h in full.search(query, game="mtg", lang="en", version=newest.label, limit=50)
        }
        assert {h["version"] for h in a["hits"]} == {newest.label}


def test_pagination_counts(searcher):
    page = searcher.search_page("クリーチャー", limit=5)
    nxt = searcher.search_page("クリーチャー", limit=5, offset=5)
    assert page["total"] >= 10 and len(page["hits"]) == 5
    assert {h["rule"] for h in page["hits"]}.isdisjoint({h["rule"] for h in nxt["hits"]} - {None})


@pytest.mark.parametrize(
    "q",
    [
        '"',
        '"ブロック',
        "(",
        ")",
        "AND",
        "OR NOT",
        "NOT ブロック",
        "*",
        "ブロック*",
        ":",
        "rule:509",
        "~",
        "^2",
        "a" * 10240,
        "",
        "   ",
        "\x00\x07",
        "ブ\x00ロック",
    ],
)
def test_bad_queries_give_results_or_a_clear_error(searcher, q):
    try:
        hits = searcher.search(q)
    except RulekbError as exc:
        assert str(exc) and "\n" not in str(exc)
    else:
        assert isinstance(hits, list)


@pytest.mark.heavy
def test_searches_during_a_rebuild_never_fail(built_home, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(built_home, home, symlinks=True)
    h = Home(home)
    live = Searcher(h.open_store(), h.index_dir())
    before = live.search("ブロック")
    errors: list[BaseException] = []
    results = []
    done = threading.Event()

    def rebuild():
        try:
            build_kb(home, seed_corpus(tmp_path / "corpus"), force=True)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
        finally:
            done.set()

    t = threading.Thread(target=rebuild)
    t.start()
    while not done.is_set():
        results.append(live.search("ブロック"))
    t.join()
    assert not errors and results and all(r == before for r in results)
    fresh = Searcher(h.open_store(), h.index_dir())  # the swapped-in generation
    assert [x["rule"] for x in fresh.search("ブロック")] == [x["rule"] for x in before]
    assert live.search("ブロック") == before  # the old generation still serves its readers


def test_mine_renames_finds_replaced_wordings_not_noise():
    from whoosh.analysis import StemmingAnalyzer

    from kb.search.thesaurus import mine_renames

    aligned = [
        (f"Put target creature {x} into play.", f"Put target creature {x} onto the battlefield.")
        for x in ("card", "token", "permanent", "spell", "object")
    ] + [
        ("Each tribal card has another card type.", "Each kindred card has another card type."),
        ("A player may play a land.", "A player may play a land during their main phase."),  # an addition
    ]
    stem = StemmingAnalyzer()  # as the build tokenises English
    renames = mine_renames(aligned, lambda t: [w.text for w in stem(t)], min_count=2)
    assert ("plai", "battlefield", 5) in renames
    assert all(a != "tribal" for a, _, _ in renames)  # seen once: below min_count


def test_thesaurus_file_errors_name_the_line(tmp_path):
    from kb.search.thesaurus import Thesaurus

    bad = tmp_path / "t.tsv"
    bad.write_text("# comment\n殴る\t攻撃する\tcolloquial\n止める ブロックする\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"t\.tsv:3"):
        Thesaurus.load(bad)


def test_a_game_named_in_the_query_is_preferred(searcher):
    assert first(searcher, "デュエマのデッキは何枚？")["game"] == "dm"
    assert first(searcher, "MTG デッキ")["game"] == "mtg"


def test_words_of_both_games_prefer_magic_unless_they_are_duel_masters_words(searcher):
    assert searcher._game_of("ブロックを強制する効果") == "mtg"
    assert searcher._game_of("シールドをブレイクする") == "dm"
    assert searcher._game_of("マナゾーンに置く") == "dm"
    # Duel Masters' text says 唱える more often, but Magic's glossary pairs it with "cast".
    assert searcher._game_of("呪文を唱える") == "mtg"
    assert searcher._game_of("trample") == "mtg"  # Duel Masters' rules are Japanese only
    assert first(searcher, "ブロックを強制する効果")["game"] == "mtg"
    assert first(searcher, "シールドをブレイクする数")["game"] == "dm"


def test_a_clause_is_lifted_above_its_sub_clause_when_both_match_in_a_tier():
    from kb.search.ranking import HIER
    from kb.search.ranking import lift_parents as _lift_parents

    where = {
        1: ("mtg", "ja", "100.4a"),
        2: ("mtg", "ja", "100.4"),
        3: ("mtg", "ja", "100.5"),
        4: ("mtg", "ja", "100.5a"),
    }
    scored = {1: (2.0, 10.0), 2: (2.0, 10.0 * HIER), 3: (2.0, 1.0), 4: (2.5, 9.0)}
    _lift_parents(scored, where)
    assert scored[2] > scored[1]  # the clause nearly as good as its sub-clause goes first
    assert scored[3] == (2.0, 1.0)  # a parent in a lower tier stays where it is
    scored = {1: (2.0, 10.0), 2: (2.0, 10.0 * HIER * 0.9)}
    _lift_parents(scored, where)
    assert scored[1] > scored[2]  # a much weaker clause is not lifted


def test_a_heading_whose_name_starts_with_the_query_ranks_first(searcher):
    # the heading is ダイレクトアタックステップ, below its first clause
    opening, hit = searcher.search("ダイレクトアタック", limit=2)
    assert (hit["game"], hit["rule"], hit["title"]) == ("dm", "509", "ダイレクトアタックステップ")
    assert (opening["game"], opening["rule"]) == ("dm", "509.1")


@pytest.mark.parametrize("q", ["トランプルについて教えてください", "トランプルの意味を知りたい", "トランプルって何？"])
def test_the_wrapper_of_a_question_is_not_searched(searcher, q):
    # the answer is the clause saying what trample does (702.19b), then the heading it opens
    hits = searcher.search(q, limit=3)
    assert (hits[0]["game"], hits[0]["rule"]) == ("mtg", "702.19b")
    assert "702.19" in [h["rule"] for h in hits]


@pytest.mark.heavy
def test_an_old_text_leaves_the_default_scope_where_a_newer_text_covers_its_rules(tmp_path):
    from kb.search.index import default_scope

    # The seeds alone: the 2008 translation stays undated, i.e. older than the 2023 and 2026 texts
    # (next to one 2026 English edition the date estimate would place it in 2026).
    store = Store.create(str(tmp_path / "kb.sqlite"))
    for e in filter(is_seed, read_manifest(BUNDLED_CORPUS)):
        if e.game == "mtg":
            ingest_into(store, str(e.path), Hints(format=e.format, game=e.game, lang=e.lang, version=e.version))
    store.commit()
    mtg_ja = {r for g, lang, r in default_scope(store) if (g, lang) == ("mtg", "ja")}
    # Its 309/310 (declare blockers, combat damage) are today's 509/510, headed alike ...
    assert not {r for r in mtg_ja if r.split(".")[0] in ("309", "310")}
    assert {"509.1a", "510.1a"} <= mtg_ja
    # ... while its chapters no newer Japanese text holds stay in the default scope.
    assert {"217.7a", "306.1"} <= mtg_ja
    build_index(store, tmp_path / "index")
    old = Searcher(store, tmp_path / "index").search("戦闘ダメージ・ステップ", version="5.5.0.0")
    assert old and all(h["version"] == "5.5.0.0" for h in old) and [h["rule"] for h in old[:2]] == ["310.1", "310"]
    store.close()


def test_a_searcher_starts_from_the_thesaurus_keys_the_build_wrote(kb, monkeypatch):
    """Analysing the glossary's two thousand names at every start cost `rulekb search` a second (issue
    20): the build writes their word keys beside the index, and a searcher reads them without Janome."""
    import json

    from kb.search import thesaurus
    from kb.search.index import KEYS_FILE, TERMS_FILE
    from kb.search.searcher import Searcher

    store, index_dir, _, _ = kb
    pairs = json.loads((index_dir / TERMS_FILE).read_text(encoding="utf-8"))["ja2en"]
    vocab = Searcher(store, index_dir).vocab
    fresh = thesaurus.Thesaurus.load(vocab=vocab, pairs=pairs)  # analysed now
    written = json.loads((index_dir / KEYS_FILE).read_text(encoding="utf-8"))
    assert len(written["keys"]) >= len(pairs) > 50
    assert written["fingerprint"] == thesaurus.analysis_fingerprint(vocab)
    assert thesaurus.analysis_fingerprint(vocab | {"ナンデモナイ"}) != written["fingerprint"]

    def no_analysis(*_a, **_k):
        raise AssertionError("a searcher start analysed a thesaurus phrase")

    monkeypatch.setattr(thesaurus, "keys", no_analysis)
    read = Searcher(store, index_dir).builder.thesaurus
    assert read.ja2en == fresh.ja2en and read.en2ja == fresh.en2ja and read.rewrites == fresh.rewrites
    assert read.to_english(["ブロック", "クリーチャー"]) == fresh.to_english(["ブロック", "クリーチャー"])


def _japanese_seeds(path) -> Store:
    """A store of the Japanese seed texts."""
    store = Store.create(str(path))
    for e in filter(is_seed, read_manifest(BUNDLED_CORPUS)):
        if e.lang == "ja":
            ingest_into(store, str(e.path), Hints(format=e.format, game=e.game, lang=e.lang, version=e.version))
    store.commit()
    return store


def test_an_index_made_ahead_on_two_processes_is_the_one_a_single_process_writes(tmp_path, monkeypatch):
    """The build indexes the text fields in worker processes ahead of its one writer (kb.search.ahead,
    issue 20): the same terms, postings, stored fields, vector rows, term table and thesaurus keys as
    one process, and no patched field left in the schema the index keeps."""

    import numpy as np
    from whoosh import index as windex

    from kb.search import ahead
    from kb.search import index as kbindex

    store = _japanese_seeds(tmp_path / "kb.sqlite")
    monkeypatch.setattr(kbindex, "AHEAD_CHUNK", 20)  # many jobs from a small corpus
    made_ahead = []  # per build: documents whose fields the workers indexed
    set_doc = ahead.Ahead.set

    def counting(self, doc, made):
        made_ahead[-1] += bool(made)
        set_doc(self, doc, made)

    monkeypatch.setattr(ahead.Ahead, "set", counting)

    digest = _index_digest

    made_ahead.append(0)
    one = build_index(store, tmp_path / "one", procs=1)
    made_ahead.append(0)
    two = build_index(store, tmp_path / "two", procs=2)
    assert made_ahead[0] == 0 and made_ahead[1] == two["docs"]
    assert not any("index" in f.__dict__ for _, f in windex.open_dir(str(tmp_path / "two")).schema.items())
    assert one["docs"] == two["docs"] > 40
    assert digest(tmp_path / "one") == digest(tmp_path / "two")
    assert digest(tmp_path / "one" / "current") == digest(tmp_path / "two" / "current")
    for made in (kbindex.TERMS_FILE, kbindex.KEYS_FILE):  # made in the forked child with two workers
        assert (tmp_path / "one" / made).read_bytes() == (tmp_path / "two" / made).read_bytes(), made
    if (tmp_path / "one" / "vectors.npz").exists():
        a, b = np.load(tmp_path / "one" / "vectors.npz"), np.load(tmp_path / "two" / "vectors.npz")
        assert sorted(a.files) == sorted(b.files) and all(np.array_equal(a[k], b[k]) for k in a.files)
    store.close()


def test_fields_indexed_ahead_come_in_order_as_this_process_indexes_them():
    from kb.search.ahead import indexed_ahead, text_fields
    from kb.search.index import make_schema

    schema = make_schema()
    texts = [f"{i}点のダメージを与えるクリーチャー・呪文" for i in range(60)] + ["", "ブロック・クリーチャー"] * 3
    docs = [
        {"key": str(i), "ja": t, "jr": t, "en": f"deals {i} damage to blocking creatures"} for i, t in enumerate(texts)
    ]
    got = list(indexed_ahead(docs, schema, workers=2, chunk=7))
    assert [d for d, _ in got] == docs  # every document, in order
    for doc, made in got:
        assert set(made) == {f for f in text_fields(schema) if doc.get(f)}
        for name, items in made.items():
            assert items == list(schema[name].index(doc[name])), name  # what the writer would make itself
    assert all(not made for _, made in indexed_ahead(docs, schema, workers=1, chunk=7))


@pytest.mark.parametrize("full", [False, True])
def test_a_page_counts_the_matches_whoosh_counts(searcher, full):
    """The total of a search page comes from each word's postings kept as arrays (kb.search.counting,
    issue 20): the same number Whoosh gives by walking the loose query, with and without a scope filter,
    for words, compounds, English, a phrase and a prefix."""
    from kb.search.bounded import whoosh_search
    from kb.search.counting import MatchCounter

    s = searcher._searcher(not full)
    counter = MatchCounter(max_ids=5_000)  # small: old postings are dropped and read again
    scope = set(range(0, s.doc_count_all(), 3))
    checked = 0
    for q in [
        "ブロッククリーチャー 先制攻撃",
        "combat damage マナ能力",
        "シールド 誘発型能力",
        "ライフが0になったら負け",
        "戦闘ダメージ",
        "トランプル",
        "first strike",
        "存在しない言葉ですよ",
        "ブロッ",
    ]:
        loose = searcher.build_query(q)[1]
        for query in [loose] + [t for _, t in searcher.build_query(q)[0]]:
            if query is None:
                continue
            for docs in (None, scope):
                want = len(whoosh_search(s, query, filter=docs, limit=None, scored=False))
                assert counter.count(s, query, docs) == want, (q, str(query)[:80], docs is None)
                checked += want
    assert checked > 100
    assert counter._held <= 5_000 or len(counter._postings) == 1


def test_the_next_pages_of_a_search_are_cut_from_its_first_ranking(kb, monkeypatch):
    """Paging (or another page size) within the ranked depth ranks nothing again (issue 20), and gives
    the pages a fresh searcher gives; notes added to one page do not leak into the kept ranking."""
    from kb.search.searcher import Searcher

    store, index_dir, _, _ = kb
    kept, fresh = Searcher(store, index_dir), Searcher(store, index_dir)
    passes = []
    rank = Searcher._rank
    monkeypatch.setattr(Searcher, "_rank", lambda self, *a: passes.append(self) or rank(self, *a))
    q = "ブロッククリーチャー 戦闘ダメージ"
    first = kept.search_page(q, limit=10)
    second = kept.search_page(q, limit=10, offset=10)
    wide = kept.search_page(q, limit=20)
    assert passes.count(kept) == 1 and first["hits"] and second["hits"]
    assert [(h["rule"], h["lang"]) for h in wide["hits"]] == [
        (h["rule"], h["lang"]) for h in first["hits"] + second["hits"]
    ]
    again = fresh.search_page(q, limit=10, offset=10)
    assert [(h["rule"], h["lang"], h["score"]) for h in again["hits"]] == [
        (h["rule"], h["lang"], h["score"]) for h in second["hits"]
    ]
    assert again["total"] == second["total"] and kept.search_page(q, limit=10)["notes"] == first["notes"]
    kept.search_page("ブロッククリーチャー 戦闘ダメージ 攻撃", limit=10)  # another search is ranked
    assert passes.count(kept) == 2


def test_the_second_writers_error_is_raised_in_the_build_as_its_own():
    import errno

    from kb.search.index import _at_once

    done = []

    def full_disk():
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError) as raised:
        _at_once(lambda: done.append("first"), full_disk)
    assert raised.value.errno == errno.ENOSPC and done == ["first"]
    _at_once(lambda: done.append("again"), lambda: None)  # both succeed: nothing raised
    assert done == ["first", "again"]


def test_the_union_of_postings_is_numpys_unique_of_them():
    import numpy as np

    from kb.search.counting import _union

    rng = np.random.default_rng(7)
    for n in (0, 1, 2, 5):
        parts = [np.sort(rng.choice(200, size=rng.integers(0, 40), replace=False)).astype(np.int32) for _ in range(n)]
        parts = parts or [np.zeros(0, dtype=np.int32)]
        got = _union(parts)
        assert got.dtype == np.int32 and got.tolist() == np.unique(np.concatenate(parts)).tolist()


def _index_digest(path) -> str:
    """A hash of every term's postings and every stored field of an index."""
    import hashlib

    from whoosh import index as windex

    h = hashlib.sha256()
    with windex.open_dir(str(path)).searcher() as s:
        r = s.reader()
        for fn, t in r.all_terms():
            h.update(repr((fn, t, r.frequency(fn, t), list(r.postings(fn, t).all_items()))).encode())
        for d in range(r.doc_count_all()):
            h.update(repr(sorted(r.stored_fields(d).items())).encode())
    return h.hexdigest()


@pytest.mark.parametrize("procs", [1, 2])
def test_analyses_carried_from_the_last_build_make_the_same_index(tmp_path, monkeypatch, procs):
    """A rebuild takes the Japanese texts' analyses the last build kept (kb.search.ahead.Carried, issue 20:
    today's editions, then the whole KB) and analyses only texts it has not seen: the index is the same
    as one built from nothing. Analyses made under another vocabulary or code, or a damaged file, are
    not used."""
    import pickle

    from kb.search import ahead
    from kb.search import index as kbindex

    store = _japanese_seeds(tmp_path / "kb.sqlite")
    monkeypatch.setattr(kbindex, "AHEAD_CHUNK", 20)  # many jobs from a small corpus
    analysed: list[str] = []  # the Japanese texts analysed, in this process or in forked workers
    log = tmp_path / "analysed.log"
    index_doc = ahead._index_doc

    def counting(doc, schema, names):
        if doc.get("ja"):
            with open(log, "a", encoding="utf-8") as fh:
                fh.write(doc["key"] + "\n")
        return index_doc(doc, schema, names)

    monkeypatch.setattr(ahead, "_index_doc", counting)

    def build(name: str) -> tuple[str, list[str]]:
        log.write_text("", encoding="utf-8")
        build_index(store, tmp_path / name, procs=procs, carry=carry)
        analysed[:] = log.read_text(encoding="utf-8").split()
        return _index_digest(tmp_path / name), list(analysed)

    build_index(store, tmp_path / "plain", procs=procs)
    plain = _index_digest(tmp_path / "plain")
    carry = tmp_path / "cache" / "analysed.pickle"
    first_digest, first = build("first")
    assert first_digest == plain and len(first) > 40 and carry.exists()
    again_digest, again = build("again")
    assert again_digest == plain and again == []  # nothing analysed twice

    saved = carry.read_bytes()
    monkeypatch.setattr(kbindex, "carry_fingerprint", lambda vocab: "another vocabulary or code")
    other_digest, other = build("other")
    assert other_digest == plain and sorted(other) == sorted(first)
    monkeypatch.undo()
    monkeypatch.setattr(kbindex, "AHEAD_CHUNK", 20)
    monkeypatch.setattr(ahead, "_index_doc", counting)
    for name, damaged in (("cut", saved[: len(saved) // 2]), ("foreign", pickle.dumps(["not", "analyses"]))):
        carry.write_bytes(damaged)  # read as nothing carried
        damaged_digest, analysed_again = build(name)
        assert damaged_digest == plain and sorted(analysed_again) == sorted(first), name
    store.close()
