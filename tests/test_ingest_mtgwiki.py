"""The MTG Wiki ingestor on seed 002 (rendered text) and a hand-written MediaWiki HTML page."""

from datetime import date
from pathlib import Path

import pytest

import ingest
from ingest import mtgwiki
from ingest.common import Hints
from tests import helpers
from tests.helpers import CORPUS

SEED = CORPUS / "002_52ff311794a719e8.txt"
PAGE = helpers.FIXTURES / "mtgwiki" / "blocking_requirement.html"


def parse(path: Path, **hints):
    return ingest.parse_file(str(path), Hints(format="mtgwiki", **hints))


@pytest.fixture(scope="module")
def seed():
    return parse(SEED)


def test_seed_article(seed):
    assert (seed.format, seed.kind) == ("mtgwiki", "article")
    assert not seed.errors
    (article,) = seed.articles
    assert (article.title, article.game, article.lang) == ("ブロック強制", "mtg", "ja")
    assert [s.title for s in article.sections] == ["ルール", "関連カード", "参考"]
    assert article.links == ["ブロック・クリーチャー指定ステップ", "ブロック制限", "挑発", "攻撃強制", "ルーリング"]
    assert article.cites == ["509.1", "509.1c"]
    assert article.cites_version == "20260807.0"
    # the quote is stored as rule nodes, not as article prose
    assert "引用" not in article.text and "509.1c" not in article.text
    assert article.text.startswith("ブロック強制（Blocking Requirement）は")


def test_seed_nested_bullets_stay_in_their_section(seed):
    rules = seed.articles[0].sections[0]
    bullets = [line for line in rules.text.split("\n") if line.startswith("・")]
    assert len(bullets) == 5
    assert bullets[1].startswith("・ただし、コストが課されていない")


def test_seed_card_block(seed):
    (card,) = seed.articles[0].extra["cards"]
    assert (card["name"], card["name_ja"], card["cost"]) == ("Lure", "寄せ餌", "(１)(緑)(緑)")
    assert card["type"] == "エンチャント — オーラ(Aura)"
    assert card["text"].split("\n")[0] == "エンチャント（クリーチャー）"
    assert card["line"] == 5


def test_seed_terms_and_history(seed):
    extra = seed.articles[0].extra
    pairs = {(t["term"], t["english"]) for t in extra["terms"]}
    assert {
        ("ブロック強制", "Blocking Requirement"),
        ("いななくアーモドン", "Trumpeting Armodon"),
        ("寄せ餌", "Lure"),
        ("突っ走る猪", "Crashing Boars"),
    } <= pairs
    assert all(t["source"] == "article" for t in extra["terms"])
    assert [(h["date"], h["section"]) for h in extra["history"]] == [("2011-02", "ルール"), ("2017-09", "ルール")]
    assert "2011年2月の総合ルール更新" in extra["history"][0]["text"]


def test_seed_quote_is_a_partial_version(seed):
    (version,) = seed.versions
    assert (version.game, version.lang, version.label, version.partial) == ("mtg", "ja", "20260807.0", True)
    assert version.effective == date(2026, 8, 7)
    assert (version.meta["kind"], version.meta["article"]) == ("quote", "ブロック強制")
    nodes = {n.rule: n for n in version.nodes}
    assert list(nodes) == ["5", "509", "509.1", "509.1c"]
    assert nodes["5"].title == "ターンの構造"
    assert nodes["509"].title == "ブロック・クリーチャー指定ステップ"
    assert nodes["509.1c"].parent == "509.1" and nodes["509"].parent == "5"
    refs = [r.rule for r in nodes["509.1"].references]
    assert "733" in refs and "728" not in refs
    assert len(nodes["509.1c"].examples) == 1
    assert nodes["509.1c"].examples[0].startswith("プレイヤーが2体のクリーチャーをコントロール")
    assert nodes["509.1c"].text.endswith("可能ならブロックする。")


