"""What a search result looks like: highlights, snippets, phrases, rule numbers, one hit per clause,
the defining clause and the English pair, and the guards of dense fusion."""

from __future__ import annotations

import pytest

from kb.analysis import kanji_numerals, okurigana_stem
from kb.search.fusion import GUARD, fuse, words_only
from kb.search.ranking import (
    agrees,
    arrange,
    coins,
    defines,
    names_it,
    nearest_rules,
    obsolete,
    only_kind,
    today_of,
)
from kb.snippets import highlight_spans, snippet_for
from tests.helpers import first


def marked(text: str, lits: list[str]) -> list[str]:
    return [text[a:b] for a, b in highlight_spans(text, lits)]


# -- highlights ------------------------------------------------------------------------------------
def test_a_kana_query_never_marks_every_long_vowel():
    text = "プレイヤーは、ブロック・クリーチャーを指定する。カウンターとパワー。"
    assert marked(text, ["ー", "ぷれいやー", "プレイヤー"]) == ["プレイヤー"]


def test_an_undotted_compound_marks_the_whole_dotted_one():
    text = "ブロック・クリーチャー指定ステップの間、各ブロッククリーチャーは"
    assert marked(text, ["ブロッククリーチャー"]) == ["ブロック・クリーチャー", "ブロッククリーチャー"]


def test_the_s_of_s_trigger_is_marked():
    assert marked("S・トリガーを持つ呪文", ["s・トリガー"]) == ["S・トリガー"]
    assert marked("Ｓ・トリガーを持つ呪文", ["S・トリガー"]) == ["Ｓ・トリガー"]


def test_long_vowel_spellings_mark_each_other():
    assert marked("防御プレーヤーはブロックする", ["プレイヤー"]) == ["プレーヤー"]


def test_english_marks_whole_words_from_their_start():
    text = "The defending player blocked the attacking creature toward the ward."
    assert marked(text, ["block", "ward"]) == ["blocked", "ward"]


# -- snippets --------------------------------------------------------------------------------------
def test_a_short_text_is_its_own_snippet():
    text = "トランプルは常在型能力である。"
    assert snippet_for(text, ["トランプル"])[:2] == (text, 0)


def test_a_long_text_is_cut_at_sentence_or_word_boundaries():
    text = (
        ("First sentence about nothing in particular. " * 6)
        + "Trample lets damage through. "
        + ("More words here. " * 12)
    )
    snippet, start, marks = snippet_for(text, ["trample"], width=120)
    assert snippet == text[start : start + len(snippet)]
    assert start == 0 or text[start - 1] == " " and text[start - 2] == "."  # starts a sentence
    assert (
        snippet.endswith((".", " "))
        or start + len(snippet) == len(text)
        or snippet[-1].isalnum()
        and text[start + len(snippet)] == " "
    )
    assert [snippet[a:b] for a, b in marks] == ["Trample"]
    ja = "第一文です。" * 10 + "トランプルは、攻撃クリーチャーの戦闘ダメージの割り振りを変更する。" + "後の文。" * 30
    snippet, start, marks = snippet_for(ja, ["トランプル"], width=80)
    assert snippet.startswith("トランプル") and snippet.endswith("。")


# -- query words -----------------------------------------------------------------------------------
def test_kanji_numerals_before_a_counter_become_digits():
    assert kanji_numerals("手札が七枚、ライフ二十点、十五枚、二段攻撃") == "手札が7枚、ライフ20点、15枚、二段攻撃"


def test_okurigana_variants_meet():
    assert okurigana_stem("打ち消す") == okurigana_stem("打消す") == "打消"
    assert okurigana_stem("生け贄") == okurigana_stem("生贄") == "生贄"
    assert okurigana_stem("ブロックする") == "ブロックする"  # kana-led words keep their kana


