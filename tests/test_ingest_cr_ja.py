"""The cr-ja ingestor on the real 和訳 20260116.0 pieces and on small fixtures."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from ingest import parse_file, parse_text
from ingest.common import Hints
from kb import ruleid
from tests import helpers
from tests.helpers import CR_JA_FULL, CR_JA_HEAD, CR_JA_TAIL

HEAD, TAIL = CR_JA_HEAD, CR_JA_TAIL
FIXTURES = helpers.FIXTURES / "cr_ja"


def _parse(path: Path):
    return parse_file(str(path), Hints(format="cr-ja", path=str(path)))


@pytest.fixture(scope="module")
def head():
    return _parse(HEAD)


@pytest.fixture(scope="module")
def tail():
    return _parse(TAIL)


def _node(version, rule):
    return next(n for n in version.nodes if n.rule == rule)


def test_head_is_a_partial_version_with_rules_100_to_103_4e(head):
    assert not head.errors
    (v,) = head.versions
    assert (v.game, v.lang, v.label, v.effective, v.partial) == ("mtg", "ja", "20260116.0", None, True)
    clauses = [n.rule for n in v.nodes if "." in n.rule]
    assert clauses[0] == "100.1" and clauses[-1] == "103.4e"
    # Independent count: every raw line that opens with a clause id ("100.1." or "100.1a ").
    raw = [s for s in HEAD.read_text(encoding="utf-8").split("\n") if re.match(r"\d{3}\.\d+(?:\.|[a-z]+) ", s)]
    assert len(clauses) == len(raw) == 51
    assert [(n.rule, n.title) for n in v.nodes if "." not in n.rule] == [
        ("1", "ゲームの考え方"),
        ("100", "原則"),
        ("101", "マジックの黄金律"),
        ("102", "プレイヤー"),
        ("103", "ゲームの始め方"),
    ]


def test_head_clause_texts_examples_and_notes(head):
    v = head.versions[0]
    assert _node(v, "100.1a").text == "2人対戦とは、2人で開始されるゲームのことである。"
    assert _node(v, "100.1a").parent == "100.1"
    assert _node(v, "103.4e").text == "アーチエネミー戦では、魔王の初期ライフ総量は40点である。"
    assert _node(v, "101.2").examples[0].startswith("「このターン、あなたは追加で土地1枚をプレイしてよい。」")
    assert (
        _node(v, "101.4").examples[0].startswith("「各プレイヤーはそれぞれ、クリーチャー1体を生け贄に捧げる。」")
    )  # 例: (ASCII colon)
    assert "例" not in _node(v, "101.4").text
    n1006 = _node(v, "100.6")
    assert n1006.notes == ["訳注：日本語版は https://mjmjp.info/ で公開されている"]
    assert n1006.text.endswith("例えば、古いセットからのカードはすべて禁止、などである。")
    assert [r.rule for r in _node(v, "100.2a").references] == ["201.3"]
    inline = {(t.term, t.english) for t in v.terms if t.source == "inline"}
    assert ("あなたの チーム", "your team") in inline


def test_head_contents_are_complete_and_exact(head):
    v = head.versions[0]
    contents = v.meta["contents"]
    lines = HEAD.read_text(encoding="utf-8").split("\n")
    start, end = lines.index("もくじ"), lines.index("マジック：ザ・ギャザリング\u3000総合ルール")
    expected = [tuple(s.split(". ", 1)) for s in lines[start + 1 : end]]
    assert [tuple(e) for e in contents] == expected
    assert len(contents) == 156
    ids = [rid for rid, _ in contents]
    assert ids[0] == "0" and ids[-1] == "10" and dict(contents)["10"] == "用語集"
    assert "720" in ids and "722" in ids and "721" not in ids  # the table of contents skips 721
    assert v.meta["translator"] == "日本マジックジャッジルール文書翻訳チーム"
    assert v.meta["based_on"] == "*ぱお*/米村 薫"
    assert v.meta["introduction"].startswith(
        "この文書は、マジック：ザ・ギャザリングの競技的ゲームプレイにおける最高権威である。"
    )


def test_tail_gives_glossary_terms_and_the_effective_date(tail):
    assert not tail.errors
    (v,) = tail.versions
    assert (v.label, v.effective, v.partial, v.nodes) == ("20260116.0", date(2026, 1, 16), True, [])
    glossary = [t for t in v.terms if t.source == "glossary"]
    text = TAIL.read_text(encoding="utf-8")
    raw = re.findall(r"^[^\u3000\n（]+（[^）\n]+）／", text, re.M)
    assert len(glossary) == len(raw) == 79
    pool = next(t for t in glossary if t.term == "マナ・プール")
    assert (pool.reading, pool.english) == ("まなぷーる", "Mana Pool")
    assert pool.definition == "効果によって生み出されたマナが一時的に蓄えられる場所。rule 106.4 参照。"
    colorless = next(t for t in glossary if t.term == "無色")
    assert colorless.definition.startswith("1. 色を持たないオブジェクトは無色である。")
    assert "2. マナのタイプの1つ。" in colorless.definition
    assert glossary[-1].term == "ヴァンガード戦" and glossary[-1].english == "Vanguard(2)"
    assert v.meta["credits"][0] == "マジック：ザ・ギャザリング\u3000オリジナル・ゲームデザイン: Richard Garfield"
    assert "翻訳：日本マジックジャッジルール文書翻訳チーム" in v.meta["credits"]
    # The piece starts inside the definition of an earlier term: said, not silently merged.
    assert any(d.line == 1 and "inside an entry" in d.message for d in tail.warnings)


def test_both_pieces_share_one_version_label(head, tail):
    assert head.versions[0].label == tail.versions[0].label == "20260116.0"


def test_label_without_a_file_name_comes_from_the_text():
    head_text, tail_text = HEAD.read_text(encoding="utf-8"), TAIL.read_text(encoding="utf-8")
    assert parse_text(head_text, Hints(format="cr-ja")).versions[0].label == "20260116.0"  # 2026-01-16 に翻訳
    assert parse_text(tail_text, Hints(format="cr-ja")).versions[0].label == "20260116.0"  # effective date


# --- small fixtures: one parsing rule each -------------------------------------------------


@pytest.fixture(scope="module")
def complete():
    return _parse(FIXTURES / "complete.txt")


def test_complete_document_is_not_partial(complete):
    v = complete.versions[0]
    assert (v.label, v.effective, v.partial) == ("20240802.0", date(2024, 8, 2), False)
    assert [n.rule for n in v.nodes] == ["1", "100", "100.1", "100.1a", "101", "101.1"]
    assert v.meta["introduction"] == "この文書は、最高権威である。"


def test_continuation_paragraph_example_and_trailing_note(complete):
    n = _node(complete.versions[0], "100.1a")
    assert n.text == "2人対戦とは、2人で開始されるゲームのことである。\n続きの段落である。"
    assert n.examples == ["これは例である。", "これは2つ目の例である。"]
    assert n.notes == ["訳注：日本語版もある"]


def test_numbered_paragraph_is_text_and_glossary_heading_ends_rules(complete):
    v = complete.versions[0]
    assert _node(v, "101.1").text.endswith("\n2. 独立した段落は見出しではない。")
    terms = {t.term: t for t in v.terms if t.source == "glossary"}
    assert terms["無色"].definition == "1. 色を持たないオブジェクトは無色である。\n2. マナのタイプの1つ。"
    assert (terms["アーティファクト"].reading, terms["アーティファクト"].english) == ("あーてぃふぁくと", "Artifact")


def test_tail_fixture_warns_about_the_cut_entry():
    result = _parse(FIXTURES / "tail_piece.txt")
    v = result.versions[0]
    assert (v.label, v.partial, [t.term for t in v.terms]) == ("20250207.0", True, ["マナ・プール"])
    assert "contents" not in v.meta  # so it cannot blank the list the head piece gives the store
    assert [d.line for d in result.warnings] == [1]


def test_no_version_is_an_error_naming_the_file():
    result = parse_text("100.1. ルールである。\n", Hints(format="cr-ja", path="x.txt"))
    assert [str(e) for e in result.errors] == [
        "x.txt: error: cannot tell the version (no YYYYMMDD.N in the name, no date); give --version"
    ]


# --- the whole text: rules 100-905, 用語集, クレジット, effective-date line ------------------

FULL = FIXTURES / "full_text.txt"


def _shape(result):
    """What a parse says about the rules and terms, to compare inputs that differ only in form."""
    (v,) = result.versions
    nodes = [(n.rule, n.parent, n.title, n.text, n.examples, n.notes) for n in v.nodes]
    terms = [(t.term, t.reading, t.english, t.definition, t.source) for t in v.terms]
    return v.label, v.effective, v.partial, nodes, terms, v.meta.get("contents")


def _unlisted_721_only(result) -> bool:
    return [d.message.split(" is not")[0] for d in result.warnings] == ["rule 721 呪文や能力のコピー"]


@pytest.fixture(scope="module")
def full():
    return _parse(FULL)


def test_full_text_is_complete_with_every_clause_in_order(full):
    assert not full.errors
    # Like the real text, the fixture's もくじ omits 721: the one warning.
    assert [d.message for d in full.warnings] == ["rule 721 呪文や能力のコピー is not listed in もくじ"]
    (v,) = full.versions
    assert (v.label, v.effective, v.partial) == ("20260116.0", date(2026, 1, 16), False)
    clauses = [n.rule for n in v.nodes if "." in n.rule]
    # Independent list: every line that opens with a clause id, in file order.
    raw = re.findall(r"^(\d{3}\.\d+(?:[a-z]+)?)\.? ", FULL.read_text(encoding="utf-8"), re.M)
    assert clauses == raw and len(clauses) == 38
    assert clauses[-1] == "905.6" and "704.5aa" in clauses
    assert clauses.index("704.5z") + 1 == clauses.index("704.5aa")
    assert [n.rule for n in v.nodes if "." not in n.rule] == [
        "1",
        "100",
        "101",
        "5",
        "500",
        "509",
        "6",
        "613",
        "7",
        "701",
        "702",
        "704",
        "721",
        "722",
        "8",
        "800",
        "9",
        "900",
        "905",
    ]


def test_full_text_name_only_clauses_are_titles_like_cr_en(full):
    v = full.versions[0]
    assert (_node(v, "702.2").title, _node(v, "702.2").text) == ("接死", "")
    assert (_node(v, "702.19").title, _node(v, "702.19").text) == ("トランプル", "")
    assert (_node(v, "701.2").title, _node(v, "701.2").text) == ("起動する", "")
    assert _node(v, "702.2a").parent == "702.2" and _node(v, "702.2a").text == "接死は常在型能力である。"
    # A clause that introduces a list is text, not a title.
    assert (_node(v, "704.5").title, _node(v, "704.5").text) == ("", "状況起因処理は以下の通りである：")
    en_text = (
        "Magic: The Gathering Comprehensive Rules\n\nThese rules are effective as of January 16, 2026.\n\n"
        "1. Game Concepts\n\n100. General\n\n100.1. These Magic rules apply to any Magic game.\n\n"
        "7. Additional Rules\n\n702. Keyword Abilities\n\n702.2. Deathtouch\n\n702.2a Deathtouch is a static ability.\n"
    )
    en = {n.rule: n for n in parse_text(en_text, Hints(format="cr-en", version="20260116")).versions[0].nodes}
    assert (en["702.2"].title, en["702.2"].text, en["702.2a"].parent) == ("Deathtouch", "", "702.2")


def test_full_text_examples_notes_and_numbered_lists(full):
    v = full.versions[0]
    assert _node(v, "101.1").examples == [
        "あるカードが「あなたは土地を追加でプレイしてよい。」と書いているなら、そのターンにはそうできる。\n"
        "この例の続きの段落である。"
    ]
    assert _node(v, "100.2").notes == ["訳注：日本語版の大会規定は別に公開されている"]
    assert _node(v, "702.2b").notes == ["訳注：「致死ダメージ」の扱いは rule 702.2c を見よ"]
    # "7. パワーやタフネスを…" inside 613.1 is a list item, not the heading of section 7.
    assert _node(v, "613.1").text.split("\n")[1:] == [
        "1. コピー効果",
        "2. コントロールを変更する効果",
        "7. パワーやタフネスを変更する効果",
    ]
    assert _node(v, "7").title == "その他のルール" and _node(v, "701").parent == "7"


def test_full_text_glossary_credits_and_contents(full):
    v = full.versions[0]
    glossary = [(t.term, t.reading, t.english) for t in v.terms if t.source == "glossary"]
    assert glossary == [
        ("アーティファクト", "あーてぃふぁくと", "Artifact"),
        ("接死", "せっし", "Deathtouch"),
        ("無色", "むしょく", "Colorless"),
        ("守る、守る者", "まもる、まもるもの", "Protect/Protector"),
        ("ヴァンガード", "ヴぁんがーど", "Vanguard(1)"),
    ]
    last = next(t for t in v.terms if t.term == "ヴァンガード")
    assert last.definition == "ヴァンガード戦でのみ用いるカード・タイプ。rule 902〔ヴァンガード戦〕参照。"  # no credits
    assert v.meta["credits"] == [
        "マジック：ザ・ギャザリング\u3000オリジナル・ゲームデザイン: Richard Garfield",
        "翻訳：日本マジックジャッジルール文書翻訳チーム",
    ]
    contents = v.meta["contents"]
    assert len(contents) == 20 and contents[0] == ("0", "はじめに") and contents[-1] == ("10", "用語集")
    assert not {n.rule for n in v.nodes} & {"0", "10"}  # はじめに and 用語集 are not rule headings
    assert v.meta["introduction"].startswith("この文書は、ゲームのルールを定める最も上位の文書である。")


@pytest.mark.parametrize(
    "cut",
    [
        pytest.param(lambda lines: lines[:-1], id="no effective-date line"),
        pytest.param(lambda lines: lines[: lines.index("用語集")], id="ends before the glossary"),
        pytest.param(lambda lines: lines[lines.index("マジック：ザ・ギャザリング\u3000総合ルール") :], id="no もくじ"),
        pytest.param(
            lambda lines: lines[: lines.index("905. コンスピラシー・ドラフト")] + lines[lines.index("用語集") :],
            id="a listed rule missing",
        ),
        pytest.param(
            lambda lines: lines[: lines.index("用語集") + 1] + lines[lines.index("クレジット") :],
            id="glossary without terms",
        ),
    ],
)
def test_an_incomplete_full_text_is_partial(cut):
    lines = FULL.read_text(encoding="utf-8").rstrip("\n").split("\n")
    result = parse_text("\n".join(cut(lines)) + "\n", Hints(format="cr-ja", path="piece.txt"))
    (v,) = result.versions
    assert v.label == "20260116.0" and v.partial is True


def test_full_text_with_bom_and_crlf_reads_the_same(full, tmp_path):
    path = tmp_path / "full_crlf.txt"
    path.write_bytes(b"\xef\xbb\xbf" + FULL.read_text(encoding="utf-8").replace("\n", "\r\n").encode("utf-8"))
    result = parse_file(str(path))  # format detected from the content
    assert result.format == "cr-ja" and not result.errors and _unlisted_721_only(result)
    assert _shape(result) == _shape(full)


def test_full_text_with_u3000_paragraph_marks_on_every_line_reads_the_same(full):
    lines = FULL.read_text(encoding="utf-8").split("\n")
    marked = "\n".join("\u3000" + s if s and not s.startswith("\u3000") else s for s in lines)
    assert marked.count("\n\u3000100.1. ") == 1
    result = parse_text(marked, Hints(format="cr-ja", path=str(FULL)))
    assert _unlisted_721_only(result)
    assert _shape(result) == _shape(full)


def test_real_head_and_tail_around_a_written_middle_read_as_one_text(head, tail):
    """The real pieces' shapes in the whole-text flow: rules, then 用語集, credits and the date."""
    lines = FULL.read_text(encoding="utf-8").split("\n")
    body = len(lines) - lines[::-1].index("5. ターンの構造") - 1  # the heading, not its もくじ entry
    middle = lines[body : lines.index("用語集")]
    # The tail starts inside a definition: give it the entry it belongs to.
    glossary = ["用語集", "能力の発生源（のうりょくのはっせいげん）／Source of an Ability", "能力を生み"]
    pieces = [HEAD.read_text(encoding="utf-8").rstrip("\n"), *middle, *glossary, TAIL.read_text(encoding="utf-8")]
    stitched = parse_text("\n".join(pieces), Hints(format="cr-ja", path="stitched.txt"))
    assert not stitched.errors and _unlisted_721_only(stitched)
    (v,) = stitched.versions
    clauses = [n.rule for n in v.nodes if "." in n.rule]
    head_clauses = [n.rule for n in head.versions[0].nodes if "." in n.rule]
    middle_clauses = [m.group(1) for s in middle if (m := re.match(r"(\d{3}\.\d+[a-z]*)\.? ", s))]
    assert clauses == head_clauses + middle_clauses and len(clauses) == 51 + 32
    glossary_terms = [t for t in v.terms if t.source == "glossary"]
    assert (
        len(glossary_terms) == 1 + 79
        and glossary_terms[0].definition == "能力を生み\n出した能力の発生源のこと。rule 106.3 参照。"
    )
    assert v.meta["credits"] == tail.versions[0].meta["credits"]
    assert (v.label, v.effective) == ("20260116.0", date(2026, 1, 16))
    # Partial only because もくじ lists rules the middle leaves out (104, 105, …).
    assert v.partial is True
    present = {n.rule for n in v.nodes}
    contents = [s for s in pieces[0].split("\n")]
    start, end = contents.index("もくじ"), contents.index("マジック：ザ・ギャザリング\u3000総合ルール")
    kept = [s for s in contents[start + 1 : end] if s.split(".")[0] in present | {"0", "10"}]
    pieces[0] = "\n".join(contents[: start + 1] + kept + contents[end:])
    assert parse_text("\n".join(pieces), Hints(format="cr-ja", path="stitched.txt")).versions[0].partial is False


