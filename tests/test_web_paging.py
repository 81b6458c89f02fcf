"""Long pages in parts: contents by section, the alignment and a rule's clauses in bounded parts, the whole
of a large diff streamed. Every part reachable, the whole one link away, the counts adding up."""

from __future__ import annotations

import re

import pytest

from tests._webkb import make_generation
from web import create_app, diffview, paging

# Limits small enough that the hand-made KB's pages come in parts (the real ones: web.DEFAULTS).
SMALL = {"WARMUP": False, "CONTENTS_FOLD": 4, "CONTENTS_PART": 3, "ALIGN_ROWS": 2, "RULE_PAGE_FOLD": 2}
SMALL["RULE_PAGE_PART"] = 1


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return make_generation(tmp_path_factory.mktemp("paging-home"))  # its lineage built, as a build does


@pytest.fixture(scope="module")
def client(home):
    return create_app(home, SMALL).test_client()


def get(client, url: str, status: int = 200):
    resp = client.get(url)
    assert resp.status_code == status, (url, resp.status_code, resp.data[:300])
    return resp


def entries(html: str) -> list[str]:
    return re.findall(r'<li class="d\d" data-rule="([^"]+)"', html)


CONTENTS = "/mtg/ja/20231117.0/"


def test_a_large_contents_is_folded_by_section_and_its_parts_add_up_to_the_whole(client):
    whole = get(client, "/api" + CONTENTS + "?part=all").get_json()
    folded = get(client, "/api" + CONTENTS).get_json()
    assert whole["folded"] is False and folded["folded"] is True
    parts = folded["parts"]
    assert sum(p["entries"] for p in parts) == len(whole["nodes"]) == folded["entries"]
    seen = []
    for p in parts:
        part = get(client, "/api" + p["url"]).get_json()
        assert len(part["nodes"]) == p["entries"]
        seen += [n["rule"] for n in part["nodes"]]
    assert seen == [n["rule"] for n in whole["nodes"]]  # each entry in one part, in document order
    assert [p["key"] for p in parts] == ["5", "509", "510", "7"]  # section 5 (6 entries > 3): its heading, its rules
    html = get(client, CONTENTS).get_data(as_text=True)
    for p in parts:
        if p["key"] != "5":
            assert f'data-src="{p["url"]}"' in html and f'href="{p["url"]}"' in html
    assert 'href="/mtg/ja/20231117.0/?part=all"' in html and "data-folded" in html
    assert entries(get(client, CONTENTS + "?part=all").get_data(as_text=True)) == [n["rule"] for n in whole["nodes"]]
    get(client, CONTENTS + "?part=6", 404)


def test_a_contents_within_bounds_stays_whole(home):
    client = create_app(home, {"WARMUP": False}).test_client()
    data = get(client, "/api" + CONTENTS).get_json()
    assert data["folded"] is False and len(data["nodes"]) == data["entries"] == 9


def test_the_contents_filter_still_reads_every_entry_of_a_folded_contents(client):
    data = get(client, "/api" + CONTENTS + "?q=510.1").get_json()
    assert [n["rule"] for n in data["nodes"]] == ["5", "510", "510.1"]


ALIGN = "/align/mtg/ja/20231117.0/en/20231117"


def test_an_alignment_section_comes_in_parts_that_cover_it_once(client):
    whole = get(client, "/api" + ALIGN + "?section=5&part=all").get_json()
    rows = whole["side_by_side"]
    parts = whole["section_parts"]
    assert len(parts) > 1 and sum(p["count"] for p in parts) == len(rows) == whole["rows"]
    seen = []
    for p in parts:
        part = get(client, "/api" + p["url"]).get_json()
        assert part["part"] == p["key"] and len(part["side_by_side"]) == p["count"]
        seen += part["side_by_side"]
    assert seen == rows
    first = get(client, "/api" + ALIGN + "?section=5").get_json()
    assert first["part"] == "1" and first["side_by_side"] == seen[: parts[0]["count"]]
    html = get(client, ALIGN + "?section=5").get_data(as_text=True)
    assert all(p["url"].replace("&", "&amp;") in html for p in parts) and "part=all" in html
    get(client, ALIGN + "?section=5&part=99", 404)


