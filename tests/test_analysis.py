"""The Janome analyzer for Whoosh: normalisation cases, offsets, the tokenizer contract, pickling."""

from __future__ import annotations

import pickle

from whoosh.fields import TEXT, Schema

from kb.analysis import (
    JanomeTokenizer,
    JapaneseAnalyzer,
    ReadingAnalyzer,
    bigrams,
    fold_kana,
    is_kana_only,
    learn_vocab,
    normalize_mapped,
    split_katakana,
    to_katakana,
    words,
)


def keys(text: str, **kw) -> list[str]:
    return [w.key for w in words(text, **kw)]


def tokens(text: str, kind: str = "words", **kw) -> list[tuple[str, int, int, int]]:
    tk = JanomeTokenizer(kind)
    return [(t.text, t.pos, t.startchar, t.endchar) for t in tk(text, positions=True, chars=True, **kw)]


def test_nfkc_full_width_digits_and_letters():
    assert keys("５０９") == keys("509") == ["509"]
    assert keys("ＣＲ") == ["cr"]


def test_half_width_kana_folds_and_keeps_original_offsets():
    text = "ｶﾞｰﾄﾞ ブロッカー"
    norm, starts, ends = normalize_mapped(text)
    assert norm.startswith("ガード")  # ｶﾞ (two characters) became one
    assert keys(text) == keys("ガード ブロッカー")
    w = words(text)[0]
    assert (w.start, w.end) == (0, 5) and text[w.start : w.end] == "ｶﾞｰﾄﾞ"


def test_middle_dot_both_directions():
    dotted, plain = words("ブロック・クリーチャー"), words("ブロッククリーチャー")
    assert dotted[0].key == plain[0].key
    assert {p for p, _, _ in dotted[0].parts} == {p for p, _, _ in plain[0].parts} == {"ブロック", "クリチャ"}
    assert keys("ブロック･クリーチャー") == keys("ブロック・クリーチャー")  # half-width dot


def test_katakana_compound_parts_like_search_mode():
    w = words("マナ・コストを支払う")[0]
    assert w.key == "マナコスト"
    assert ("コスト", 3, 6) in w.parts
    # an undotted compound splits on known katakana words
    assert {p for p, _, _ in words("マナコスト")[0].parts} == {"マナ", "コスト"}
    assert split_katakana("クリーチャー", frozenset({"クリー", "チャー"})) == [(0, 3), (3, 6)]
    assert split_katakana("クリーチャー", frozenset({"クリー"})) == []


def test_long_vowel_variants():
    assert keys("プレーヤー") == keys("プレイヤー") == keys("プレイヤ")
    assert fold_kana("コスト") == "コスト"
    assert keys("ステップ") != keys("スタック")


def test_base_forms_for_inflection():
    assert keys("飛ばし") == keys("飛ばす") == ["飛"]
    # verb forms and the noun made from the verb meet on the stem without okurigana
    assert keys("支払った") == keys("支払わなかった") == keys("支払い") == ["支払"]
    assert keys("始まる") == keys("始める")
    assert keys("唱えた") == keys("唱える") == keys("唱えられない")[:1]
    assert keys("ブロックされない") == keys("ブロックされなかった") == keys("ブロックされていない")


def test_particles_auxiliaries_and_symbols_dropped():
    assert keys("ブロックしたクリーチャーはどうなる？") == ["ブロック", "クリチャ"]
    # the passive is kept (blocked creature is not blocking creature), as one key
    assert (
        keys("ブロックされたクリーチャー") == keys("ブロックされているクリーチャー") == ["ブロック", "れる", "クリチャ"]
    )
    assert keys("唱えられた") == ["唱", "れる"]


def test_readings_match_same_reading_words_and_kana():
    assert words("先頭")[0].reading == words("戦闘")[0].reading
    assert to_katakana("ぶろっく") == "ブロック"
    assert is_kana_only("ゆうせんけん") and not is_kana_only("優先権")
    read = [t[0] for t in tokens("優先権", kind="reading")]
    assert fold_kana("ユウセンケン") in read  # noun-run reading, so kana input finds the compound


