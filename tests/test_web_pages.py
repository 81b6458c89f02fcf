"""Every page and its JSON twin, on a small hand-made KB (ja and en editions, an article, terms)."""

from __future__ import annotations

import re

import pytest

from kb.store import Store
from tests._webkb import JA_509_1_2023, JA_509_1C, make_generation
from web import create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    home = make_generation(tmp_path_factory.mktemp("web-home"), index=True)
    return create_app(home).test_client()


def html(client, url: str, status: int = 200) -> str:
    resp = client.get(url)
    assert resp.status_code == status, (url, resp.status_code, resp.data[:300])
    assert resp.mimetype == "text/html"
    return resp.get_data(as_text=True)


def api(client, url: str, status: int = 200) -> dict:
    resp = client.get("/api" + url)
    assert resp.status_code == status, (url, resp.status_code, resp.data[:300])
    assert resp.mimetype == "application/json"
    return resp.get_json()


def test_front_page_lists_versions(client):
    page = html(client, "/")
    assert '<html lang="ja">' in page
    assert 'href="/mtg/en/20231117/"' in page and 'href="/mtg/ja/5.5.0.0/"' in page


def test_search_highlights_and_json_twin_agree(client):
    scope = "&game=mtg&lang=ja&version=20260807.0"
    data = api(client, "/search?q=ブロック強制" + scope)
    assert data["engine"] == "index" and data["total"] >= 1
    hit = data["results"][0]
    assert (hit["game"], hit["lang"], hit["version"], hit["rule"]) == ("mtg", "ja", "20260807.0", "509.1c")
    assert [t for t, is_hit in hit["segments"] if is_hit] == ["ブロック強制"]
    assert "".join(t for t, _ in hit["segments"]) == JA_509_1C
    page = html(client, "/search?q=ブロック強制" + scope)
    assert "<mark>ブロック強制</mark>" in page
    assert 'href="/mtg/ja/20260807.0/509.1c"' in page


def test_search_filters_by_game_lang_and_version(client):
    data = api(client, "/search?q=ブロック&game=mtg&lang=ja&version=20231117.0")
    assert data["results"] and {(r["game"], r["lang"], r["version"]) for r in data["results"]} == {
        ("mtg", "ja", "20231117.0")
    }
    data = api(client, "/search?q=ブロック&game=dm")
    assert data["results"] and {r["game"] for r in data["results"]} == {"dm"}


def test_search_paginates(client):
    first = api(client, "/search?q=ブロック&lang=ja&game=mtg&version=20231117.0&per_page=2")
    second = api(client, "/search?q=ブロック&lang=ja&game=mtg&version=20231117.0&per_page=2&page=2")
    assert len(first["results"]) == 2 and first["has_next"] is True
    assert not {r["rule"] for r in first["results"]} & {r["rule"] for r in second["results"]}
    assert 'rel="next"' in html(client, "/search?q=ブロック&lang=ja&game=mtg&version=20231117.0&per_page=2")


@pytest.mark.parametrize("query", ["509.1c", "５０９．１ｃ", "rule 509.1c", "ルール509.1c"])
def test_rule_number_query_jumps_to_the_clause(client, query):
    resp = client.get("/search", query_string={"q": query})
    assert resp.status_code == 302
    assert resp.headers["Location"] == "/mtg/ja/20260807.0/509.1c"
    assert api(client, f"/search?q={query}")["jump"] == "/mtg/ja/20260807.0/509.1c"


def test_rule_number_query_respects_language(client):
    resp = client.get("/search", query_string={"q": "509.1a", "lang": "en"})
    assert resp.headers["Location"] == "/mtg/en/20240607/509.1a"


def test_versions_page_and_json(client):
    data = api(client, "/versions")
    by = {(v["game"], v["lang"], v["version"]): v for v in data["versions"]}
    ja = by[("mtg", "ja", "20231117.0")]
    assert ja["partial"] is True and ja["clauses"] == 5 and ja["headings"] == 4 and ja["effective"] == "2023-11-17"
    assert by[("mtg", "en", "20231117")]["partial"] is False
    page = html(client, "/versions")
    assert "2023-11-17" in page and "部分" in page


def test_contents_tree(client):
    data = api(client, "/mtg/ja/20231117.0/")
    assert [n["rule"] for n in data["nodes"]][:4] == ["5", "509", "509.1", "509.1a"]
    assert [n["depth"] for n in data["nodes"]][:4] == [0, 1, 2, 3]
    assert 'href="/mtg/ja/20231117.0/509.1c"' in html(client, "/mtg/ja/20231117.0/")


