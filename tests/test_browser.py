"""The web app in a real browser: Debian's headless Chromium through Playwright, against waitress."""

from __future__ import annotations

import pytest

from tests.helpers import ARTIFACTS, CR_EN, home_with, served

pytestmark = pytest.mark.browser

EN_2023 = CR_EN / "MagicCompRules_2023-11-17.txt"


@pytest.fixture(scope="module")
def base_url(built_home, tmp_path_factory):
    """The bundled corpus plus the English 2023-11-17 edition, served on a free loopback port."""
    with served(home_with(built_home, tmp_path_factory.mktemp("browser") / "home", EN_2023)) as url:
        yield url


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 900}, locale="ja-JP")
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield pg
    context.close()
    assert errors == [], errors  # no script errors, no CSP violations


def test_search_shows_highlighted_snippets(page, base_url):
    page.goto(base_url + "/")
    page.fill("main input[name=q]", "ブロッククリーチャー")
    page.press("main input[name=q]", "Enter")
    page.wait_for_url("**/search?*")
    results = page.locator("ol.results li")
    assert results.count() >= 5
    marks = page.locator('ol.results .snippet[lang="ja"] mark')  # Japanese snippets say so, for the fonts
    assert marks.first.is_visible()
    assert any(t.startswith("ブロック") for t in marks.all_inner_texts())
    page.screenshot(path=str(ARTIFACTS / "search.png"), full_page=True)


def test_clause_reference_and_other_language(page, base_url):
    page.goto(base_url + "/")
    page.fill("main input[name=q]", "509.1")
    page.press("main input[name=q]", "Enter")
    page.wait_for_url("**/mtg/ja/20260807.0/509.1")  # the newest text of 509.1 (quoted by the wiki)
    assert page.locator("article.clause a.ref").count() == 0  # it cites 733, which no ingested text holds
    page.click("section.versions-of a:text-is('20231117.0')")
    page.wait_for_url("**/mtg/ja/20231117.0/509.1")
    assert page.locator("article.clause h1").inner_text().startswith("509.1")
    # 509.1 shows its sub-clauses: each, and the clause itself, beside its English
    assert (
        "防御プレイヤーはブロック・クリーチャーを指定する"
        in page.locator("article.clause .lead .own .text").inner_text()
    )
    other = page.locator('article.clause .lead .them[lang="en"]')
    assert "the defending player declares blockers" in other.inner_text()
    assert page.locator("section.history .timeline li").count() >= 2
    page.screenshot(path=str(ARTIFACTS / "clause.png"), full_page=True)
    ref = page.locator("article.clause .lead .own .text a.ref")
    assert ref.inner_text() == "rule 728〔不正な処理の扱い〕"
    ref.click()  # no Japanese 728 is ingested: the link leads to the edition 20231117.0 translates
    page.wait_for_url("**/mtg/en/20231117/728")
    assert page.locator("article.clause h1").inner_text() == "728 Handling Illegal Actions"


def test_diff_shows_the_inline_change(page, base_url):
    page.goto(base_url + "/diff")
    page.select_option("select[name=game]", "mtg")
    page.select_option("select[name=lang]", "ja")
    page.select_option("select[name=old]", "20231117.0")
    page.select_option("select[name=new]", "20260807.0")
    page.click("form.pick button")
    page.wait_for_url("**/diff/mtg/ja/20231117.0/20260807.0")
    assert page.locator("ul.summary li.reference_only b").inner_text() == "1"
    deleted = page.locator("#reference_only del").first
    assert not deleted.is_visible()  # reference-only changes are folded away by default
    page.click("#reference_only summary")
    assert deleted.is_visible() and deleted.inner_text() == "728"
    assert page.locator("#reference_only ins").first.inner_text() == "733"
    page.screenshot(path=str(ARTIFACTS / "diff.png"), full_page=True)


def test_clause_fits_a_phone(browser, base_url):
    context = browser.new_context(viewport={"width": 375, "height": 812}, device_scale_factor=2, is_mobile=True)
    page = context.new_page()
    page.goto(base_url + "/mtg/ja/20231117.0/509.1")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375
    box_ja = page.locator("article.clause .lead .own").bounding_box()
    box_en = page.locator("article.clause .lead .them").bounding_box()
    assert box_en["y"] >= box_ja["y"] + box_ja["height"]  # stacked, not side by side
    page.screenshot(path=str(ARTIFACTS / "clause-phone.png"), full_page=True)
    context.close()