def test_parts_never_separate_a_clause_from_its_sub_clauses():
    rules = ["509", "509.1", "509.1a", "509.1b", "509.1c", "509.2", "509.3", "509.3a", "510", "510.1"]
    for limit in range(1, 12):
        slices = paging.cut(rules, lambda r: r, limit)
        assert [r for a, b in slices for r in rules[a:b]] == rules
        for a, b in slices:
            assert b - a <= limit or len({paging.group_key(r) for r in rules[a:b]}) == 1
            assert a == 0 or paging.group_key(rules[a]) != paging.group_key(rules[a - 1])


def test_a_rule_with_many_clauses_shows_them_in_parts_and_all_of_them_on_request(client):
    whole = get(client, "/api/mtg/en/20240607/509?part=all").get_json()
    parts = whole["clause_parts"]
    below = [d["rule"] for d in whole["descendants"]]
    assert below == ["509.1", "509.1a", "509.1d", "509.2"] and sum(p["count"] for p in parts) == len(below)
    seen = []
    for p in parts:
        seen += [d["rule"] for d in get(client, "/api" + p["url"]).get_json()["descendants"]]
    assert seen == below
    html = get(client, "/mtg/en/20240607/509").get_data(as_text=True)
    assert 'data-first="509.1" data-last="509.1d"' in html and 'id="509.2"' not in html
    get(client, "/mtg/en/20240607/509?part=9", 404)


def test_the_whole_of_a_large_diff_is_streamed_and_equals_its_parts(home, monkeypatch, tmp_path):
    url = "/diff/mtg/en/20231117/20240607"
    normal = create_app(home, {"WARMUP": False, "PAGE_CACHE": False}).test_client()
    at_once = get(normal, url + "?part=all").get_data(as_text=True)  # small: computed before it is sent
    monkeypatch.setattr(diffview, "LARGE", 2)  # now it is large: its whole is streamed
    client = create_app(home, {"WARMUP": False, "PAGE_CACHE_DIR": tmp_path}).test_client()  # patched: its own cache
    resp = client.get(url + "?part=all", buffered=False)
    assert resp.status_code == 200 and resp.is_streamed and "Content-Length" not in resp.headers
    streamed = b"".join(resp.response).decode()
    resp.close()
    assert streamed == at_once
    parts = get(client, "/api" + url).get_json()["parts"]
    shown = sum(len(get(client, "/api" + p["url"]).get_json()["changes"]) for p in parts)
    assert shown == len(get(client, "/api" + url + "?part=all").get_json()["changes"])
    again = get(client, url + "?part=all")  # kept whole once streamed: the next one comes from the cache
    assert again.get_data(as_text=True) == at_once and client.application.wsgi_app.app.stats["memory"] >= 1


def test_a_rule_of_many_changes_comes_in_runs_of_whole_clauses(home, monkeypatch, tmp_path):
    monkeypatch.setattr(diffview, "LARGE", 2)  # section 5 by rule ...
    monkeypatch.setattr(diffview, "PART_MAX", 2)  # ... and rule 509 in runs of at most two changes
    client = create_app(home, {"WARMUP": False, "PAGE_CACHE_DIR": tmp_path}).test_client()  # patched: its own cache
    url = "/diff/mtg/en/20231117/20240607"
    summary = get(client, "/api" + url).get_json()
    runs = [p for p in summary["parts"] if p["key"].startswith("509-")]
    assert len(runs) >= 2 and all(p["total"] <= 2 or "-" in p["title"] for p in runs)
    shown = [c for p in summary["parts"] for c in get(client, "/api" + p["url"]).get_json()["changes"]]
    assert sorted(map(repr, shown)) == sorted(map(repr, get(client, "/api" + url + "?part=all").get_json()["changes"]))
    for p in runs:
        rules = [c["new_rule"] or c["old_rule"] for c in get(client, "/api" + p["url"]).get_json()["changes"]]
        assert p["title"].endswith(f"({rules[0]} – {rules[-1]})")
    moved = client.get(url + "?part=509")  # the rule's address from before it came in runs: its first run
    assert moved.status_code == 302 and moved.headers["Location"].endswith(runs[0]["url"])
