"""Japanese versions aligned with English editions: pairs, merges, missing headings, old numbering."""

from __future__ import annotations

import pytest

from kb.versions.align import align
from tests._kbfixtures import full_store

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def store():
    return full_store()


def run(store, ja: str, en: str) -> dict:
    return align(store, store.get_version("mtg", "ja", ja), store.get_version("mtg", "en", en))


def by_b(result: dict) -> dict:
    return {p["b_rule"]: p for p in result["pairs"] if p["b_rule"]}


def test_viewer_509_7_translates_english_509_7_alone_so_509_7a_and_b_are_missing(store):
    # The viewer's 509.7 paragraph is as long as a translation of English 509.7 alone and ends with
    # its last sentence: 509.7a and 509.7b are not in it, so they are missing, not merged.
    r = run(store, "20231117.0", "20231117")
    pairs = by_b(r)
    assert pairs["509.7"]["status"] == "paired"
    assert pairs["509.7a"] == {"a_rule": None, "b_rule": "509.7a", "status": "missing_in_a"}
    assert pairs["509.7b"]["status"] == "missing_in_a"
    s = r["summary"]
    assert s["merged"] == 0 and s["missing_in_a"] == 2 and s["coverage"] < 1.0
    assert s["outside_scope"]["b"] > 2900  # the seeds hold rules 509 and 510 only


def test_a_paragraph_holding_its_sub_clauses_text_is_a_merge_with_evidence(tmp_path):
    from ingest import parse_text
    from ingest.common import Hints
    from kb.build import derive
    from kb.store import Store
    from tests._kbfixtures import VIEWER_509, VIEWER_510, english

    # The viewer page with 509.7a and 509.7b (as today's 509.4a/509.4b read) run into 509.7's paragraph.
    sub_a = "効果がクリーチャーを特定のクリーチャーをブロックしている状態で戦場に出す場合、その効果の解決時点でブロックするべきクリーチャーがすでに攻撃クリーチャーでなくなっていたなら、そのクリーチャーは戦場に出るが、ブロック・クリーチャーとしては扱われない。また、戦場にブロックしている状態で出るクリーチャーのコントローラーが、指定された攻撃クリーチャーの防御プレイヤーでない場合も同様である。"
    sub_b = "ブロックしている状態で戦場に出るクリーチャーは、そのブロック・クリーチャー指定に関する強制や制限の影響を受けない。"
    text = VIEWER_509.read_text(encoding="utf-8")
    line = next(x for x in text.split("\n") if x.startswith("- 509.7 "))
    text = text.replace(line, line + sub_a + sub_b)
    store = Store.create(str(tmp_path / "kb.sqlite"))
    store.add(parse_text(text, Hints(format="viewer", path="viewer.txt")), path="viewer.txt", sha256="v")
    page = VIEWER_510.read_text(encoding="utf-8")  # a page after it: 509 is not where the piece stops
    store.add(parse_text(page, Hints(format="viewer", path="510.txt")), path="510.txt", sha256="w")
    en = english("2023-11-17")[0]
    store.add(
        parse_text(
            en.read_text(encoding="utf-8-sig").replace("\r\n", "\n").replace("\r", "\n"),
            Hints(format="cr-en", path=str(en)),
        ),
        path=str(en),
        sha256="e",
    )
    derive(store)
    r = align(store, store.get_version("mtg", "ja", "20231117.0"), store.get_version("mtg", "en", "20231117"))
    pairs = by_b(r)
    assert (pairs["509.7a"]["status"], pairs["509.7a"]["a_rule"]) == ("merged", "509.7")
    ev = pairs["509.7b"]["evidence"]
    assert pairs["509.7b"]["status"] == "merged" and ev["subclauses"] == ["509.7a", "509.7b"]
    assert abs(ev["length_with_subclauses"] - 1) < abs(ev["length_alone"] - 1)


def test_paired_clauses_carry_evidence_from_numbers_and_terms(store):
    r = run(store, "20231117.0", "20231117")
    ev = by_b(r)["509.1a"]["evidence"]
    assert ev["confidence"] > 0.5
    assert 0.3 < r["summary"]["length_ratio"] < 0.8  # Japanese runs about half as many characters


def test_missing_721_in_the_japanese_20260116_contents(store):
    r = run(store, "20260116.0", "20260116")
    pairs = by_b(r)
    assert pairs["721"] == {"a_rule": None, "b_rule": "721", "status": "missing_in_a"}
    assert pairs["720"]["status"] == "paired" and pairs["722"]["status"] == "paired"
    assert pairs["100.1"]["status"] == "paired" and "evidence" in pairs["100.1"]
    assert "104.1" not in pairs  # the head piece stops in rule 103: later clauses are out of scope
    assert r["summary"]["missing_in_a"] == 1


def test_old_translation_aligns_with_its_best_edition_by_id(store):
    r = run(store, "5.5.0.0", "20081001")
    assert r["summary"]["bridge"] is None
    pairs = by_b(r)
    assert pairs["309.2"]["status"] == "paired" and pairs["309.2"]["a_rule"] == "309.2"
    assert r["summary"]["paired"] > 500


def test_old_numbering_is_connected_to_today_through_the_english_history(store):
    r = run(store, "5.5.0.0", "20260116")
    assert r["summary"]["bridge"] == "20081001"
    via = {p["a_rule"]: p for p in r["pairs"] if p["a_rule"]}
    assert via["309.2"]["b_rule"] == "509.1" and via["309.2"]["bridge_rule"] == "309.2"
    assert via["309.2b"]["b_rule"] == "509.1d"
    assert via["309"]["b_rule"] == "509"


def test_a_two_clause_quote_is_no_split_and_no_missing_clauses(store):
    r = align(store, store.get_version("mtg", "ja", "20231117.0"), store.get_version("mtg", "ja", "20260807.0"))
    assert {p["status"] for p in r["pairs"]} == {"paired"}
    assert {p["a_rule"] for p in r["pairs"]} >= {"509.1", "509.1c"}