def test_html_page():
    result = parse(PAGE)
    assert not result.errors
    (article,) = result.articles
    assert article.title == "ブロック強制"
    assert [(s.title, s.level, s.anchor) for s in article.sections] == [
        ("ルール", 2, "ルール"),
        ("関連カード", 2, "関連カード"),
        ("参考", 2, "参考"),
    ]
    # edit links, the table of contents, categories and navigation are not content
    assert "編集" not in article.text and "目次" not in article.text and "メインページ" not in article.text
    # wiki links from the content: red links, external links and categories left out
    assert "ブロック・クリーチャー指定ステップ" in article.links and "寄せ餌" in article.links
    assert not any("カテゴリ" in link or "カード個別評価" in link or "メインページ" in link for link in article.links)
    assert article.cites == ["509.1", "509.1c"] and article.cites_version == "20260807.0"
    (card,) = article.extra["cards"]
    assert (card["name"], card["name_ja"], card["type"]) == ("Lure", "寄せ餌", "エンチャント — オーラ(Aura)")
    assert [h["date"] for h in article.extra["history"]] == ["2011-02", "2017-09"]
    assert ("誘いの匂い", "Alluring Scent") in {(t["term"], t["english"]) for t in article.extra["terms"]}
    (version,) = result.versions
    nodes = {n.rule: n for n in version.nodes}
    assert list(nodes) == ["5", "509", "509.1", "509.1c"]
    assert [r.rule for r in nodes["509.1"].references] == ["733"]
    assert nodes["509.1c"].examples[0].startswith("プレイヤーが2体")


def test_quote_then_ordinary_bullets():
    text = (
        "記事\n\n本文。\n\n引用：総合ルール 20240209.0\n\n• 7 追加ルール\n  • 702 キーワード能力\n"
        "    • 702.19b 本文b。\n• 関連項目の箇条書き\n"
    )
    result = mtgwiki.parse(text, Hints())
    assert [n.rule for n in result.versions[0].nodes] == ["7", "702", "702.19b"]
    assert "・関連項目の箇条書き" in result.articles[0].text


def test_term_with_reading():
    result = mtgwiki.parse("増殖\n\n増殖(ぞうしょく)/Proliferateは、キーワード処理の1つ。\n", Hints())
    (term,) = result.articles[0].extra["terms"]
    assert (term["term"], term["reading"], term["english"]) == ("増殖", "ぞうしょく", "Proliferate")


def test_html_paragraphs_split_at_br_and_drop_comments():
    html = (
        '<html><body><div class="mw-parser-output"><h1 id="firstHeading">記事</h1>'
        "<p>一行目。<br>二行目<!-- 編集メモ -->の続き。</p>"
        "<ul><li>項目<b>太字</b>。<ul><li>下位の項目。</li></ul></li></ul></div></body></html>"
    )
    article = mtgwiki.parse(html, Hints()).articles[0]
    assert article.text.split("\n") == ["一行目。", "二行目の続き。", "・項目太字。", "・下位の項目。"]


def test_a_quote_without_readable_clauses_makes_no_empty_version(tmp_path):
    import html

    lines = SEED.read_text(encoding="utf-8").splitlines()
    body = "\n".join(f"<p>{html.escape(ln)}</p>" for ln in lines)  # the quote flattened to paragraphs
    page = tmp_path / "flat.html"
    page.write_text(
        '<!DOCTYPE html><html lang="ja"><head><title>ブロック強制 - MTG Wiki</title></head><body>'
        f'<h1 id="firstHeading">ブロック強制</h1><div class="mw-parser-output">\n{body}\n</div></body></html>',
        encoding="utf-8",
    )
    result = parse(page)
    assert result.versions == []
    (article,) = result.articles
    assert article.title == "ブロック強制"
    assert article.cites_version == "20260807.0"


def test_lead_and_address_are_kept_for_the_reader(seed):
    (article,) = seed.articles
    lead = article.extra["lead"].split("\n")
    assert lead[0].startswith("ブロック強制（Blocking Requirement）は")  # the definition before the first heading
    assert lead[1] == "Lure / 寄せ餌 (１)(緑)(緑)"  # and the card box
    assert article.extra["url"] == "https://mtgwiki.com/wiki/%E3%83%96%E3%83%AD%E3%83%83%E3%82%AF%E5%BC%B7%E5%88%B6"
