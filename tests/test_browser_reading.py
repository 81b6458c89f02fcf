"""The reading experience in a real browser (Debian's Chromium through Playwright, against waitress):
previews, full rule pages, contents, copy, keyboard, dark and print, phone tables, articles, the moved-rule
404, suggestions, diffs on demand, and axe-core's accessibility check on the main page kinds.

KB: the bundled seeds plus the English editions of 2023-11-17 and 2024-02-06 (between them rule 719
became 720, and 701.34d-g moved up a letter). Screenshots land in tests/artifacts/.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.helpers import ARTIFACTS, CR_EN, ROOT, home_with, served

pytestmark = pytest.mark.browser

AXE = ROOT / "tests" / ".deps" / "axe-core-4.14.1" / "axe.min.js"  # fetched by `make test` (Makefile: $(AXE))


@pytest.fixture(scope="module")
def base_url(built_home, tmp_path_factory):
    """The bundled corpus plus the English 2023-11-17 and 2024-02-06 editions, served on a free loopback port."""
    editions = [CR_EN / "MagicCompRules_2023-11-17.txt", CR_EN / "MagicCompRules_2024-02-06.txt"]
    with served(home_with(built_home, tmp_path_factory.mktemp("browser-reading") / "home", *editions)) as url:
        yield url


@pytest.fixture
def open_page(browser):
    """Open pages in fresh contexts (size, colour scheme, permissions); no script error may occur."""
    contexts, errors = [], []

    def open_(url: str, *, width: int = 1280, height: int = 900, scheme: str = "light", **options):
        ctx = browser.new_context(
            viewport={"width": width, "height": height}, color_scheme=scheme, locale="ja-JP", **options
        )
        contexts.append(ctx)
        pg = ctx.new_page()
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        pg.on("console", lambda m: errors.append(m.text) if m.type == "error" and "404" not in m.text else None)
        pg.goto(url)
        return pg

    yield open_
    for ctx in contexts:
        ctx.close()
    assert errors == [], errors  # no script errors, no CSP violations


def shot(pg, name: str) -> None:
    pg.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


def test_hover_and_focus_preview_a_cited_rule(open_page, base_url):
    pg = open_page(base_url + "/mtg/en/20240206/509.1")
    ref = pg.locator("article.clause .text a.ref").first
    assert ref.get_attribute("data-rule") == "729"
    ref.hover()
    tip = pg.locator(".preview[role=tooltip]")
    tip.wait_for(state="visible")
    assert tip.inner_text().startswith("729 Handling Illegal Actions (20240206)")
    assert ref.get_attribute("aria-describedby") == "preview"
    shot(pg, "preview")
    pg.mouse.move(0, 0)
    tip.wait_for(state="detached")
    ref.focus()  # keyboard users get it too
    tip.wait_for(state="visible")
    pg.keyboard.press("Escape")
    tip.wait_for(state="detached")


def test_full_rule_page_and_anchor_navigation(open_page, base_url):
    pg = open_page(base_url + "/mtg/en/20240206/509#509.1c")
    target = pg.locator('section.sub[id="509.1c"]')
    assert target.is_visible() and "requirements" in target.inner_text()
    assert pg.evaluate("document.getElementById('509.1c').getBoundingClientRect().top") < 60  # scrolled to it
    assert pg.evaluate("getComputedStyle(document.getElementById('509.1c')).borderLeftColor") != pg.evaluate(
        "getComputedStyle(document.getElementById('509.1b')).borderLeftColor"
    )  # :target is marked
    assert pg.locator("section.sub").count() >= 10  # every clause of 509, in full
    pg.click('a.anchor[href="#509.2"]')
    assert pg.evaluate("location.hash") == "#509.2"
    shot(pg, "rule-page")


def test_contents_filter_and_collapse(open_page, base_url):
    pg = open_page(base_url + "/mtg/en/20240206/")
    assert pg.locator("ul.toc details[open]").count() == 0  # collapsed: sections and rules folded
    assert not pg.locator('li[data-rule="509.1c"]').is_visible()
    pg.fill("[data-toc-filter]", "509.1c")
    pg.locator('li[data-rule="509.1c"] a').wait_for(state="visible")
    assert pg.locator('li[data-rule="5"] > details').evaluate("d => d.open")
    assert not pg.locator('li[data-rule="100.1"]').is_visible() and not pg.locator('li[data-rule="1"]').is_visible()
    assert pg.locator("[data-toc-count]").inner_text() == "1 件"
    pg.fill("[data-toc-filter]", "")
    pg.click("button[data-toc=open]")
    pg.locator('li[data-rule="100.1"] > a').wait_for(state="visible")
    pg.click("button[data-toc=close]")
    assert pg.locator("ul.toc details[open]").count() == 0
    shot(pg, "contents")


def test_copy_permalink_and_citation(open_page, base_url):
    pg = open_page(base_url + "/mtg/en/latest/509.1c", permissions=["clipboard-read", "clipboard-write"])
    pg.click("button[data-copy-url]")
    assert pg.evaluate("navigator.clipboard.readText()") == base_url + "/mtg/en/20240206/509.1c"
    assert "コピーしました" in pg.locator(".copied").inner_text()
    pg.click("button[data-copy-text]")
    assert pg.evaluate("navigator.clipboard.readText()") == "CR 509.1c (2024-02-06)"
    assert pg.locator('link[rel="canonical"]').get_attribute("href") == "/mtg/en/20240206/509.1c"


def test_keyboard_next_and_previous(open_page, base_url):
    pg = open_page(base_url + "/mtg/en/20240206/509.1c")
    nxt = pg.locator("a[rel=next]").get_attribute("href")
    pg.keyboard.press("ArrowRight")
    pg.wait_for_url("**" + nxt)
    pg.keyboard.press("ArrowLeft")
    pg.wait_for_url("**/mtg/en/20240206/509.1c")
    pg.goto(base_url + "/mtg/en/20240206/509")
    pg.keyboard.press("j")
    pg.keyboard.press("j")
    assert pg.evaluate("location.hash") == "#509.1a" and pg.evaluate("document.activeElement.id") == "509.1a"
    pg.keyboard.press("k")
    assert pg.evaluate("location.hash") == "#509.1"
    pg.keyboard.press("/")
    assert pg.evaluate("document.activeElement.name") == "q"


def _luminance(rgb: str) -> float:
    r, g, b = (int(x) for x in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def test_dark_mode_and_print(open_page, base_url):
    light = open_page(base_url + "/mtg/ja/20231117.0/509.1")
    dark = open_page(base_url + "/mtg/ja/20231117.0/509.1", scheme="dark")
    bg = "getComputedStyle(document.body).backgroundColor"
    fg = "getComputedStyle(document.body).color"
    assert _luminance(light.evaluate(bg)) > 0.9 and _luminance(light.evaluate(fg)) < 0.2
    assert _luminance(dark.evaluate(bg)) < 0.15 and _luminance(dark.evaluate(fg)) > 0.8
    shot(dark, "clause-dark")
    dark.emulate_media(media="print")
    assert dark.locator("header.site").evaluate("e => getComputedStyle(e).display") == "none"
    assert dark.locator(".actions").evaluate("e => getComputedStyle(e).display") == "none"
    assert _luminance(dark.evaluate(bg)) > 0.9  # paper is white, even from a dark screen
    shot(dark, "clause-print")


ID_CELLS = "td.num, .rid, td.nowrap, td.nowrap a, td.path, .versions td a, table.glossary td a.nowrap"


@pytest.mark.parametrize(
    "url", ["/versions", "/glossary", "/mtg/en/20240206/509", "/diff/mtg/en/20231117/20240206?part=folded"]
)
def test_phone_width_keeps_ids_whole(open_page, base_url, url):
    pg = open_page(base_url + url, width=390, height=844)
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390  # tables scroll inside their box
    broken = pg.evaluate(
        """sel => Array.from(document.querySelectorAll(sel))
             .filter(e => e.offsetParent !== null && e.textContent.trim())
             .filter(e => e.getClientRects().length > 1 || e.scrollWidth > e.clientWidth + 1 && e.tagName === 'TD')
             .map(e => e.textContent.trim()).slice(0, 5)""",
        ID_CELLS,
    )
    assert broken == [], broken  # an id or number split over two lines (407|.2a, 199904|23)
    assert pg.locator(ID_CELLS).count() > 0
    shot(pg, "phone" + url.replace("/", "_").replace("?", "_"))


def test_article_lead_card_and_links(open_page, base_url):
    pg = open_page(base_url + "/articles")
    pg.click("text=ブロック強制")
    first = pg.locator("article.wiki > p").nth(2)  # after the meta line and the cited rules
    assert first.inner_text().startswith("ブロック強制（Blocking Requirement）は")
    card = pg.locator(".cardbox")
    assert "寄せ餌" in card.inner_text() and "Lure" in card.inner_text() and card.is_visible()
    assert pg.locator("article.wiki h2").first.inner_text() == "ルール"  # h1 -> h2, no jump to h3
    link = pg.locator("article.wiki a.external", has_text="ブロック・クリーチャー指定ステップ").first
    assert link.get_attribute("href").startswith("https://mtgwiki.com/wiki/")
    src = pg.locator("a.source")
    assert (
        src.get_attribute("href") == "https://mtgwiki.com/wiki/%E3%83%96%E3%83%AD%E3%83%83%E3%82%AF%E5%BC%B7%E5%88%B6"
    )
    shot(pg, "article")


def test_moved_rule_404_leads_to_where_it_went(open_page, base_url):
    pg = open_page(base_url + "/mtg/en/20240206/719.4")
    assert pg.locator("h1").inner_text() == "404"
    assert "20240206 から 720.4 に番号が変わっています" in pg.locator("main").inner_text()
    shot(pg, "moved-404")
    pg.click("p.goto a")
    pg.wait_for_url("**/mtg/en/20240206/720.4")
    assert pg.locator("article.clause h1").inner_text().startswith("720.4")


def test_suggestions_as_you_type(open_page, base_url):
    pg = open_page(base_url + "/")
    box = pg.locator("main input[name=q]")
    box.press_sequentially("ブロック強制", delay=30)
    options = pg.locator("main ul.suggest li[role=option]")
    options.first.wait_for(state="visible")
    assert options.count() >= 1 and box.get_attribute("aria-expanded") == "true"
    shot(pg, "suggest")
    box.press("ArrowDown")
    assert box.get_attribute("aria-activedescendant") == options.first.get_attribute("id")
    box.press("Enter")
    pg.wait_for_url(lambda url: "/search" not in url and url != base_url + "/")
    box = pg.locator("header input[name=q]")
    box.press_sequentially("509.1c", delay=30)
    jump = pg.locator("header ul.suggest li[role=option]").first
    jump.wait_for(state="visible")
    assert "509.1c へ移動" in jump.inner_text()


def test_suggestions_are_one_per_clause_and_none_for_nonsense(open_page, base_url):
    """The Japanese and English texts of one clause are one suggestion (the English rides on the
    Japanese row); a query nothing answers (the page's confidence is low) suggests nothing."""
    pg = open_page(base_url + "/")
    raw = pg.request.get(base_url + "/api/search?per_page=6&q=" + quote("ブロック制限")).json()["results"]
    rules = [(r["game"], r["rule"]) for r in raw if r["kind"] == "rule"]
    assert len(rules) == len(set(rules)) and any(r["other"] and r["other"]["lang"] == "en" for r in raw)
    box = pg.locator("main input[name=q]")
    box.press_sequentially("ブロック制限", delay=20)
    options = pg.locator("main ul.suggest li[role=option]")
    options.first.wait_for(state="visible")
    heads = [o.locator(".s-head").inner_text().split()[0] for o in options.all()]
    # one suggestion per clause; a wiki page quoting a clause is a page of its own, under the clause's number
    pages = sum(r["kind"] == "article" for r in raw)
    assert len(heads) == len(raw) and len(set(heads)) >= len(heads) - pages
    box.fill("")
    with pg.expect_response(lambda r: "/api/search" in r.url and "q=%E3%81%BB" in r.url) as answer:
        box.press_sequentially("ほげほげ", delay=20)
    assert answer.value.json()["confidence"] == "low" and answer.value.json()["results"]
    pg.wait_for_timeout(300)
    assert options.count() == 0 or not pg.locator("main ul.suggest").is_visible()


def test_large_diff_loads_a_section_on_demand(open_page, base_url):
    pg = open_page(base_url + "/diff/mtg/en/20231117/20240206")
    assert pg.locator("#parts details.part").count() >= 2 and pg.locator("ul.changes").count() == 0
    part = pg.locator("details.part").filter(has_text="Case").first  # rule 719 Case, new in 2024-02
    part.locator("summary").click()
    part.locator("ul.changes li").first.wait_for(state="visible")
    assert part.locator("li.change").count() > 0 and "719" in part.inner_text()
    assert pg.evaluate("new Set(Array.from(document.querySelectorAll('[id]')).map(e => e.id)).size") == pg.evaluate(
        "document.querySelectorAll('[id]').length"
    )  # the loaded part brings no duplicate ids
    shot(pg, "diff-parts")


AXE_PAGES = [
    "/",
    "/search?q=ブロック&jump=0",
    "/mtg/ja/20231117.0/509.1",
    "/mtg/en/20240206/509",
    "/mtg/en/20240206/",
    "/versions",
    "/diff/mtg/en/20231117/20240206",
    "/diff/mtg/ja/20231117.0/20260807.0",
    "/history/mtg/en/509.1",
    "/glossary",
    "/articles",
    "/mtg/en/20240206/719.4",
    "/align",
]


def _article_urls(base_url: str) -> list[str]:
    import json
    from urllib.request import urlopen

    with urlopen(base_url + "/api/articles") as resp:
        return [a["url"] for a in json.load(resp)["articles"]]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violations(open_page, base_url, scheme):
    assert AXE.is_file(), f"{AXE} missing: run `make test` (it fetches axe-core from the npm registry)"
    problems = {}
    for url in AXE_PAGES + _article_urls(base_url):
        pg = open_page(base_url + url, scheme=scheme, bypass_csp=True)  # to inject axe; the pages use no inline code
        pg.add_script_tag(path=str(AXE))
        result = pg.evaluate("axe.run(document, {resultTypes: ['violations']})")
        bad = [
            f"{v['id']} ({v['impact']}): {v['nodes'][0]['target']}"
            for v in result["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        if bad:
            problems[url] = bad
    assert problems == {}


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 390])
def test_screenshots_of_the_main_pages(open_page, base_url, scheme, width):
    for name, url in [
        ("front", "/"),
        ("clause", "/mtg/ja/20231117.0/509.1"),
        ("diff", "/diff/mtg/ja/20231117.0/20260807.0"),
        ("versions", "/versions"),
        ("history", "/history/mtg/en/509.1"),
    ]:
        pg = open_page(base_url + url, width=width, scheme=scheme)
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
        pg.screenshot(path=str(ARTIFACTS / f"{name}-{width}-{scheme}.png"), full_page=True)