# -- rule numbers ----------------------------------------------------------------------------------
def test_nearest_rules_offers_the_parent_and_the_closest_siblings():
    ids = ["509", "509.1", "509.2", "509.7", "510", "510.1"]
    assert nearest_rules("509.99", ids) == ["509", "509.7", "510.1"]
    assert nearest_rules("508.1", ids)[0] == "509.1"


def test_a_missing_rule_number_says_so_and_offers_the_nearest(searcher):
    page = searcher.search_page("509.99", game="mtg")
    assert page["notes"] and page["notes"][0].startswith("no rule 509.99 here; nearest: 509")
    assert page["hits"] and page["hits"][0]["rule"] == "509"


def test_a_rule_number_of_both_games_offers_both(searcher, kb):
    store = kb[0]
    rule = store.conn.execute(
        "SELECT n.rule FROM nodes n JOIN versions v ON v.id=n.version_id WHERE v.game='dm' AND n.rule LIKE '%.%_'"
        " AND n.rule IN (SELECT n2.rule FROM nodes n2 JOIN versions v2 ON v2.id=n2.version_id WHERE v2.game='mtg'"
        " AND v2.lang='en') ORDER BY n.rule LIMIT 1"
    ).fetchone()[0]
    page = searcher.search_page(rule)
    games = [h["game"] for h in page["hits"] if h["rule"] == rule]
    assert {"mtg", "dm"} <= set(games[:3])
    assert any("both games" in n for n in page["notes"])


# -- phrases ---------------------------------------------------------------------------------------
def test_quoted_phrases_must_appear_as_written(searcher):
    hits = searcher.search('"blocked creature"', lang="en", limit=20)
    assert hits
    for h in hits:
        assert "blocked creature" in (h["title"] + " " + h["text"]).lower()
    loose = searcher.search("blocked creature", lang="en", limit=50)
    assert any("blocked creature" not in (h["title"] + " " + h["text"]).lower() for h in loose)


def test_a_japanese_phrase_keeps_its_words_together(searcher):
    hits = searcher.search(
        "「ブロックされたクリーチャー」 ＂ブロックされたクリーチャー＂", game="mtg", lang="ja", limit=10
    )
    assert hits and all("ブロックされ" in h["text"] for h in hits)


# -- one hit per clause, defining clause, pairs ----------------------------------------------------
def test_the_defining_clause_comes_above_its_heading():
    assert defines("トランプルは、攻撃クリーチャーの…", "トランプル")
    assert defines("Trample is a static ability", "Trample")
    assert not defines("A creature with trample assigns", "Trample")
    fields = {
        1: {"kind": "rule", "game": "mtg", "lang": "en", "rule": "702.19"},
        2: {"kind": "term", "game": "mtg", "lang": "en", "rule": "702.19"},
        3: {"kind": "rule", "game": "mtg", "lang": "en", "rule": "702.19a"},
        4: {"kind": "rule", "game": "mtg", "lang": "ja", "rule": "702.19a"},
    }
    order = arrange([1, 2, 3], fields.get, lambda d: 3 if d == 1 else None, lambda d: 4 if d == 3 else None, window=5)
    # the definer first, its other-language pair second, the heading, and no glossary entry below its clause
    assert order == [3, 4, 1]


def test_a_term_query_shows_definer_heading_and_no_duplicate_entries(searcher):
    hits = searcher.search("Trample", lang="en", limit=10)
    # 702.19a says what kind of ability trample is; 702.19b, what it does (the clause a judge cites)
    assert hits[0]["rule"] == "702.19b" and any("defines" in w for w in hits[0]["why"])
    rules = [h["rule"] for h in hits]
    assert rules.index("702.19b") < rules.index("702.19")
    keys = [(h["kind"], h["lang"], h["rule"]) for h in hits]
    assert ("term", "en", "702.19") not in keys  # the glossary entry points at a clause shown above it


