"""Reading features of the web app on the small hand-made KB (with its lineage built, as a build does):
full rule pages, folded history and diffs, the moved-rule 404, update summaries, contents filter."""

from __future__ import annotations

import pytest

from kb.store import Store
from tests._webkb import JA_509_1C, make_generation
from web import create_app, diffview
from web.text import percent


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    from kb.versions import lineage

    home = make_generation(tmp_path_factory.mktemp("reading-home"))
    store = Store.open(str(home / "current" / "kb.sqlite"), write=True)
    lineage.build(store)
    store.commit()
    store.close()
    return home


@pytest.fixture(scope="module")
def client(home):
    return create_app(home, {"WARMUP": False}).test_client()


def api(client, url: str, status: int = 200) -> dict:
    resp = client.get("/api" + url)
    assert resp.status_code == status, (url, resp.status_code, resp.data[:300])
    return resp.get_json()


def page(client, url: str, status: int = 200) -> str:
    resp = client.get(url)
    assert resp.status_code == status, (url, resp.status_code, resp.data[:300])
    return resp.get_data(as_text=True)


def test_rule_page_shows_every_clause_in_full_with_anchors(client):
    data = api(client, "/mtg/ja/20231117.0/509")
    assert [d["rule"] for d in data["descendants"]] == ["509.1", "509.1a", "509.1c", "509.2"]
    assert [d["heading"] for d in data["descendants"]] == [2, 3, 3, 2]  # clauses h2, sub-clauses h3 under the h1
    html = page(client, "/mtg/ja/20231117.0/509")
    assert '<section class="sub d3 bi" id="509.1c"' in html and '<a class="anchor" href="#509.1c">' in html
    assert (
        JA_509_1C in html and "例：プレイヤーはブロック・クリーチャーを1体選ぶ。" in html
    )  # texts and examples, whole
    # the page shows 509.1 … 509.2 already: reading on goes to the next rule
    assert data["next"]["rule"] == "510"


def test_clause_page_offers_canonical_link_and_citation(client):
    data = api(client, "/mtg/en/latest/509.1a")
    assert data["canonical"] == "/mtg/en/20240607/509.1a"
    assert data["citation"] == "CR 509.1a (2024-06-07)"
    html = page(client, "/mtg/en/latest/509.1a")
    assert '<link rel="canonical" href="/mtg/en/20240607/509.1a">' in html
    assert 'data-copy-url="/mtg/en/20240607/509.1a"' in html and 'data-copy-text="CR 509.1a (2024-06-07)"' in html
    assert api(client, "/dm/ja/1.48/506.1")["citation"] == "総合ゲームルール 506.1 (Ver.1.48)"


def test_duel_masters_has_no_empty_english_column(client):
    html = page(client, "/dm/ja/1.48/506.1")
    assert 'class="pair single"' in html and '<aside class="other"' not in html
    html = page(client, "/mtg/ja/20231117.0/509.1c")  # Magic has English: the column stays
    assert 'class="pair"' in html and '<aside class="other" lang="en"' in html
    # A page of several clauses has no column beside it: each clause has its English beside it instead.
    data = api(client, "/mtg/ja/20231117.0/509")
    assert data["bilingual"] and [d["other"]["rule"] if d["other"] else None for d in data["descendants"]] == [
        "509.1",
        "509.1a",
        "509.1c",
        None,  # 20231117 has no 509.2: said so beside it
    ]
    html = page(client, "/mtg/ja/20231117.0/509")
    assert '<aside class="other"' not in html and html.count('<div class="them" lang="en">') == 4
    assert "20231117 にこの条文はありません" in html


def test_moved_rule_404_points_to_where_it_went(client):
    resp = client.get("/mtg/en/20240607/509.1c")
    assert resp.status_code == 404
    html = resp.get_data(as_text=True)
    assert "509.1c は mtg/en 20240607 にありません。20240607 から 509.1d に番号が変わっています。" in html
    assert 'href="/mtg/en/20240607/509.1d"' in html and 'href="/history/mtg/en/509.1c"' in html
    moved = api(client, "/mtg/en/20240607/509.1c", 404)["moved"]
    assert moved["now"] == {"rule": "509.1d", "since": "20240607", "url": "/mtg/en/20240607/509.1d"}
    assert moved["held"]["count"] == 1 and moved["held"]["first"] == "20231117"


