"""The Japanese side on today's real texts: stale references, history from the English lineage, linked
terms, clean glossary pairs, set names of editions (issue 24). One KB of every English edition, the
whole 和訳 20260116.0 and the Japanese seeds, as tests/test_today.py builds it."""

from __future__ import annotations

import re
import unicodedata

import pytest

from kb.store import Store
from kb.versions import editions, glossary, jahistory, releases, staleref
from tests._kbfixtures import LEGACY_55
from web import create_app

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def store(today_kb) -> Store:
    return today_kb


@pytest.fixture(scope="module")
def client(today_home):
    return create_app(today_home, {"WARMUP": False}).test_client()


def _v(store: Store, lang: str, label: str):
    return store.get_version("mtg", lang, label)


# -- 1. references printed with an outdated number ------------------------------------------------------
def test_every_reference_to_handling_illegal_actions_by_its_old_number_is_corrected(store):
    ja, en = _v(store, "ja", "20260116.0"), _v(store, "en", "20260116")
    assert store.node(ja, "731").title == "行動の省略" and store.node(ja, "732").title == "不正な処理の扱い"
    printed = [n.rule for n in store.nodes(ja) if "rule 731〔不正な処理の扱い〕" in n.text]  # read from the text itself
    fixes = staleref.stored(ja)["fixes"]
    by_clause = {f["clause"]: f for f in fixes}
    assert len(printed) >= 9 and all(by_clause[r]["meant"] == "732" for r in printed)
    for f in fixes:  # the English counterpart cites the rule meant, never the number printed
        cited = {r.rule for r in store.node(en, f["english"]).references}
        assert f["meant"] in cited and f["printed"] not in cited, f
    # without a title the lineage decides: 726.6's "rule 727" is 728 (Subgames), as 2025's 727 was
    assert (by_clause["726.6"]["meant"], by_clause["726.6"]["evidence"]) == ("728", ["renumbered"])
    assert by_clause["728.2"]["rules"] == [["727.2a", "728.2a"], ["727.2b", "728.2b"], ["727.2c", "728.2c"]]


def test_references_the_english_gets_wrong_or_the_text_names_are_left_as_printed(store):
    ja = _v(store, "ja", "20260116.0")
    fixed = {f["clause"] for f in staleref.stored(ja)["fixes"]}
    # 607.2m cites 614.12c, the anchor-word rule; the English cites 614.12b (its own stale number)
    assert "rule 614.12c" in store.node(ja, "607.2m").text and "607.2m" not in fixed
    assert "固定語" in store.node(ja, "614.12c").text
    # 701.27g's 729〔パーマネントの合同〕 is its own 729's title: what it cites, whatever the English says
    assert "rule 729〔パーマネントの合同〕" in store.node(ja, "701.27g").text and "701.27g" not in fixed
    # the 2008 translation too: 306.1 kept 308.4 where its own 308.5 skips the steps
    [old] = staleref.stored(_v(store, "ja", "5.5.0.0"))["fixes"]
    assert (old["clause"], old["printed"], old["meant"]) == ("306.1", "308.4", "308.5")


def test_the_references_page_counts_what_it_lists(client, store):
    data = client.get("/api/mtg/ja/20260116.0/references").get_json()
    fixes = staleref.stored(_v(store, "ja", "20260116.0"))["fixes"]
    assert data["stale"] == len(data["references"]) == len(fixes) and data["checked"] > 1000
    assert sum(c["count"] for c in data["by_change"]) == data["stale"]
    assert data["by_change"][0] == {"change": "731 → 732", "count": 9}
    row = next(v for v in client.get("/api/versions").get_json()["versions"] if v["version"] == "20260116.0")
    assert row["stale_references"] == data["stale"]  # /versions links the list from the version's row
    assert 'href="/mtg/ja/20260116.0/references"' in client.get("/versions").get_data(as_text=True)
    # the glossary's definitions print the same old numbers beside the titles that name the rule meant
    illegal = next(g for g in data["glossary"] if g["term"] == "不正な処理")
    assert (illegal["printed"], illegal["meant"]) == ("731", "732") and len(data["glossary"]) >= 10
    clause = client.get("/api/mtg/ja/20260116.0/509.1").get_json()
    assert [r for r in clause["references"] if r["printed"]] == [
        {"rule": "732", "raw": "rule 731〔不正な処理の扱い〕", "url": "/mtg/ja/20260116.0/732", "printed": "731"}
    ]


# -- 2. history from the English lineage -------------------------------------------------------------
def test_mana_burn_was_removed_when_the_english_removed_it(store, client):
    hist = jahistory.history(store, "mtg", "ja", "300.3", version="5.5.0.0", inline=False)
    kinds = [(e["version"], e["kind"], e.get("lang")) for e in hist["events"]]
    assert kinds[-2:] == [("5.5.0.0", "translation", "ja"), ("20090708", "removed", "en")]
    assert kinds[0][1:] == ("created", "en") and kinds[0][0] < "2000"
    assert hist["english"] == {"rule": "300.3", "version": "20081001", "current": None}
    page = client.get("/mtg/ja/5.5.0.0/300.3").get_data(as_text=True)
    assert "英語版 20090708 で削除されました" in page and "20260116.0 で削除" not in page
    assert 'href="/history/mtg/en/300.3?version=20081001"' in page