def test_hits_carry_provenance_and_why(searcher):
    for h in searcher.search("ブロック", limit=20):
        assert h["provenance"] in ("official", "official-translation", "private-translation", "viewer", "wiki-quote")
        assert h["why"]


# -- fusion guards ---------------------------------------------------------------------------------
def test_guarded_tiers_stay_on_top_and_rrf_orders_the_rest():
    scored = {1: (3.0, 5.0), 2: (2.8, 1.0), 3: (1.3, 2.0), 4: (0.0, 9.0), 5: (0.0, 1.0)}
    dense = [(9, 0.91), (5, 0.90), (2, 0.5)]
    out = fuse(scored, dense)
    assert out.order[:2] == [1, 2]  # rule number, exact name: never passed by dense hits
    assert out.order.index(5) < out.order.index(4)  # in both lists beats in one
    assert 9 in out.order and out.order.index(9) > 1
    assert all(out.score[a] >= out.score[b] for a, b in zip(out.order, out.order[1:], strict=False))
    assert all(out.score[d] < GUARD for d in out.order[2:])
    assert any(w.startswith("meaning #1") for w in out.why[9])
    assert words_only(scored).order == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("q", ["509.1c", "ルール509.1c"])
def test_a_rule_number_stays_first_and_skips_dense(searcher, q):
    hit = first(searcher, q)
    assert hit["rule"] == "509.1c" and hit["why"] == ["rule number"]


# -- obsolete terms and coined names -------------------------------------------------------------
def test_an_obsolete_entry_names_where_to_go_today():
    assert obsolete("(Obsolete) An obsolete term for mana value. Cards printed with this term ...")
    assert obsolete("(廃語)マナ総量の古い言い方。") and not obsolete("トランプルは常在型能力である。")
    assert today_of("(Obsolete) An obsolete term for mana value. Cards printed ...") == (None, "mana value")
    assert today_of("(Obsolete) An obsolete card type that has been renamed. See rule 308, “Kindreds.”")[0] == "308"
    assert today_of("(廃語)「[何か]をゲームから取り除く」とは、「[何か]を追放する」の古い言い方である。")[1] == "追放"
    assert today_of("(廃語)戦場のことを言う古い表現。")[1] == "戦場"
    assert today_of("(廃語)以前の版のルールにおいて…これを「マナ・バーン」と呼んだ。このルールはもう存在しない。") == (
        None,
        None,
    )


def test_a_clause_coins_a_name_by_quoting_or_naming_it():
    assert coins(
        "攻撃クリーチャーは、「ブロックされているクリーチャー／blocked creature」になる。",
        "ブロックされているクリーチャー",
    )
    assert coins("An attacking creature ... becomes a blocked creature; one with", "Blocked Creature")
    assert coins("失われた1マナごとに1ライフを失う。これをマナ・バーンという。", "マナ・バーン")
    assert not coins("A blocked creature assigns its combat damage to the creatures blocking it.", "Blocked Creature")
    assert coins("各部屋には、部屋能力と呼ばれる誘発型能力があり、", "部屋能力")


def test_a_clause_quoting_a_name_as_a_word_does_not_coin_it():
    # 304.3: where an instant's subtypes are printed, not what an instant is
    assert not coins(
        "インスタントのサブタイプは必ず1単語であり、「インスタント／Instant」という語のあとに、", "インスタント"
    )
    assert not coins("そのサブタイプに「トークン」という単語を足したものと同じである。", "トークン")
    assert not coins("そういった効果のことを自己置換効果と呼ぶ。", "置換効果")  # the tail of a longer name
    assert not coins("土地というカード・タイプを持つ", "土地")  # a plain "X という Y"
    assert coins("「パーマネント 呪文／permanent spell」という語は、", "パーマネント・呪文")  # "the word X is": defines