def test_rule_created_later_and_rule_nowhere(client):
    data = api(client, "/mtg/en/20231117/509.2", 404)
    assert data["moved"]["created_in"] == "20240607" and "新設" in data["error"]
    data = api(client, "/mtg/en/latest/999.9", 404)
    assert data["moved"]["held"] is None and "どの版にもありません" in data["error"]


def test_history_folds_reference_only_edits(client):
    hist = api(client, "/history/mtg/ja/509.1")["history"]
    edit = next(e for e in hist["events"] if e["kind"] == "edited")
    assert edit["reference_only"] is True and edit["folded"] is True
    assert hist["counts"]["folded"] == 1 and hist["counts"]["edited"] == 0
    html = page(client, "/history/mtg/ja/509.1")
    assert "表記・参照番号だけの変更 1 件" in html and "<del>728</del><ins>733</ins>" in html.split("<details>", 1)[1]


def test_diff_counts_agree_between_page_and_json(client):
    data = api(client, "/diff/mtg/en/20231117/20240607")
    s = data["summary"]
    shown = [c for c in data["changes"] if not c["folded"]]
    for kind in ("moved", "edited", "added", "removed"):
        assert s[kind] == sum(1 for c in shown if c["kind"] == kind)
    assert s["total"] == len(data["changes"]) == s["moved"] + s["edited"] + s["added"] + s["removed"] + s["folded"]
    html = page(client, "/diff/mtg/en/20231117/20240607")
    assert f'<li class="edited"><a href="#edited">変更 <b>{s["edited"]}</b>' in html
    assert f'<li class="reference_only">参照番号のみ <b>{s["reference_only"]}</b>' in html


def test_same_and_reversed_diffs_say_so(client):
    same = api(client, "/diff/mtg/en/20240607/20240607")
    assert same["same_version"] is True and same["identical"] is True and same["changes"] == []
    html = page(client, "/diff/mtg/en/20240607/20240607")
    assert "2つは同一です" in html and "なし" not in html
    back = api(client, "/diff/mtg/en/20240607/20231117")
    assert back["reversed"] is True and back["swap_url"] == "/diff/mtg/en/20231117/20240607"
    assert "新旧を入れ替える" in page(client, "/diff/mtg/en/20240607/20231117")


def test_diff_form_defaults_to_the_newest_update(client):
    data = api(client, "/diff")
    assert (data["game"], data["lang"], data["old"], data["new"]) == ("mtg", "en", "20231117", "20240607")
    assert '<option value="20240607" data-game="mtg" data-lang="en" selected>' in page(client, "/diff")


def test_large_diff_shows_sections_then_parts_on_demand(home, monkeypatch, tmp_path):
    monkeypatch.setattr(diffview, "LARGE", 2)  # so that this small diff counts as large, and section 5 as big
    # each app whose code is patched keeps its pages apart: the shared disk cache would hand back another test's
    c = create_app(home, {"WARMUP": False, "PAGE_CACHE_DIR": tmp_path / "large2"}).test_client()
    summary = c.get("/api/diff/mtg/en/20231117/20240607").get_json()
    assert summary["large"] is True and summary["part"] is None
    assert all("inline" not in ch for ch in summary["changes"])  # no word-level diffs in the summary
    keys = [p["key"] for p in summary["parts"]]
    assert "509" in keys and "5" not in keys and keys[-1] == "folded"  # a big section: one part per rule
    html = c.get("/diff/mtg/en/20231117/20240607").get_data(as_text=True)
    assert 'data-src="/diff/mtg/en/20231117/20240607?part=509"' in html and 'id="changes"' not in html
    part = c.get("/api/diff/mtg/en/20231117/20240607?part=509").get_json()
    assert part["part"] == "509" and part["changes"]
    assert all(ch["part"] == "509" and (ch["new_rule"] or ch["old_rule"]).startswith("509") for ch in part["changes"])
    assert all("inline" in ch for ch in part["changes"])
    assert c.get("/diff/mtg/en/20231117/20240607?part=8").status_code == 404
    monkeypatch.setattr(diffview, "LARGE", 4)
    parts = (
        create_app(home, {"WARMUP": False, "PAGE_CACHE_DIR": tmp_path / "large4"})
        .test_client()
        .get("/api/diff/mtg/en/20231117/20240607")
        .get_json()["parts"]
    )
    assert "5" in [p["key"] for p in parts]  # a section within bounds stays whole


