"""The cr-ja ingestor on the real 和訳 20260116.0 pieces and on small fixtures."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from ingest import cr_ja, parse_file, parse_text
from ingest.common import Hints

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpora" / "cr-ja"
HEAD = CORPUS / "JP_CR_20260116.0_lines_offset0-8167.txt"
TAIL = CORPUS / "JP_CR_20260116.0_lines_offset500000-509905.txt"
FIXTURES = Path(__file__).parent / "fixtures" / "cr_ja"


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


def test_sniff_tells_the_pieces_apart_from_other_texts():
    assert cr_ja.sniff(HEAD.read_text(encoding="utf-8"), "") >= 0.7
    assert cr_ja.sniff(TAIL.read_text(encoding="utf-8"), "") >= 0.7
    dm = next((SHARED / "corpora" / "dm-rules").glob("*.md")).read_text(encoding="utf-8")
    assert cr_ja.sniff(dm, "") == 0.0
    en = (SHARED / "corpora" / "cr-en" / "MagicCompRules_2015-01-23.txt").read_bytes().decode("utf-8", "replace")
    assert cr_ja.sniff(en, "") == 0.0


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