def test_a_clause_only_saying_what_kind_of_ability_a_keyword_is_gives_way():
    assert only_kind("接死は常在型能力である。", "接死") and only_kind("威迫は、回避能力である。", "威迫")
    assert only_kind("Deathtouch is a static ability.", "Deathtouch")
    assert only_kind(
        "先制攻撃は、戦闘ダメージ・ステップのルールを変更する常在型能力である。rule 510〔戦闘ダメージ・ステップ〕参照。",
        "先制攻撃",
    )
    trample = "Trample is a static ability that modifies the rules for assigning an attacking creature’s combat damage."
    assert only_kind(trample + " (See rule 510, “Combat Damage Step.”)", "Trample")
    # a clause that goes on to say what the keyword means stays the defining one
    assert not only_kind("Ward is a triggered ability. Ward [cost] means “Whenever this permanent …”", "Ward")
    assert not only_kind("瞬速は、…機能する常在型能力である。「瞬速／Flash」は、「…」を意味する。", "瞬速")
    assert not only_kind("Landwalk is a generic term that appears within an object’s rules text", "Landwalk")


def test_each_name_a_glossary_entry_lists_is_its_exact_name(searcher):
    from kb.search.index import title_keys
    from kb.search.ranking import alternatives

    assert alternatives("統率、統率領域") == ["統率", "統率領域"]
    assert alternatives("Respond/Response (Informal)") == ["Respond", "Response"]
    assert alternatives("Y, Z") == []  # no one-letter names
    assert "統率領域" in title_keys("統率、統率領域", listed=True) and title_keys("統率、統率領域") == [
        "統率、統率領域"
    ]
    # "Life, Life Total": the entry is the query's exact name, below the clause opening its rule
    hits = searcher.search("life total", lang="en", limit=3)
    assert [(h["kind"], h["rule"]) for h in hits[:2]] == [("rule", "119.1"), ("term", "119")]
    assert hits[1]["why"][0] == "exact name" and "opens Life Total" in hits[0]["why"]


def test_a_heading_named_by_the_query_follows_the_clause_a_judge_cites(searcher):
    # a rule heading: its first sub-clause naming it; a keyword: the sub-clause saying what it does
    rules = [h["rule"] for h in searcher.search("graveyard", lang="en", limit=5)]
    assert rules[:2] == ["404.1", "404"]
    hits = searcher.search("deathtouch", lang="en", limit=5)
    assert [h["rule"] for h in hits[:2]] == ["702.2b", "702.2"] and "defines Deathtouch" in hits[0]["why"]
    assert "opens Priority" in searcher.search("priority", lang="en", limit=3)[0]["why"]
    # a clause a little below that says what the name is wins over the first (606.1 only introduces it)
    assert [h["rule"] for h in searcher.search("loyalty ability", lang="en", limit=2)] == ["606.2", "606"]


def test_an_english_name_in_the_plural_is_the_singular_entrys_exact_name(searcher):
    from kb.search.query import singular

    assert [singular(k) for k in ("layers", "abilities", "status", "loss", "trample")] == [
        "layer",
        "ability",
        None,
        None,
        None,
    ]
    hits = searcher.search("layers", lang="en", limit=2)  # the glossary's "Layer", below the clause opening 613
    assert [(h["kind"], h["rule"]) for h in hits] == [("rule", "613.1"), ("term", "613")]
    assert hits[1]["why"][0] == "exact name"


def test_an_entry_sending_its_reader_to_another_is_followed_to_that_ones_rule(searcher):
    from kb.search.ranking import see_entry

    assert see_entry("ターンで最初のメイン・フェイズのこと。メイン・フェイズ 参照。") == "メイン・フェイズ"
    assert see_entry("The first main phase of a turn. See Main Phase.") == "Main Phase"
    assert see_entry("…キーワード能力。rule 702.19〔トランプル〕参照。") is None  # it cites a rule
    assert see_entry("…を対象にすること。700.13. 参照。") is None
    # "Precombat Main Phase" cites no rule, but "Main Phase" does (505): the clause naming it comes first
    hits = searcher.search("precombat main phase", lang="en", limit=2)
    assert [(h["kind"], h["rule"]) for h in hits] == [("rule", "505.1a"), ("term", None)]


