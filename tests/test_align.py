"""Japanese versions aligned with English editions: pairs, merges, missing headings, old numbering."""

from __future__ import annotations

import pytest

from kb.align import align
from tests._kbfixtures import full_store

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def store():
    return full_store()


def run(store, ja: str, en: str) -> dict:
    return align(store, store.get_version("mtg", "ja", ja), store.get_version("mtg", "en", en))


def by_b(result: dict) -> dict:
    return {p["b_rule"]: p for p in result["pairs"] if p["b_rule"]}


def test_viewer_509_7_holds_english_509_7_509_7a_and_509_7b(store):
    r = run(store, "20231117.0", "20231117")
    pairs = by_b(r)
    assert pairs["509.7"]["status"] == "paired"
    assert pairs["509.7a"] == {"a_rule": "509.7", "b_rule": "509.7a", "status": "merged"}
    assert pairs["509.7b"]["status"] == "merged" and pairs["509.7b"]["a_rule"] == "509.7"
    s = r["summary"]
    assert s["merged"] == 2 and s["missing_in_a"] == 0 and s["coverage"] == 1.0
    assert s["outside_scope"]["b"] > 2900  # the seeds hold rules 509 and 510 only


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