def test_clause_page(client):
    data = api(client, "/mtg/ja/20231117.0/509.1")
    assert data["text"] == JA_509_1_2023
    assert [c["rule"] for c in data["breadcrumbs"]] == ["5", "509"]
    assert data["parent"]["rule"] == "509"
    assert [c["rule"] for c in data["children"]] == ["509.1a", "509.1c"]
    # the page shows 509.1a and 509.1c in full: reading on goes to the clause after them
    assert (data["prev"]["rule"], data["next"]["rule"]) == ("509", "509.2")
    assert [(d["rule"], d["anchor"]) for d in data["descendants"]] == [("509.1a", "#509.1a"), ("509.1c", "#509.1c")]
    assert data["descendants"][1]["text"] == JA_509_1C and data["descendants"][0]["examples"]
    assert data["references"] == [
        {"rule": "728", "raw": "rule 728〔不正な処理の扱い〕", "url": "/mtg/ja/20231117.0/728", "printed": None}
    ]
    assert [v["version"] for v in data["versions"]] == ["20231117.0", "20260807.0"]
    assert [v["same_text"] for v in data["versions"]] == [True, False]
    assert [a["title"] for a in data["articles"]] == ["ブロック強制"]
    page = html(client, "/mtg/ja/20231117.0/509.1")
    assert '<a class="ref" href="/mtg/ja/20231117.0/728" data-rule="728">rule 728〔不正な処理の扱い〕</a>' in page
    assert '<article class="clause" lang="ja"' in page


def test_clause_shows_the_other_language_side_by_side(client):
    data = api(client, "/mtg/ja/20231117.0/509.1")
    other = data["other_language"]
    assert (other["lang"], other["version"], other["rule"]) == ("en", "20231117", "509.1")
    assert other["text"].startswith("First, the defending player declares blockers.")
    page = html(client, "/mtg/ja/20231117.0/509.1")  # it shows its sub-clauses: each beside its English
    assert re.search(r'<div class="them" lang="en">.*First, the defending player declares blockers', page, re.S)
    assert '<aside class="other"' not in page
    back = api(client, "/mtg/en/20231117/509.1c")["other_language"]
    assert (back["lang"], back["version"], back["text"]) == ("ja", "20231117.0", JA_509_1C)


def test_undated_translation_pairs_with_its_estimated_english_edition(client):
    other = api(client, "/mtg/ja/5.5.0.0/309.1")["other_language"]
    # Old numbering: only the edition it renders counts, never another edition's 309.1 by number.
    assert other["found"] is False and other["paired_version"] == "20231117"
    assert (other["pairing"]["edition"], other["pairing"]["method"]) == ("20231117", "estimated by content")
    assert "20231117 にこの条文はありません" in html(client, "/mtg/ja/5.5.0.0/309.1")


def test_clause_latest_is_the_newest_version_holding_it(client):
    data = api(client, "/mtg/ja/latest/509.1c")
    assert data["version"]["version"] == "20260807.0"
    assert html(client, "/mtg/ja/latest/509.1c").count(JA_509_1C) == 1


def test_clause_history_has_inline_diff(client):
    events = api(client, "/mtg/ja/20260807.0/509.1")["history"]["events"]
    edit = next(e for e in events if e["kind"] == "edited")
    assert edit["version"] == "20260807.0"
    assert ["-", "728"] in edit["inline"] and ["+", "733"] in edit["inline"]
    page = html(client, "/mtg/ja/20260807.0/509.1")
    assert "<del>728</del><ins>733</ins>" in page


def test_diff_page_folds_reference_only_changes(client):
    data = api(client, "/diff/mtg/ja/20231117.0/20260807.0")
    assert data["summary"]["reference_only"] == 1
    change = data["changes"][0]
    assert (change["old_rule"], change["new_rule"], change["reference_only"]) == ("509.1", "509.1", True)
    page = html(client, "/diff/mtg/ja/20231117.0/20260807.0")
    folded = page.split("<details>", 1)[1].split("</details>", 1)[0]
    assert "<del>728</del><ins>733</ins>" in folded