def test_diff_folds_editorial_changes_from_the_link_service(home, monkeypatch, tmp_path):
    from web import services

    real = services.diff

    def classified(*args, **kwargs):
        result = real(*args, **kwargs)
        for ch in result["changes"]:
            if ch["new_rule"] == "509.1a":
                ch["editorial"] = True  # "that they control" -> "they control": wording only
        return result

    monkeypatch.setattr(services, "diff", classified)
    app = create_app(home, {"WARMUP": False, "PAGE_CACHE_DIR": tmp_path})  # not the shared cache: the code is patched
    data = app.test_client().get("/api/diff/mtg/en/20231117/20240607").get_json()
    change = next(ch for ch in data["changes"] if ch["new_rule"] == "509.1a")
    assert change["folded"] is True and data["summary"]["editorial"] == 1


def test_versions_page_says_what_each_update_changed(client):
    rows = {(v["game"], v["lang"], v["version"]): v for v in api(client, "/versions")["versions"]}
    upd = rows[("mtg", "en", "20240607")]["update"]
    assert upd["previous"] == "20231117" and upd["diff_url"] == "/diff/mtg/en/20231117/20240607"
    assert upd["moved"] >= 1 and upd["added"] >= 1
    assert rows[("mtg", "en", "20231117")]["update"] is None
    assert 'href="/diff/mtg/en/20231117/20240607"' in page(client, "/versions")


def test_front_page_shows_the_latest_update(client):
    data = api(client, "")  # /api: the front page's data
    (card,) = data["latest"]
    assert (card["old"]["version"], card["new"]["version"]) == ("20231117", "20240607")
    assert {"rule": "509.2", "kind": "added"}.items() <= next(
        c for c in card["changes"] if c["rule"] == "509.2"
    ).items()
    html = page(client, "/")
    assert "最新の改訂" in html and 'href="/diff/mtg/en/20231117/20240607"' in html
    assert "<h1>" in html


def test_api_without_slash_answers_json(client):
    resp = client.get("/api")
    assert resp.status_code == 200 and resp.mimetype == "application/json"
    assert client.get("/api/").status_code == 308
    missing = client.get("/api/nowhere")
    assert missing.status_code == 404 and missing.mimetype == "application/json"


def test_contents_is_collapsible_and_filters(client):
    html = page(client, "/mtg/ja/20231117.0/")
    assert '<li class="d0" data-rule="5"><details><summary>' in html
    assert 'href="/mtg/ja/20231117.0/509.1c"' in html
    data = api(client, "/mtg/ja/20231117.0/?q=509.1")
    assert [n["rule"] for n in data["nodes"]] == ["5", "509", "509.1", "509.1a", "509.1c"]  # matches and ancestors
    html = page(client, "/mtg/ja/20231117.0/?q=戦闘ダメージ")
    assert "<details open>" in html and 'href="/mtg/ja/20231117.0/510"' in html and 'data-rule="509.1c"' not in html


def test_glossary_filtered_by_language_keeps_counterparts(client):
    terms = api(client, "/glossary?lang=en&q=blocking")["terms"]
    assert [(t["term"], t["counterpart"]) for t in terms] == [("Blocking Creature", "ブロック・クリーチャー")]


def test_glossary_says_when_it_is_empty(client):
    html = page(client, "/glossary?game=dm")
    assert "用語集がなく" in html and "<table" not in html


def test_search_results_are_not_all_bold(client):
    html = page(client, "/search?q=ブロック&jump=0")
    assert '<li class="result kind-rule">' in html and 'class="result rule"' not in html


@pytest.mark.parametrize(
    ("value", "shown"), [(1.0, "100%"), (0.997, "99.7%"), (0.9999, "99.9%"), (0.5, "50%"), (None, "0%")]
)
def test_similarity_never_rounds_a_difference_away(value, shown):
    assert percent(value) == shown
