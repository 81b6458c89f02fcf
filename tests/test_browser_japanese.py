"""The Japanese side in a real browser (Debian's Chromium through Playwright, against waitress), on
today's texts: stale references marked and previewed where meant, terms previewed from the glossary,
history dated by the English lineage, diffs by set name and side by side, rule pages in two columns,
Japanese error pages, the kana-folding contents filter (its script mirrored by web.toc.fold), and
/versions at phone width. Screenshots land in tests/artifacts/."""

from __future__ import annotations

import pytest

from tests.helpers import ARTIFACTS
from web.toc import fold

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def base_url(today_url):
    return today_url


@pytest.fixture
def open_page(browser):
    """Open pages in fresh contexts; no script error may occur."""
    contexts, errors = [], []

    def open_(url: str, *, width: int = 1280, height: int = 900):
        ctx = browser.new_context(viewport={"width": width, "height": height}, locale="ja-JP")
        contexts.append(ctx)
        pg = ctx.new_page()
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        pg.goto(url)
        return pg

    yield open_
    for ctx in contexts:
        ctx.close()
    assert errors == [], errors


def shot(pg, name: str) -> None:
    pg.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


def test_a_stale_reference_is_marked_and_previews_the_rule_meant(open_page, base_url):
    pg = open_page(base_url + "/mtg/ja/20260116.0/509.1")
    ref = pg.locator("article.clause a.ref.stale")
    assert ref.inner_text() == "rule 731〔不正な処理の扱い〕"  # as printed
    assert ref.get_attribute("href") == "/mtg/ja/20260116.0/732"
    assert pg.locator("article.clause .sic").first.inner_text() == "〔原文ママ。正しくは 732〕"
    ref.hover()
    tip = pg.locator(".preview[role=tooltip]")
    tip.wait_for(state="visible")
    assert tip.inner_text().startswith("732 不正な処理の扱い")  # not 731 行動の省略
    shot(pg, "ja-stale-reference")
    pg.goto(base_url + "/mtg/ja/20260116.0/references")
    assert pg.locator("table.stale-refs tbody tr").count() == int(pg.locator("main p b").first.inner_text())


def test_a_term_previews_its_definition_and_opens_its_entry(open_page, base_url):
    pg = open_page(base_url + "/mtg/ja/20260116.0/702.19b")
    term = pg.locator("article.clause .text a.term", has_text="致死ダメージ").first
    term.hover()
    tip = pg.locator(".preview[role=tooltip]")
    tip.wait_for(state="visible")
    assert tip.inner_text().startswith("致死ダメージ") and "用語集" in tip.inner_text()
    term.click()
    pg.wait_for_url("**/glossary/mtg/ja/*")
    assert pg.locator("h1").inner_text().startswith("致死ダメージ")
    assert pg.locator("main a.ref.rid").count() >= 1  # the clause that defines it


def test_history_of_a_japanese_clause_is_dated_by_the_english_lineage(open_page, base_url):
    pg = open_page(base_url + "/mtg/ja/5.5.0.0/300.3")
    assert pg.locator("article.clause .now").inner_text() == "英語版 20090708 で削除されました。"
    mark = pg.locator("section.history li.ev.translation")
    assert mark.count() == 1 and mark.locator(".when").inner_text() == "5.5.0.0"
    removed = pg.locator("section.history li.ev.removed .when").inner_text()
    assert removed == "20090708"
    pg.locator("section.history a", has_text="の履歴").click()
    pg.wait_for_url("**/history/mtg/en/300.3?version=20081001")
    shot(pg, "ja-history-english")


def test_diffs_step_from_update_to_update_and_read_side_by_side(open_page, base_url):
    pg = open_page(base_url + "/diff/mtg/en/20250725/20250919?view=side")
    assert "Edge of Eternities" in pg.locator("h1").inner_text() and "Spider-Man" in pg.locator("h1").inner_text()
    row = pg.locator(".sbs").first
    old, new = row.locator(".sbs-old").bounding_box(), row.locator(".sbs-new").bounding_box()
    assert new["x"] > old["x"] + old["width"] - 1  # two columns, old on the left
    shot(pg, "diff-side-by-side")
    link = pg.locator("ul.changes li .ids a.rid").first
    assert link.get_attribute("href").startswith(("/mtg/en/20250919/", "/mtg/en/20250725/"))  # each changed rule
    pg.keyboard.press("ArrowLeft")  # rel=prev: the update before
    pg.wait_for_url("**/diff/mtg/en/20250606/20250725?view=side")
    pg.locator("nav.updates a[rel=next]").click()
    pg.wait_for_url("**/diff/mtg/en/20250725/20250919?view=side")


