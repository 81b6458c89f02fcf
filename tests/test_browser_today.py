"""Today's rules in a real browser: a clause page says where its text comes from and pairs it with the
English edition it renders (Debian's Chromium through Playwright, against waitress)."""

from __future__ import annotations

import pytest

from tests.helpers import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def base_url(today_url):
    return today_url


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ja-JP")
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    context.close()
    assert errors == [], errors


def test_a_clause_shows_its_provenance_and_its_english_pair_from_the_right_edition(page, base_url):
    page.goto(base_url + "/mtg/ja/latest/509.1c")
    head = page.locator("article.clause header")
    assert head.locator(".prov").inner_text() == "公式訳"
    assert "20260116.0" in head.inner_text()
    other = page.locator("aside.other")
    assert other.locator("h2 small").inner_text() == "20260116"  # the edition 20260116.0 translates
    assert other.locator(".prov").inner_text() == "公式"
    assert other.locator("a.rid").inner_text() == "509.1c"
    page.screenshot(path=str(ARTIFACTS / "today-clause.png"), full_page=False)
    # The 2008 private translation says so, and pairs with 2008's English edition.
    page.goto(base_url + "/mtg/ja/5.5.0.0/309.2")
    assert page.locator("article.clause header .prov").inner_text() == "私訳"
    head = page.locator("article.clause .other-head").inner_text()  # its clauses beside 2008's English
    assert "20081001" in head and "推定" in head
    assert "309.2a" in page.locator('article.clause section.sub .them[lang="en"] a.rid').first.inner_text()
    # An old English clause points to where its rule lives now.
    page.goto(base_url + "/mtg/en/latest/502.9")
    now = page.locator("article.clause .now a")
    assert now.inner_text() == "702.19"
    now.click()
    page.wait_for_url("**/mtg/en/20260116/702.19")