def test_a_clause_naming_what_it_describes_is_read():
    assert names_it("忠誠シンボルをコストに含む起動型能力は忠誠度能力である。通常、…", "忠誠度能力")
    assert names_it("以下のすべての条件を満たす起動型能力は、マナ能力である。対象を取りえないこと", "マナ能力")
    assert names_it("An activated ability with a loyalty symbol in its cost is a loyalty ability.", "Loyalty Ability")
    assert not names_it("起動型能力の中には忠誠度能力が存在し、それらは特別なルールに従う。", "忠誠度能力")
    assert not names_it("An activated ability is a mana ability if it meets all of the following", "Mana Ability")


def test_an_obsolete_term_leads_to_todays_clause(searcher):
    hits = searcher.search("converted mana cost", lang="en")
    assert hits[0]["rule"] == "202.3" and hits[0]["kind"] == "rule"
    assert any(w.startswith("today's rule for Converted Mana Cost") for w in hits[0]["why"])
    assert hits[1]["kind"] == "term" and hits[1]["title"] == "Converted Mana Cost"  # the entry pointing to it follows


def test_a_term_coined_below_its_heading_puts_the_coining_clause_first(searcher):
    hit = first(searcher, "blocked creature", lang="en")
    assert hit["kind"] == "rule" and hit["rule"] == "509.1h" and "defines Blocked Creature" in hit["why"]


# -- speed without a change of answer ----------------------------------------------------------------
def test_term_lookups_read_only_entries_starting_with_a_query_word_and_keep_the_table_order():
    from kb.search.thesaurus import Thesaurus, english_key
    from kb.search.thesaurus import keys as term_keys

    th = Thesaurus.load(
        pairs={
            "トランプル": ["trample"],
            "先制攻撃": ["first strike"],
            "攻撃": ["attack"],
            "攻撃クリーチャー": ["attacking creature"],
            "二段攻撃": ["double strike"],
        }
    )
    keys = ["攻撃", "クリチャ", "先制", "攻撃"]
    naive = sorted(
        (
            (len(k), sorted(v))
            for k, v in th.ja2en.items()
            if any(tuple(keys[i : i + len(k)]) == k for i in range(len(keys)))
        ),
        key=lambda x: -x[0],
    )
    assert th.to_english(keys) == [en for _, ens in naive[:3] for en in ens[:2]]
    q = f" {english_key('the first strike of an attacking creature')} "
    naive_ja = sorted(((len(e), sorted(j)) for e, j in th.en2ja.items() if f" {e} " in q), key=lambda x: -x[0])
    assert th.to_japanese("the first strike of an attacking creature") == [j for _, js in naive_ja[:3] for j in js[:2]]
    th.add_pair("マナ総量", "mana value")  # a pair added after a lookup is found too
    assert th.to_english(list(term_keys("マナ総量の計算"))) == ["mana value"]
    assert th.to_japanese("mana value") == ["マナ総量"]