def test_an_old_rule_is_not_new_in_the_first_japanese_text_holding_it(store, client):
    hist = client.get("/api/history/mtg/ja/702.2c").get_json()["history"]
    created = hist["events"][0]
    assert created["kind"] == "created" and created["lang"] == "en" and created["version"] < "20260116"
    assert not any(e["version"] == "20260116.0" and e["kind"] != "translation" for e in hist["events"])
    assert hist["events"][-1]["kind"] == "translation" and hist["events"][-1]["version"] == "20260116.0"


def test_a_quote_newer_than_every_edition_is_only_estimated_to_render_the_newest(store, client):
    r = editions.rendering(_v(store, "ja", "20260807.0"))
    assert (r.label, r.method, r.exact, r.wanted) == ("20260116", editions.NEWER, False, "20260807")
    row = next(v for v in client.get("/api/versions").get_json()["versions"] if v["version"] == "20260807.0")
    assert row["pairing"] == {"method": editions.NEWER, "exact": False, "wanted": "20260807"}
    assert "→ en 20260807（未収録。推定で 20260116）" in client.get("/versions").get_data(as_text=True)


# -- 3. defined terms link -----------------------------------------------------------------------------
def test_terms_link_in_both_languages_and_not_inside_a_reference(client):
    ja = client.get("/api/mtg/ja/20260116.0/509.1").get_json()
    terms = {seg[0]: seg[3]["rule"] for seg in ja["segments"] if seg[3] and seg[3]["kind"] == "term"}
    assert terms.get("防御プレイヤー") == "506.2" and "不正な処理" not in terms  # that one is inside 〔…〕
    en = client.get("/api/mtg/en/20260116/702.19b").get_json()
    linked = [seg[0] for seg in en["segments"] if seg[3]]
    assert "lethal damage" in linked and "trample" not in linked  # 702.19b is in trample's own rule
    assert client.get("/api/glossary/mtg/en/lethal%20damage").get_json()["term"] == "Lethal Damage"


def test_a_rule_page_of_the_translation_has_each_clause_beside_its_english(client):
    data = client.get("/api/mtg/ja/20260116.0/509").get_json()
    assert data["bilingual"]
    assert all(d["other"] and d["other"]["rule"] == d["rule"] for d in data["descendants"])
    assert data["descendants"][0]["other"]["text"].startswith("First, the defending player declares blockers")


# -- 4. glossary pairs, cut texts ---------------------------------------------------------------------
def test_glossary_pairs_are_names_not_fragments(store):
    entries = [e for e in glossary.entries(store, "mtg", "ja")]
    terms = {e["term"]: e for e in entries}
    assert terms["火の技"]["counterpart"] == "Firebending"
    assert not [e["term"] for e in entries if re.match(r"\d{3}\.\d+", e["term"])]
    wide = [unicodedata.normalize("NFKC", e["term"]) for e in entries]  # 切除［コスト] is balanced
    brackets = [t for t in wide if t.count("[") != t.count("]") or t.count("{") != t.count("}")]
    assert not brackets and "1枚" not in terms and not any(e["english"] in ("a", "the") for e in entries)


def test_a_text_cut_off_on_its_only_line_is_reported_by_rule(tmp_path):
    from kb.build import ingest_into

    s = Store.create(str(tmp_path / "kb.sqlite"))
    report = ingest_into(s, str(LEGACY_55))
    assert "partial (ends early in rule 410, inside 410.8 (line 1))" in report.describe()
    s.close()


# -- 5. releases ----------------------------------------------------------------------------------------
def test_each_set_name_agrees_with_the_rules_its_edition_first_defines(store):
    held = [v for v in store.versions("mtg", "en") if not v.partial]
    titles = {v.label: {n.title for n in store.nodes(v) if n.title} for v in held}
    every = set().union(*titles.values())
    checked = 0
    for prev, v in zip(held, held[1:], strict=False):
        row = releases.table()[v.label]
        for name in filter(None, (x.strip() for x in row["checked"].split(";"))):
            if name in every:  # a keyword or rule title: new in this edition
                assert name in titles[v.label] and name not in titles[prev.label], (v.label, name)
                checked += 1
    assert checked > 150
    assert set(releases.table()) == {v.label for v in held}  # one row per edition, unknown ones blank


def test_diffs_are_labelled_by_their_sets_and_link_the_updates_around_them(client):
    data = client.get("/api/diff/mtg/en/20240607/20250207").get_json()
    assert (data["old"]["release"]["set"], data["new"]["release"]["set"]) == ("Modern Horizons 3", "Aetherdrift")
    assert (
        data["prev_update"]["url"] == "/diff/mtg/en/20240308/20240607" and data["prev_update"]["old_set"] == "Fallout"
    )
    assert data["next_update"]["url"] == "/diff/mtg/en/20250207/20250404"
    side = client.get("/api/diff/mtg/en/20250725/20250919?view=side").get_json()
    assert side["view"] == "side" and side["changes"]
    assert all(c["history_url"].startswith("/history/mtg/en/") for c in side["changes"])
    html = client.get("/diff/mtg/en/20250725/20250919?view=side").get_data(as_text=True)
    assert '<div class="sbs-old">' in html and "Edge of Eternities" in html and "Marvel&#39;s Spider-Man" in html
