"""The longest pages in parts, in a real browser: a whole edition's contents loads a section when it is
opened, and an anchor to a clause of another part of a rule page opens that part (web/static/app.js)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ja-JP")
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield pg
    context.close()
    assert errors == [], errors  # no script errors, no CSP violations


def test_a_folded_contents_loads_a_section_when_it_is_opened(page, today_url):
    page.goto(today_url + "/mtg/ja/20260116.0/")
    assert page.locator("ul.toc[data-folded]").count() == 1  # 3,000 entries and more: by section
    section = page.locator("details#part-1")
    assert section.locator('li[data-rule="100.1"]').count() == 0  # not on the page until opened
    section.locator("summary").first.click()
    rule = section.locator('li[data-rule="100"]')  # the section's rules, each folded on its clauses
    rule.wait_for()
    assert rule.locator("summary").first.inner_text().startswith("100")
    rule.locator("summary").first.click()
    assert section.locator('li[data-rule="100.1"]').is_visible()
    assert page.locator('[id="part-1"]').count() == 1  # the loaded part's own ids are dropped


def test_an_anchor_to_a_clause_of_another_part_opens_that_part(page, today_url):
    page.goto(today_url + "/mtg/en/20260116/702")
    parts = page.locator("nav.parts a[data-first]")
    assert parts.count() >= 3
    first = parts.nth(2).get_attribute("data-first")  # the first clause of part 3
    assert page.locator(f'[id="{first}"]').count() == 0  # part 1 does not hold it
    page.goto(today_url + "/versions")  # away, so that the next address loads the page again
    page.goto(today_url + f"/mtg/en/20260116/702#{first}")
    page.wait_for_url(f"**/mtg/en/20260116/702?part=3#{first}")
    assert page.locator(f'[id="{first}"]').is_visible()