def test_dense_top_k_is_the_exact_cosine_order():
    np = pytest.importorskip("numpy")
    from kb.search.semantic import DenseIndex, VectorSet

    rng = np.random.default_rng(7)
    rows = rng.normal(size=(50, 16)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    vs = VectorSet.from_floats("m", [bytes([i]) * 16 for i in range(50)], rows)
    ix = DenseIndex(vs, list(range(50)))
    q = rows[3]
    got = ix.top(q, 5)
    want = np.argsort(-(ix.matrix @ q))[:5]
    assert [d for d, _ in got] == [int(ix.docnums[i]) for i in want] and got[0][0] == 3
    assert [d for d, _ in ix.top(q, 5, docs={10, 11, 12}, key="some")] == sorted(
        {10, 11, 12}, key=lambda d: -float(ix.matrix[d] @ q)
    )


def test_every_players_word_names_its_reason_and_source():
    from kb.search.thesaurus import PLAYERS_PATH, Thesaurus

    lines = [
        ln.split("\t")
        for ln in PLAYERS_PATH.read_text(encoding="utf-8").splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    assert lines and all(len(c) == 5 and c[3].strip() and c[4].strip() for c in lines)
    th = Thesaurus.load()
    assert th.rewrite(["バウンス"]) == [(0, 1, "手札に戻す")]  # a line added with its source is read


def test_definitions_are_read_in_the_ways_the_rules_write_them():
    assert defines("増殖を行うとは、カウンターの置かれている…", "増殖")
    assert defines("パーマネントをタップするとは、カードを横向きに倒すことである。", "タップ")
    assert defines("To proliferate means to choose any number of permanents", "Proliferate")
    assert defines("ブロック・クリーチャーは、戦闘ダメージを…", "ブロッククリーチャー")  # dots do not matter
    assert not defines("スタックに積まれた呪文は、", "スタック")
    assert defines("カードをある領域から探すとは、その領域にあるすべてのカードを見て", "探す")
    assert not defines("カードを手札から自己置換効果とは", "置換効果")
    assert coins("「給餌する／Forage」 は、…を意味する。", "給餌")
    assert coins("「パーマネント 呪文／permanent spell」という語は、", "パーマネント・呪文")


def test_a_keyword_actions_defining_sub_clause_comes_first(searcher):
    hits = searcher.search("proliferate", lang="en")
    assert hits[0]["rule"] == "701.34a" and "defines Proliferate" in hits[0]["why"]
    assert hits[1]["rule"] == "701.34"  # the heading the query names follows the clause defining it


# -- names typed with an IME slip or in kana -----------------------------------------------------------
def test_a_name_reads_alike_whatever_kanji_or_kana_it_is_typed_in(searcher):
    read = searcher.builder.reading_of
    assert read("回避脳力") == read("回避能力") == read("かいひのうりょく")
    assert read("先頭ダメージ") == read("戦闘ダメージ")
    assert read("シールドが無いとき") is None  # a phrase with particles is not one name


def test_an_ime_slip_in_a_heading_name_finds_the_heading(searcher):
    heading = searcher.search("先頭ダメージ・ステップ", limit=3)[1]  # below its first clause, 510.1
    assert (heading["game"], heading["rule"], heading["why"][0]) == ("mtg", "510", "name read alike")


# -- negation ------------------------------------------------------------------------------------------
def test_the_words_a_query_negates_are_read_from_the_query(searcher):
    neg = searcher.builder.negated
    assert neg("ブロックされなかったクリーチャーの戦闘ダメージ") == ["ブロック"]
    assert neg("シールドが無いときに攻撃されたら") == ["シールド"]
    assert neg("攻撃しないクリーチャー") == ["攻撃"]
    assert neg("ブロックされたクリーチャー") == []


def test_a_clause_agrees_when_it_negates_the_same_word():
    assert agrees("ブロックされていないクリーチャーは、その戦闘ダメージを", ["ブロック"])
    assert agrees("非ターン・プレイヤーにシールドがなければ、", ["シールド"])
    assert not agrees("ブロックされたクリーチャーは、戦闘ダメージを割り振る。", ["ブロック"])
    assert not agrees("ブロック・クリーチャーを指定する。攻撃していない。", ["ブロック"])  # a negation of another word


def test_only_the_first_sentence_says_what_a_clause_negates():
    assert not agrees("防御プレイヤーはブロック・クリーチャーを指定する。そのコストを支払わない場合、", ["支払"])


def test_a_translated_name_keeps_the_querys_negation(searcher):
    blocked = searcher.builder.build("ブロックされたクリーチャー")[0]
    unblocked = searcher.builder.build("ブロックされなかったクリーチャー")[0]
    named = lambda tiers: " ".join(repr(q) for t, q in tiers if t == 2.7)  # noqa: E731
    assert "'blockedcreature'" in named(blocked) and "unblockedcreature" not in named(blocked)
    assert "unblockedcreature" in named(unblocked) and "'blockedcreature'" not in named(unblocked)


def test_a_japanese_query_sees_the_defining_clause_in_japanese(searcher):
    ja = first(searcher, "ブロックされたクリーチャー")
    assert (ja["lang"], ja["rule"]) == ("ja", "509.1h") and "defines Blocked Creature" in ja["why"]
    en = first(searcher, "blocked creature")
    assert (en["lang"], en["rule"]) == ("en", "509.1h")


def test_a_forked_process_embeds_queries_on_its_own_thread(searcher):
    import os
    import signal

    searcher.search("トランプル")  # the parent's embedding thread exists before the fork
    pid = os.fork()
    if pid == 0:  # the child: a search must not wait forever on the parent's (absent) thread
        signal.alarm(60)
        try:
            os._exit(0 if searcher.search("攻撃クリーチャーを止める") else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def test_a_whole_query_of_player_words_names_the_heading_of_the_rules_words(searcher):
    from kb.analysis import title_key

    def named(text: str) -> set[str]:
        tiers, _, _ = searcher.build_query(text)
        query = next(q for tier, q in tiers if tier == 2.7)
        return {t.text for t in query.subqueries} if hasattr(query, "subqueries") else {query.text}

    assert title_key("生け贄に捧げる") in named("サクる")  # 701.21 生け贄に捧げる: its 701.21a comes first
    assert title_key("二段攻撃") in named("ダブスト")
    # a player's word inside a longer query names nothing: the rest of the query says more
    tiers, _, _ = searcher.build_query("サクる 誘発")
    assert all(tier != 2.7 for tier, _ in tiers)


def test_a_query_with_no_japanese_is_magics(searcher):
    # Duel Masters' rules are Japanese only: SBA, trample, "state-based actions" are Magic's words
    assert searcher._game_of("SBA") == "mtg" and searcher._game_of("state-based actions") == "mtg"
    assert searcher._game_of("シールドをブレイクする") == "dm"


def test_edit_distance_counts_a_swap_as_one():
    from kb.search.spelling import distance

    assert [distance(a, b) for a, b in [("actoins", "actions"), ("protecton", "protection"), ("abc", "abc")]] == [
        1,
        1,
        0,
    ]
    assert distance("hexproff", "hexproof") == 1 and distance("kitten", "sitting") == 3


def test_a_mistyped_name_is_searched_as_the_rules_spell_it(searcher):
    from kb.search.spelling import Speller

    speller = Speller({"protection": 40, "commander": 30, "hell": 5, "deathtouch": 9, "blocker": 9}, {"blocked"})
    assert speller.text("protecton from Red") == ("protection from Red", [("protecton", "protection")])
    assert speller.correct("hel") is None and speller.correct("commander") is None  # short or known: as typed
    assert speller.correct("blocked") is None  # a word some text holds is no typo, whatever name is near it
    assert speller.correct("zommander") is None  # a first letter typed wrong is no typo worth guessing
    page = searcher.search_page("comander damage", lang="en", limit=3)
    assert page["notes"][0] == "searched for “commander damage”: no text has “comander”"
    assert page["hits"][0]["rule"] in {"903.10a", "704.6c", "104.3j"}
    # a word of running text that no rule names is no correction ("weather" is not "whether")
    assert searcher.search_page("weather tomorrow", lang="en", limit=1)["notes"][:1] != [
        "searched for “whether tomorrow”: no text has “weather”"
    ]
    assert not searcher._spelled("ETB") and not searcher._spelled("702.19b") and not searcher._spelled('"comander"')