def test_a_heading_titled_a_little_differently_from_its_contents_entry_is_still_a_heading(full):
    text = FULL.read_text(encoding="utf-8").replace("\n9. カジュアル変種ルール\n", "\n9. カジュアル変種\n", 1)
    result = parse_text(text, Hints(format="cr-ja", path=str(FULL)))
    (v,) = result.versions
    assert dict(v.meta["contents"])["9"] == "カジュアル変種"
    assert _node(v, "9").title == "カジュアル変種ルール" and _node(v, "900").parent == "9"
    assert _shape(result)[2:] == _shape(full)[2:-1] + (v.meta["contents"],)


def test_a_rule_line_shaped_like_a_glossary_entry_does_not_open_the_glossary(full):
    text = FULL.read_text(encoding="utf-8").replace(
        "変更する。\n", "変更する。\n《稲妻（いなずま）／Lightning Bolt》のような呪文は、これを持たない。\n", 1
    )
    assert text.count("Lightning Bolt") == 1 and text.index("Lightning Bolt") > text.index("702.19a")
    v = parse_text(text, Hints(format="cr-ja", path=str(FULL))).versions[0]
    assert _node(v, "702.19a").text.endswith(
        "変更する。\n《稲妻（いなずま）／Lightning Bolt》のような呪文は、これを持たない。"
    )
    assert [n.rule for n in v.nodes] == [n.rule for n in full.versions[0].nodes] and v.partial is False


