"""The PukiWiki (Duel Masters wiki) ingestor on seed 001 and hand-written pages."""

from pathlib import Path

import pytest

import ingest
from ingest import pukiwiki
from ingest.common import Hints
from tests import helpers
from tests.helpers import CORPUS

SEED = CORPUS / "001_7d107e230c311bb9.txt"
FIXTURES = helpers.FIXTURES / "pukiwiki"


def parse(path: Path, **hints):
    result = ingest.parse_file(str(path), Hints(format="pukiwiki", **hints))
    assert (result.format, result.kind, result.versions) == ("pukiwiki", "article", [])
    assert not result.errors
    (article,) = result.articles
    return article


@pytest.fixture(scope="module")
def seed():
    return parse(SEED)


def test_seed_page(seed):
    assert (seed.title, seed.game, seed.lang, seed.revision) == (
        "ブロッククリーチャー指定ステップ",
        "dm",
        "ja",
        "2021-09-11",
    )
    assert seed.extra["revised_at"] == "2021-09-11T09:37:49+09:00"
    assert [(s.title, s.level, s.anchor) for s in seed.sections] == [
        ("処理の流れ", 2, "r9fa665b"),
        ("参考", 2, "i8c02832"),
    ]
    assert seed.cites == [] and seed.cites_version == ""


def test_seed_links(seed):
    assert seed.links[:3] == ["ターン終了ステップ", "追加ターン", "ターン開始ステップ"]
    assert {"攻撃クリーチャー指定ステップ", "ステップ", "攻撃ステップ", "攻撃", "ブロッカー"} <= set(seed.links)
    assert len(seed.links) == len(set(seed.links))
    # links only found in the commented-out old text are not links of the page
    assert "ニンジャ・ストライク" not in seed.links and "継続的効果" not in seed.links
    assert "[[" not in seed.text and "]]" not in seed.text


def test_seed_old_text_is_kept_apart(seed):
    (old,) = seed.extra["old_text"]
    assert old["line"] == 26
    assert old["text"].startswith("1. まず、非ターン・プレイヤー、すなわち攻撃を受けるクリーチャーは")
    assert "[[" not in old["text"] and "//" not in old["text"]
    assert old["note"] == "2021年9月7日ルール変更にともない記述を変更"
    assert old["date"] == "2021-09-07"
    assert "すなわち攻撃を受けるクリーチャー" not in seed.text
    assert "ニンジャ・ストライク" not in seed.text and "ルール変更にともない" not in seed.text


def test_seed_lists_and_continuations(seed):
    flow = seed.sections[0].text.split("\n")
    numbered = [line for line in flow if line[:2] in ("1.", "2.", "3.", "4.")]
    assert [line[:2] for line in numbered] == ["1.", "2.", "3.", "4."]
    assert numbered[0].startswith("1. ステップの開始時、非ターン・プレイヤー（攻撃を受ける側のプレイヤー）は")
    # a plain line under item 2 continues it; nested bullets are indented
    i = flow.index(numbered[1])
    assert flow[i + 1] == "  相手クリーチャーの攻撃先は、最後に適用された能力が指定する攻撃先になる。"
    assert flow[i + 2].startswith("  ・攻撃先変更能力によって")
    assert seed.sections[1].text == "・ステップ\n・攻撃ステップ\n・攻撃"


def test_seed_table_and_footnotes(seed):
    notes = seed.extra["footnotes"]
    assert [n["n"] for n in notes] == [1, 2, 3]
    assert notes[0] == {"n": 1, "text": "ただし、追加ターンを得ていた場合はこの限りではない。", "line": 5}
    assert "((" not in seed.text and "ドローステップ*2" in seed.text
    (table,) = seed.extra["tables"]
    assert len(table) == 12  # the format row (…|c) is not content
    assert table[0] == ["（相手のターン終了ステップ*1）"]
    assert table[7] == ["ブロッククリーチャー指定ステップ"]
    assert table[8] == ["バトルステップ", "ダイレクトアタックステップ (ダイレクトアタック/シールドブレイク)"]
    assert "BGCOLOR" not in seed.text and "''" not in seed.text


def test_markup_fixture():
    page = parse(FIXTURES / "markup.txt")
    assert (page.title, page.revision) == ("《ボルシャック・ドラゴン》", "2024-03-02")
    assert [(s.title, s.level) for s in page.sections] == [("能力", 2), ("裁定", 3), ("参考", 2)]
    assert page.extra["tables"] == [[["項目", "内容"], ["コスト", "6 (火)"], ["進化クリーチャー"]]]
    ability = page.sections[0].text
    assert (
        ability
        == "W・ブレイカーを持つ*1。\n詳しくは攻撃、ブロッカー、公式サイトを参照。\nW・ブレイカー: シールドを2枚ブレイクする。"
    )
    assert page.links == [
        "進化",
        "ダブル・ブレイカー",
        "総合ゲームルール",
        "攻撃 (ルール)",
        "ブロッカー",
        "シールド",
        "ブレイク",
        "ドラゴン",
        "ボルシャック",
    ]
    assert page.extra["footnotes"][0]["text"] == "総合ゲームルール Ver.1.48 506.1 参照"
    assert page.cites == ["506.1"] and page.cites_version == "1.48"
    rulings = page.sections[1].text.split("\n")
    assert rulings[:3] == [
        "・攻撃時、墓地の火のカードの数だけパワーが増える。",
        "  ・総合ゲームルール 506.1により、この能力は攻撃中のみ有効。",
        "    ・古い裁定は撤回された。",
    ]
    assert rulings[3:] == ["1. 一つ目", "2. 二つ目", "  1. 二つ目の中", "3. 三つ目"]
    first, second = page.extra["old_text"]
    assert first == {"line": 24, "text": "・旧裁定：墓地の枚数は攻撃開始時に数える。\n  ・この記述は誤り。", "note": ""}
    assert (second["text"], second["date"]) == ("・バトル中も有効。", "2019-03")
    assert "旧裁定" not in page.text and "バトル" not in page.links


def test_title_from_hex_file_name():
    page = parse(FIXTURES / "E38396E383ADE38383E382ABE383BC.txt")
    assert page.title == "ブロッカー"
    assert [s.title for s in page.sections] == ["概要"]
    assert [(t["term"], t["english"]) for t in page.extra["terms"]] == [("ブロッカー", "Blocker")]


def test_title_hint_path_without_heading():
    result = pukiwiki.parse("-[[ブロック]]\n", Hints(path="wiki/ブロック制限.txt"))
    assert result.articles[0].title == "ブロック制限"


def test_a_rendered_html_page_is_refused_not_read_as_markup(tmp_path):
    page = tmp_path / "page.html"
    page.write_text(
        '<!DOCTYPE html><html lang="ja"><head><meta name="generator" content="PukiWiki"></head>'
        "<body><h2>ブロッククリーチャー指定ステップ</h2><ul><li>総合ゲームルール 506.1</li></ul></body></html>",
        encoding="utf-8",
    )
    result = ingest.parse_file(str(page), Hints(format="pukiwiki"))
    assert result.articles == []
    assert [(d.line, d.level) for d in result.diagnostics] == [(1, "error")]
    assert "not PukiWiki source" in result.diagnostics[0].message