def test_diff_lists_moved_added_and_removed(client):
    data = api(client, "/diff/mtg/en/20231117/20240607")
    kinds = {(c["kind"], c["old_rule"], c["new_rule"]) for c in data["changes"]}
    assert ("moved", "509.1c", "509.1d") in kinds
    assert ("added", None, "509.2") in kinds
    assert data["summary"]["added"] >= 1 and data["summary"]["moved"] >= 1
    page = html(client, "/diff/mtg/en/20231117/20240607")
    moved = page.split('id="moved"', 1)[1].split("</section>", 1)[0]
    assert 'href="/mtg/en/20231117/509.1c"' in moved and 'href="/mtg/en/20240607/509.1d"' in moved
    # renumbered without edits: the page shows what the clause says rather than an empty diff
    assert '<div class="diffline unchanged" lang="en">The defending player checks each creature' in moved


def test_diff_form_redirects_to_permalink(client):
    resp = client.get("/diff", query_string={"game": "mtg", "lang": "en", "old": "20231117", "new": "20240607"})
    assert resp.status_code == 302 and resp.headers["Location"] == "/diff/mtg/en/20231117/20240607"
    assert 'value="20240607"' in html(client, "/diff")


def test_align_pages(client):
    pairs = api(client, "/align")["pairs"]
    row = next(p for p in pairs if p["ja"]["version"] == "20231117.0")
    assert row["en"]["version"] == "20231117" and row["url"] == "/align/mtg/ja/20231117.0/en/20231117"
    data = api(client, "/align/mtg/ja/20231117.0/en/20231117")
    assert data["a"]["version"] == "20231117.0" and data["b"]["version"] == "20231117"
    assert data["unavailable"] is None
    pairs = {(p["a_rule"], p["b_rule"]): p["status"] for p in data["pairs"]}
    assert pairs[("509.1", "509.1")] == "paired"
    assert pairs[("728", "728")] == "paired" and 0 < data["coverage"] <= 1
    page = html(client, "/align/mtg/ja/20231117.0/en/20231117")
    missing = sorted(p["a_rule"] for p in data["pairs"] if p["status"] == "missing_in_b")
    assert missing == ["509.2", "510", "510.1"]  # the test KB's English edition stops at 509.1c (and 728)
    section = page.split('id="missing_in_b"', 1)[1].split("</section>", 1)[0]
    assert 'href="/mtg/ja/20231117.0/510.1"' in section


def test_glossary_pairs_link_to_clauses(client):
    data = api(client, "/glossary?q=blocked")
    assert [(t["term"], t["english"]) for t in data["terms"]] == [
        ("ブロックされているクリーチャー", "blocked creature")
    ]
    assert data["terms"][0]["used_in"][0]["url"] == "/mtg/ja/20231117.0/509.1"
    page = html(client, "/glossary")
    assert 'href="/mtg/ja/20231117.0/509.1a"' in page and "blocking creature" in page


def test_glossary_pairs_english_entries_with_japanese_terms(client):
    entries = api(client, "/glossary?q=blocking creature")["terms"]
    assert [(t["lang"], t["term"], t["counterpart"]) for t in entries] == [
        ("ja", "ブロック・クリーチャー", "blocking creature"),  # Japanese first
        ("en", "Blocking Creature", "ブロック・クリーチャー"),
    ]
    # "See rule 509." resolves in the edition that defines the term, not the newest holding a 509.
    assert entries[1]["cites"] == [{"rule": "509", "url": "/mtg/en/20231117/509", "printed": None}]
    assert [t["lang"] for t in api(client, "/glossary?lang=en")["terms"]] == ["en"]


def test_articles(client):
    listing = api(client, "/articles")["articles"]
    assert [a["title"] for a in listing] == ["ブロック強制"]
    data = api(client, f"/articles/{listing[0]['id']}")
    assert data["cites"] == [
        {"rule": "509.1", "url": "/mtg/ja/20260807.0/509.1"},
        {"rule": "509.1c", "url": "/mtg/ja/20260807.0/509.1c"},
    ]
    assert 'href="/mtg/ja/20260807.0/509.1c"' in html(client, f"/articles/{listing[0]['id']}")


def test_tests_page_without_saved_links(client):
    data = api(client, "/tests")
    assert data["saved"] is False and data["citations"] == []
    html(client, "/tests")


def test_every_html_page_links_its_json_twin(client):
    page = html(client, "/mtg/ja/20231117.0/509.1")
    assert 'class="json" href="/api/mtg/ja/20231117.0/509.1"' in page