def test_clause_ids_run_into_the_text_or_without_their_period_read_the_same(full):
    text = FULL.read_text(encoding="utf-8")
    squeezed = re.sub(r"^(\d{3}\.\d+(?:\.|[a-z]+)) (?=[^\x00-\x7f])", r"\1", text, flags=re.M)
    assert "\n509.1.まず、" in squeezed and "\n702.2a接死は" in squeezed
    assert _shape(parse_text(squeezed, Hints(format="cr-ja", path=str(FULL)))) == _shape(full)
    no_period = re.sub(r"^(\d{3}\.\d+)\. ", r"\1 ", text, flags=re.M)
    assert "\n509.1 まず、" in no_period
    assert _shape(parse_text(no_period, Hints(format="cr-ja", path=str(FULL)))) == _shape(full)


def test_a_marked_definition_shaped_like_an_entry_stays_a_definition(full):
    text = FULL.read_text(encoding="utf-8").replace(
        "\n無色（むしょく）／Colorless\n",
        "\n\u3000接死（せっし）／Deathtouch も参照。\n無色（むしょく）／Colorless\n",
        1,
    )
    v = parse_text(text, Hints(format="cr-ja", path=str(FULL))).versions[0]
    glossary = [t.term for t in v.terms if t.source == "glossary"]
    assert glossary == ["アーティファクト", "接死", "無色", "守る、守る者", "ヴァンガード"]
    assert next(t for t in v.terms if t.term == "接死").definition.endswith(
        "参照。\n接死（せっし）／Deathtouch も参照。"
    )