def test_offsets_correct_when_a_word_repeats():
    text = "ブロック、ブロック・クリーチャー、ｶﾞｰﾄﾞのブロック"
    toks = [t for t in tokens(text) if t[0] == "ブロック"]
    spans = [(s, e) for _, _, s, e in toks]
    assert spans == [(0, 4), (5, 9), (23, 27)]
    assert all(text[s:e] == "ブロック" for s, e in spans)


def test_positions_increase_and_start_offsets_shift():
    toks = tokens("防御プレイヤーは防御する")
    assert [t[1] for t in toks] == sorted(t[1] for t in toks)
    shifted = tokens("防御プレイヤーは防御する", start_pos=10, start_char=100)
    assert [(t[0], t[1] - 10, t[2] - 100, t[3] - 100) for t in shifted] == toks


def test_tokenize_false_yields_one_normalised_token():
    tk = JanomeTokenizer()
    out = [
        (t.text, t.startchar, t.endchar) for t in tk("ブロック・クリーチャー", tokenize=False, chars=True, mode="query")
    ]
    assert out == [("ブロッククリチャ", 0, 11)]


def test_bigrams_have_original_offsets():
    grams = bigrams("ＡＢ ブロ・ック")
    assert grams[0] == ("ab", 0, 2)
    assert ("ロッ", 4, 7) in grams  # spans the dot in the original text


def test_analyzer_survives_pickling_in_a_schema():
    vocab = learn_vocab(["ブロック・クリーチャー", "ドラゴン・エレメント"])
    assert {"ドラゴン", "エレメント"} <= vocab
    schema = Schema(ja=TEXT(analyzer=JapaneseAnalyzer(vocab)), jr=TEXT(analyzer=ReadingAnalyzer()))
    clone = pickle.loads(pickle.dumps(schema))
    a = clone["ja"].analyzer
    assert a == schema["ja"].analyzer and "ドラゴン" in a.vocab
    assert [t.text for t in a("ドラゴンエレメント")] == ["ドラゴンエレメント", "ドラゴン", "エレメント"]


def test_highlight_spans_map_back_to_the_original_text():
    from kb.snippets import highlight_spans, snippet_for

    text = "ｶﾞｰﾄﾞとｶﾞｰﾄﾞ、ＢＬＯＣＫ"
    assert highlight_spans(text, ["ガード", "block"]) == [[0, 5], [6, 11], [12, 17]]
    snippet, start, marks = snippet_for("あ" * 100 + "ブロック" + "い" * 100, ["ブロック"], width=40)
    assert snippet[marks[0][0] : marks[0][1]] == "ブロック" and start == 90


def test_highlight_forms_kept_stay_within_their_budget_and_change_nothing(monkeypatch):
    from kb import snippets

    monkeypatch.setattr(snippets, "MARKED_CHARS", 5000)
    monkeypatch.setattr(snippets, "_marked", type(snippets._marked)())
    monkeypatch.setattr(snippets, "_marked_chars", 0)
    texts = [f"{i}番目のブロック・クリーチャー指定ステップでは、防御プレイヤーがブロックする。" for i in range(200)]
    first = [snippets.highlight_spans(t, ["ブロッククリーチャー", "ブロック"]) for t in texts]
    assert snippets._marked_chars <= 5000 and 0 < len(snippets._marked) < len(texts)
    assert sum(len(t) for t in snippets._marked) == snippets._marked_chars
    again = [snippets.highlight_spans(t, ["ブロッククリーチャー", "ブロック"]) for t in texts]
    assert again == first and all(spans for spans in first)
    long = "トランプル" * 100  # over a hundredth of the budget: answered, not kept
    assert snippets.highlight_spans(long, ["トランプル"])[0] == [0, 5]
    assert long not in snippets._marked
