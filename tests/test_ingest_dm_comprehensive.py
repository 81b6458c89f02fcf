"""The dm-rules ingestor on the real 総合ゲームルール Ver.1.48 and on a small fixture."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from ingest import dm_comprehensive, parse_file, parse_text
from ingest.common import Hints
from kb import ruleid
from tests import helpers
from tests.helpers import DM_RULES

REAL = DM_RULES / "DM_SogoGameRule_Ver1.48_20251217_dm_rule.md"
FIXTURE = helpers.FIXTURES / "dm_comprehensive" / "small.md"


def _parse(path: Path):
    return parse_file(str(path), Hints(format="dm-rules", path=str(path)))


@pytest.fixture(scope="module")
def real():
    return _parse(REAL)


def _node(version, rule):
    return next(n for n in version.nodes if n.rule == rule)


def test_version_date_and_contents(real):
    assert not real.errors
    (v,) = real.versions
    assert (v.game, v.lang, v.label, v.effective, v.partial) == ("dm", "ja", "1.48", date(2025, 12, 17), False)
    contents = v.meta["contents"]
    assert contents[0] == ("0", "はじめに") and contents[-1] == ("819", "WD フィールド")
    assert ("818", "超魂X") in contents  # the title sits on the line after "818."
    # Independent count: contents lines between もくじ and the body's "0. はじめに".
    lines = REAL.read_text(encoding="utf-8").split("\n")
    start = next(i for i, s in enumerate(lines) if s.strip() == "もくじ")
    end = next(i for i, s in enumerate(lines) if s.strip() == "0. はじめに")
    entries = [s for s in lines[start + 1 : end] if re.match(r"\s*\d{1,3}\.", s)]
    assert len(contents) == len(entries) == 112


def test_clause_count_matches_a_raw_line_count(real):
    v = real.versions[0]
    clauses = [n.rule for n in v.nodes if ruleid.is_clause(n.rule)]
    raw = REAL.read_text(encoding="utf-8").split("\n")
    # Every line opening with an id "NNN.N", less the wrapped citation "603.2e）".
    starts = [s for s in raw if re.match(r"\s*\d{3}[.．]\d", s) and not re.match(r"\s*\d{3}[.．]\d+[a-z]?[)）]", s)]
    assert len(clauses) == len(starts) == 749
    keys = [ruleid.sort_key(r) for r in clauses]
    assert keys == sorted(keys) and len(set(clauses)) == len(clauses)
    assert all(ruleid.parse(n.rule) is not None for n in v.nodes)
    headings = [n for n in v.nodes if not ruleid.is_clause(n.rule)]
    assert len(headings) == 113 and all(n.title for n in headings)
    assert [n.rule for n in headings if len(n.rule) == 1] == [str(i) for i in range(9)]


def test_clause_texts_join_pdf_line_breaks(real):
    v = real.versions[0]
    assert _node(v, "000.1").parent == "000" and _node(v, "000").parent == "0"
    assert (
        _node(v, "100.2").text
        == "通常、殿堂レギュレーションというルールに従ってデッキを構築します。デッキはちょうど 40 枚でなければならず、多くても少なくてもいけません。"
    )
    assert _node(v, "100.5").text.startswith("ゲーム開始時にバトルゾーンに存在出来るカードは1 セットのみです。\n")
    assert (
        _node(v, "101.1").text
        == "カードの効果はルールに勝つ\nカードの文章がルールに直接矛盾しているときは、カードの記述が優先されます。（カードはその特定の状況に適用されるルールだけを無視します。）"
    )
    assert _node(v, "111.1").text == "いずれかの処理が行われるとき、常にターン・プレイヤー側の処理を優先して行います。"
    # A blank line left by a page break inside a paragraph does not split it.
    assert (
        _node(v, "805.1a").text
        == "多くのサイキック・クリーチャーは、特定の条件が満たされた時点でそのクリーチャーを「裏返す」覚醒能力を持ちます。"
    )
    assert _node(v, "603.2c").text.startswith("「になる」という語を用いている誘発イベントは")
    assert _node(v, "818").title == "超魂X"


def test_a_keyword_actions_numbered_name_line_is_its_heading(real):
    # "701.22. 龍解する" over "701.22a 龍解するとは、…": a title, as Magic's 701.21 生け贄に捧げる／Sacrifice is
    (v,) = real.versions
    heading, defining = _node(v, "701.22"), _node(v, "701.22a")
    assert (heading.title, heading.text) == ("龍解する", "") and defining.text.startswith("龍解するとは")
    assert _node(v, "701.30").title == "ＧＲ召喚する" and _node(v, "701.2").title == "タップとアンタップ"
    titled = [n.rule for n in v.nodes if n.title and "." in n.rule]
    assert len(titled) == 32 and all(r.startswith("701.") for r in titled)  # every other clause keeps its words
    assert _node(v, "701.1").text and not _node(v, "701.1").title  # a sentence, with no lettered clauses


def test_examples_and_card_names_broken_at_a_space(real):
    v = real.versions[0]
    assert _node(v, "109.2c").examples == [
        "リンクしているゴッドに何らかの能力を付与した場合、リンクしている全てのゴッドに能力が適用されます。",
        "《白皇世の意志 御嶺》に付いた《無修羅デジルムカデ》を、カードを選ぶ効果で除去する時、《無修羅デジルムカデ》を指定し、除去することができます。",
    ]
    assert "その《蒼き王道 ドギラゴン超》が持つハイパー化" in _node(v, "816.2d").examples[0]
    assert sum(len(n.examples) for n in v.nodes) == len(
        re.findall(r"^\s*例\s*[：:]", REAL.read_text(encoding="utf-8"), re.M)
    )


def test_real_numbering_slips_are_repaired_with_warnings(real):
    v = real.versions[0]
    ids = {n.rule for n in v.nodes}
    # "311.2." printed under rule 312, "505.2a" under 506.2, "200.3C", "701.23 b"; DM uses letter l.
    assert {"312.2", "506.2a", "200.3c", "701.23b", "703.4l"} <= ids
    assert _node(v, "312.2").text == "Artifact は実行したら、バトルゾーンに出ます。"
    assert len([n for n in v.nodes if n.rule == "311.2"]) == 1
    messages = [d.message for d in real.warnings]
    assert "clause numbered 311.2 under rule 312; read as 312.2" in messages
    assert "clause id written '701.23 b'; read as 701.23b" in messages
    # "（参考\n603.2e）" is a wrapped citation: text of 506.3b, not a clause.
    assert _node(v, "506.3b").text.endswith("（参考603.2e）")
    assert _node(v, "603.2e").line > _node(v, "603.2d").line > _node(v, "506.3b").line


def test_ruleid_accepts_the_dm_introduction_ids():
    assert ruleid.parse("000.1") == (0, 0, 1, "")
    assert ruleid.parent("000.1a") == "000.1" and ruleid.parent("000.1") == "000" and ruleid.parent("000") == "0"
    assert ruleid.sort_key("0") < ruleid.sort_key("000") < ruleid.sort_key("000.1") < ruleid.sort_key("1")
    assert ruleid.parent("509.1c") == "509.1" and ruleid.parse("001") is None


# --- the fixture: one parsing rule per assertion -----------------------------------------


@pytest.fixture(scope="module")
def small():
    return _parse(FIXTURE)


def test_fixture_header_spacing_and_contents(small):
    v = small.versions[0]
    assert (v.label, v.effective) == ("2.05", date(2024, 3, 8))
    assert v.meta["contents"][-1] == ("818", "超魂X")
    assert [n.rule for n in v.nodes] == [
        "0",
        "000",
        "000.1",
        "1",
        "100",
        "100.1",
        "100.2",
        "100.2a",
        "101",
        "101.1",
        "101.2",
        "101.2a",
        "101.2b",
        "818",
        "818.1",
    ]


def test_fixture_wrapped_lines_page_number_and_cited_id(small):
    v = small.versions[0]
    assert (
        _node(v, "000.1").text
        == "この文書はルールの細則をまとめたものです。すべてのプレイヤーが熟知する必要はありません。"
    )
    # "- 3 -" and the running page header are dropped; "100.1 の例外" opening a wrapped line is a citation; a blank line inside is ignored.
    assert (
        _node(v, "100.2a").text
        == "デッキには同名のカードは4枚までしか入れることができません。これは、100.1 の例外ではありません。"
    )
    assert [r.rule for r in _node(v, "100.2a").references] == ["100.1"]
    assert _node(v, "100.2").text == "デッキはちょうど 40 枚でなければならず、多くても少なくてもいけません。"


def test_fixture_title_line_example_and_renumbering(small):
    v = small.versions[0]
    n = _node(v, "101.1")
    assert (
        n.text
        == "カードの効果はルールに勝つ\nカードの文章がルールに直接矛盾しているときは、カードの記述が優先されます。"
    )
    assert n.examples == [
        "《蒼き王道 ドギラゴン超》のハイパーモードが解放されている間、その《蒼き王道 ドギラゴン超》が持つハイパー化は起動できません。"
    ]
    assert _node(v, "101.2").text == "誤って番号が振られた項目です。"
    assert [(d.line, d.message) for d in small.warnings] == [
        (37, "clause numbered 100.2 under rule 101; read as 101.2"),
        (39, "clause id written '101.2 b'; read as 101.2b"),
    ]
    assert not small.errors


def test_missing_version_is_an_error():
    result = parse_text(
        "デュエル・マスターズ総合ゲームルール\nもくじ\n1. 基本\n1. 基本\n100. 必要なもの\n100.1. 二人用です。\n",
        Hints(format="dm-rules", path="dm.txt"),
    )
    assert [str(e) for e in result.errors] == [
        "dm.txt: error: no 'Ver.N.NN' line: cannot tell the version; give --version"
    ]
    assert [n.rule for n in result.versions[0].nodes] == ["1", "100", "100.1"]


# --- another edition's page furniture (Ver.1.47 style): nothing tied to 1.48's layout ----

FURNITURE = helpers.FIXTURES / "dm_comprehensive" / "furniture_ver147.txt"


@pytest.fixture(scope="module")
def furnished():
    return _parse(FURNITURE)


def test_other_edition_header_and_contents_across_a_page_break(furnished):
    assert not furnished.errors and not furnished.warnings
    (v,) = furnished.versions
    # "Ver. 1.47" on its own line, "2025年9月26日 更新" (date before the word), 目次 not もくじ
    assert (v.label, v.effective, v.partial) == ("1.47", date(2025, 9, 26), False)
    # The list runs over a page ("－ 1 －", a running header, a copyright footer, a form feed);
    # leader dots and page numbers are not part of the titles.
    assert v.meta["contents"] == [
        ("0", "はじめに"),
        ("1", "ゲームの基本"),
        ("100", "ゲームに必要なもの"),
        ("101", "デュエル・マスターズの絶対法則"),
        ("2", "カードの見方"),
        ("200", "総則"),
    ]


def test_other_edition_furniture_never_reaches_the_rules(furnished):
    v = furnished.versions[0]
    assert [n.rule for n in v.nodes] == [
        "0",
        "000",
        "000.1",
        "1",
        "100",
        "100.1",
        "100.2",
        "100.2a",
        "101",
        "101.1",
        "2",
        "200",
        "200.1",
    ]
    # "Page 2", a title-only running header, the footer and a form feed fall inside this paragraph.
    assert (
        _node(v, "100.2a").text
        == "同じ名前のカードはデッキに4枚まで入れることができます。ただし、いくつかの例外があります。"
    )
    # No trailing blanks in this extraction: wraps are told by width and punctuation alone.
    assert (
        _node(v, "100.2").text
        == "デッキはちょうど40枚でなければならず、それより多くても少なくても構築の条件を満たしません。"
    )
    assert _node(v, "101.1").text == (
        "カードの効果はルールに勝つ\nカードの文章がルールに直接矛盾しているときは、カードの記述が優先されます。"
    )
    assert _node(v, "101.1").examples == [
        "《ボルシャック・ドラゴン》の効果がルールと食い違う場合は、カードに書かれた通りに処理します。"
    ]
    # A sentence that names the document is rule text, not a running header.
    assert _node(v, "000.1").text.endswith("\nデュエル・マスターズ総合ゲームルールは随時更新されます。")
    assert _node(v, "200.1").text == "カードの各部分の名前と意味を説明します。rule 100.2 も参照してください。"
    everything = "\n".join(n.title + n.text + "".join(n.examples) for n in v.nodes)
    assert not re.search(r"TAKARA|Page|ページ|－|Ver\.", everything)


def test_page_furniture_forms():
    lines = [
        "- 12 -",
        "－12－",
        "12 / 80",
        "P.12",
        "Page 12",
        "12ページ",
        "(12)",
        "12",
        "デュエル・マスターズ総合ゲームルール Ver.1.47",
        "DUEL MASTERS デュエル・マスターズ 総合ゲームルール",
        "Ver.1.47 デュエル・マスターズ総合ゲームルール 12",
    ]
    assert dm_comprehensive._furniture(lines, 0) == set(range(len(lines)))
    text = [
        "100.1. 本文です。",
        "12枚のカード",
        "デュエル・マスターズ総合ゲームルールに従います。",
        "400. 総則",
        "500. 総則",
        "600. 総則",
        "ます。",
        "ます。",
        "ます。",
    ]
    assert dm_comprehensive._furniture(text, 0) == set()