@pytest.mark.parametrize("width", [1280, 390])
def test_a_japanese_rule_page_reads_beside_its_english(open_page, base_url, width):
    pg = open_page(base_url + "/mtg/ja/20260116.0/509", width=width, height=900)
    assert pg.locator("aside.other").count() == 0  # no column beside the page that only heads it
    sub = pg.locator('section.sub[id="509.1a"]')
    own, them = sub.locator(".own").bounding_box(), sub.locator(".them").bounding_box()
    assert "The defending player chooses" in sub.locator(".them").inner_text()
    if width > 720:
        assert them["x"] > own["x"] + own["width"] - 1 and abs(them["y"] - own["y"]) < 5  # beside
    else:
        assert them["y"] >= own["y"] + own["height"] - 1  # below, on a phone
    assert pg.evaluate("document.documentElement.scrollWidth") <= width
    shot(pg, f"ja-rule-page-{width}")


def test_error_pages_speak_japanese(open_page, base_url):
    for url, status, said in (
        ("/mtg/ja/19990101.0/509.1", 404, "版 19990101.0 は mtg/ja に収録されていません"),
        ("/mtg/ja/latest/509.x", 400, "条文番号 '509.x' の形が正しくありません"),
        ("/search?q=" + "ブ" * 201, 400, "検索語（q）が長すぎます（201 文字。200 文字まで）"),
        ("/nowhere", 404, "お探しのページは見つかりませんでした"),
    ):
        pg = open_page(base_url + url)
        assert pg.locator("h1").inner_text() == str(status)
        assert said in pg.locator("main").inner_text(), url
    status = pg.evaluate(  # from a page of the site: a form posted where only GET is served
        """async () => { const r = await fetch('/versions', {method: 'POST'}); return [r.status, await r.text()]; }"""
    )
    assert status[0] == 405 and "この URL では POST は使えません" in status[1]


FOLD_SAMPLES = [
    "ぶろっく",
    "ブロック・クリーチャー",
    "ﾌﾞﾛｯｸ",
    "５０９．１ｃ",
    "Declare Blockers",
    "ＡＢＣ　ｄｅｆ",
    "ばとる・ふぇいず",
    "ゔぁんがーど",
    "ヴァンガード",
    "マナ･コスト",
]


def test_the_contents_filter_folds_kana_width_and_middle_dots_as_the_server_does(open_page, base_url):
    pg = open_page(base_url + "/mtg/ja/20260116.0/")
    assert pg.evaluate("(xs) => xs.map(window.rulekbFold)", FOLD_SAMPLES) == [fold(s) for s in FOLD_SAMPLES]
    box = pg.locator("[data-toc-filter]")
    box.fill("ぶろっくくりーちゃー")  # ブロック・クリーチャー, typed in hiragana without the dot
    pg.locator("[data-toc-count]", has_text="件").wait_for()  # the filter ran (it says how many it kept)
    shown = pg.locator('ul.toc li[data-hit="1"]:not([hidden])')
    assert shown.count() >= 1
    assert any(r == "509" for r in shown.evaluate_all("els => els.map(e => e.dataset.rule)"))
    shot(pg, "ja-contents-filter")


def test_versions_reads_at_phone_width(open_page, base_url):
    pg = open_page(base_url + "/versions", width=390, height=844)
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    table = pg.locator("table.versions")
    assert table.evaluate("t => t.scrollWidth <= t.parentElement.clientWidth")  # nothing to scroll sideways
    cell = pg.locator('table.versions td.v-label:has(a[href="/mtg/en/20260116/"])')
    assert "Lorwyn Eclipsed" in cell.inner_text()  # the set the edition came with
    assert cell.evaluate("td => getComputedStyle(td).display") == "block"  # each row a block of labelled lines
    shot(pg, "versions-390")