SAVED_LINKS = {
    "against": "20240607",
    "citations": [
        {
            "file": "tests/test_combat.py",
            "line": 12,
            "test": "tests/test_combat.py::test_blockers",
            "rule": "509.1",
            "raw": "CR 509.1",
            "status": "ok",
            "result": "pass",
            "suggest": [],
            "note": "",
        },
        {
            "file": "tests/test_combat.py",
            "line": 30,
            "test": "tests/test_combat.py::test_requirements",
            "rule": "509.1c",
            "raw": "CR 509.1c",
            "status": "orphan",
            "suggest": ["509.1d"],
            "note": "509.1c was renumbered",
        },
    ],
    "coverage": {
        "total": 4,
        "covered": 1,
        "percent": 25.0,
        "tests": 2,
        "tests_citing": 2,
        "sections": [{"section": "5", "title": "Turn Structure", "total": 4, "covered": 1, "percent": 25.0}],
        "uncovered": ["509.1a", "509.1d", "509.2"],
    },
}


def test_tests_page_with_saved_links(client, monkeypatch, tmp_path):
    from web import services

    monkeypatch.setattr(services, "links_saved", lambda store: SAVED_LINKS)
    # a fresh app, and its own disk cache: the shared one may hold this page from before the patch
    app = create_app(client.application.extensions["rulekb"].home.path, {"PAGE_CACHE_DIR": tmp_path})
    c = app.test_client()
    data = c.get("/api/tests").get_json()
    assert data["saved"] is True and data["status_counts"] == {"ok": 1, "orphan": 1}
    orphan = data["problems"]["orphan"][0]
    assert orphan["url"] is None and orphan["suggest_urls"][0]["url"] == "/mtg/en/20240607/509.1d"
    assert orphan["suggest_urls"][0]["text"].startswith("The defending player checks each creature")
    assert data["coverage_rows"] == [{"section": "5", "title": "Turn Structure", "covered": 1, "total": 4}]
    page = c.get("/tests").get_data(as_text=True)
    assert "網羅率 <b>25.0%</b>" in page and 'href="/mtg/en/20240607/509.1d"' in page
    assert 'href="/mtg/en/20240607/509.2"' in page  # uncovered clauses are listed


def test_clause_lists_the_tests_citing_it(client, monkeypatch, tmp_path):
    from web import services

    cites = [c for c in SAVED_LINKS["citations"] if c["rule"] == "509.1"]
    monkeypatch.setattr(services, "citations_for", lambda store, game, rule: cites if rule == "509.1" else [])
    app = create_app(client.application.extensions["rulekb"].home.path, {"PAGE_CACHE_DIR": tmp_path})
    data = app.test_client().get("/api/mtg/en/20231117/509.1").get_json()
    assert [(t["test"], t["status"], t["result"]) for t in data["tests"]] == [
        ("tests/test_combat.py::test_blockers", "ok", "pass")
    ]
    page = app.test_client().get("/mtg/en/20231117/509.1").get_data(as_text=True)
    assert "tests/test_combat.py::test_blockers" in page and '<span class="status ok">ok</span>' in page


def test_history_page_follows_a_renumbered_clause(client):
    data = api(client, "/history/mtg/en/509.1d")
    events = [(e["version"], e["kind"], e["rule"], e.get("old_rule")) for e in data["history"]["events"]]
    assert events[0] == ("20231117", "created", "509.1c", None)
    assert events[1][:3] == ("20240607", "moved", "509.1d") and events[1][3] == "509.1c"
    page = html(client, "/history/mtg/en/509.1d")
    assert 'href="/mtg/en/20240607/509.1d"' in page and "← 509.1c" in page
    assert client.get("/history/mtg/en/999.1").status_code == 404
    assert client.get("/api/history/mtg/en/50x").status_code == 400


def test_make_generation_holds_both_languages(tmp_path):
    home = make_generation(tmp_path)
    store = Store.open(str(home / "current" / "kb.sqlite"))
    labels = {(v.game, v.lang, v.label) for v in store.versions()}
    assert ("mtg", "en", "20231117") in labels and ("mtg", "ja", "20231117.0") in labels
    assert [r.rule for r in store.node(store.get_version("mtg", "ja", "20231117.0"), "509.1").references] == ["728"]


def test_a_mistyped_english_word_is_searched_as_the_rules_spell_it(client):
    data = api(client, "/search?q=declare+blokers+step&lang=en")
    assert data["spelled"] == "declare blockers step" and data["results"][0]["rule"].startswith("509")
    assert "「declare blockers step」で検索しました" in html(client, "/search?q=declare+blokers+step&lang=en")
    assert api(client, "/search?q=declare+blockers+step&lang=en")["spelled"] is None