# -- the real, whole 和訳 20260116.0 ---------------------------------------------------------------
REAL = CR_JA_FULL


@pytest.fixture(scope="module")
def real():
    return _parse(REAL)


def _body_ids(text: str) -> set[str]:
    """Independent count: distinct ids that open a line (after any U+3000), no parser state involved."""
    return {m.group(1) for m in re.finditer(r"^[\u3000 ]*(\d{3}\.\d{1,3}[a-z]{0,2})(?![0-9])", text, re.M)}


def test_the_real_full_text_reads_whole_with_every_clause_id(real):
    assert not real.errors
    (v,) = real.versions
    assert (v.label, v.effective, v.partial) == ("20260116.0", date(2026, 1, 16), False)
    clauses = [n.rule for n in v.nodes if "." in n.rule]
    expected = _body_ids(REAL.read_text(encoding="utf-8"))
    assert len(expected) == 3114
    assert len(clauses) == len(set(clauses)) == 3114 and set(clauses) == expected
    assert clauses == sorted(clauses, key=ruleid.sort_key)


def test_the_real_texts_faults_are_read_by_general_rules_with_warnings(real):
    v = real.versions[0]
    warned = {d.line: d.message for d in real.warnings}
    # An id alone on its line: its text is the next line.
    assert _node(v, "500.10a").text.startswith("追加のフェイズやステップを「あなたが得る/ Y ou get」")
    assert "500.10a stands alone" in warned[1175]
    # An id run into its text.
    assert _node(v, "708.12").text.startswith("裏向きのパーマネントを公開するように指示する呪文や能力が")
    assert "708.12 runs into its text" in warned[3019]
    # The duplicated 505.4 line is dropped, not glued onto the first one's text.
    assert _node(v, "505.4").text.count("次に、アクティブ・プレイヤーが") == 1
    assert "1つ以上の章能力を持つ英雄譚" in _node(v, "505.4").text
    assert "505.4 repeated" in warned[1201]
    # "720 . 前兆カード" is the heading of rule 720; 721 is a heading though もくじ omits it.
    assert _node(v, "720").title == "前兆カード" and _node(v, "720.1").parent == "720"
    assert _node(v, "721").title == "配備カード" and "721" not in dict(v.meta["contents"])
    assert _node(v, "721.2a").text.startswith('"{N+}[能力]" は、')
    assert "not listed in もくじ" in warned[3220]
    assert len(real.warnings) == 5


def test_every_keyword_of_the_real_text_is_a_japanese_english_term(real):
    v = real.versions[0]
    pairs = {(t.term, t.english, t.rule) for t in v.terms}
    assert ("護法", "Ward", "702.21") in pairs and ("果敢", "Prowess", "702.108") in pairs
    assert ("ミラディンのために！", "For Mirrodin!", "702.163") in pairs
    keywords = [n for n in v.nodes if re.fullmatch(r"70[12]\.(?:[2-9]|\d{2,3})", n.rule)]
    assert len(keywords) == 255
    named = {t.rule for t in v.terms if t.source == "heading"}
    assert all(n.rule in named and "／" in n.title and not n.text for n in keywords)
    glossary = [t for t in v.terms if t.source == "glossary"]
    entries = [
        s
        for s in REAL.read_text(encoding="utf-8").split("\n")[3718:5175]
        if re.match(r"^[^\u3000\s].*（[^（）]+）[／/]", s)
    ]
    assert len(glossary) == len(entries) == 727 and all(t.english and t.definition for t in glossary)
    assert sum(1 for t in v.terms if t.source == "inline") > 1000
