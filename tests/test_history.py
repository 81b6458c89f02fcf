"""Clause history across all 120 English editions and the Japanese texts (lineage built once)."""

from __future__ import annotations

import pytest

from kb.errors import NotFound, StoreError
from kb.store import Store
from kb.versions import history
from tests._kbfixtures import full_store

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def store():
    return full_store()


def moves(h: dict) -> list[tuple[str, str, str]]:
    return [(e["version"], e["old_rule"], e["rule"]) for e in h["events"] if e["kind"] == "moved"]


def test_handling_illegal_actions_follows_the_2009_overhaul_to_732(store):
    h = history.history(store, "mtg", "en", "732", inline=False)
    assert h["events"][0]["kind"] == "created" and h["events"][0]["rule"] == "422"
    assert h["events"][0]["version"] == "19990423"
    m = moves(h)
    assert m[0] == ("20090708", "422", "714")  # M10 renumbering
    assert m[-1] == ("20250725", "731", "732")
    ids = [r for _, _, r in m]
    assert ids == sorted(ids, key=int) and len(ids) >= 10  # renumbered forward, step by step
    assert h["current"] == "732"


def test_battle_cry_moves_702_88a_to_702_91a(store):
    h = history.history(store, "mtg", "en", "702.91a", inline=False)
    assert h["events"][0] == {
        "version": "20110204",
        "kind": "created",
        "rule": "702.88a",
        "old_rule": None,
        "editorial": False,
    }
    assert moves(h) == [
        ("20110617", "702.88a", "702.89a"),
        ("20130711", "702.89a", "702.90a"),
        ("20210419", "702.90a", "702.91a"),
    ]


def test_block_trigger_clause_moves_twice_then_foundations_renumbers_it(store):
    h = history.history(store, "mtg", "en", "509.3a", inline=False)
    assert moves(h) == [("20161111", "509.4a", "509.5a"), ("20250207", "509.5a", "509.3a")]
    assert h["lineage"][0]["rule"] == "509.4a"


def test_history_of_an_old_id_in_an_old_edition_follows_it_forward(store):
    h = history.history(store, "mtg", "en", "422.1", version="20090501", inline=False)
    assert h["current"] == "732.1" and ("20090708", "422.1", "714.1") in moves(h)


def test_edits_carry_an_inline_diff(store):
    h = history.history(store, "mtg", "ja", "509.1")
    edit = h["events"][-1]
    assert edit["version"] == "20260807.0" and edit["kind"] == "edited" and edit["reference_only"]
    assert ["-", "728"] in edit["inline"] and ["+", "733"] in edit["inline"]


def test_removed_clause_ends_with_a_removed_event(store):
    h = history.history(store, "mtg", "en", "509.2a", version="20240607", inline=False)
    assert h["events"][-1]["kind"] == "removed" and h["events"][-1]["version"] == "20250207"
    assert h["current"] is None


def test_valid_window_and_successor_of_battle_cry(store):
    # 2014-05-01 only turned straight quotes curly: the meaning, and so the window, did not change
    assert history.valid_window(store, "mtg", "en", "702.90a", "20150123") == ("20130711", "20210224")
    assert history.successor(store, "mtg", "en", "702.90a", "20150123") == [("702.91a", "20210419")]
    assert history.successor(store, "mtg", "en", "509.2a", "20240607") == [(None, "20250207")]
    assert history.valid_window(store, "mtg", "en", "999.9", "20150123") == (None, None)


def test_lineage_ids_and_carry(store):
    ids = history.lineage_ids(store, "mtg", "en", "702.91a")
    assert ids[0] == ("20110204", "702.88a") and ids[-1][1] == "702.91a"
    assert history.carry(store, "mtg", "en", ["309.2", "422.1"], "20081001", "20260116") == {
        "309.2": "509.1",
        "422.1": "732.1",
    }


def test_unknown_rule_is_not_found(store):
    with pytest.raises(NotFound):
        history.history(store, "mtg", "en", "999.99")


def test_a_store_without_lineage_is_refused_with_a_clear_error(tmp_path):
    from ingest import parse_file
    from tests._kbfixtures import english

    store = Store.create(str(tmp_path / "bare.sqlite"))  # texts stored, nothing derived: not a KB generation
    for p in english("2024-06-07", "2025-02-07"):
        store.add(parse_file(str(p)), path=str(p), sha256=p.name)
    with pytest.raises(StoreError, match="no clause lineage: rebuild it with `rulekb build`"):
        history.history(store, "mtg", "en", "509.3a", inline=False)


def test_japanese_history_reaches_the_old_translation_through_the_english_lineage(store):
    h = history.history(store, "mtg", "ja", "509.1e", inline=False)
    # 5.5.0.0 follows English 20081001, where 309.2c became 509.1e at the 2009 renumbering
    assert h["events"][0] == {
        "version": "5.5.0.0",
        "kind": "created",
        "rule": "309.2c",
        "old_rule": None,
        "editorial": False,
    }
    assert moves(h) == [("20231117.0", "309.2c", "509.1e")]


def test_without_english_the_undated_translation_stands_alone(tmp_path):
    from tests._kbfixtures import JAPANESE, build_store

    store = build_store(JAPANESE, tmp_path / "ja.sqlite")
    h = history.history(store, "mtg", "ja", "509.1", inline=False)
    assert [e["version"] for e in h["events"]] == ["20231117.0", "20260807.0"]  # 5.5.0.0 is not chained
    assert history.history(store, "mtg", "ja", "309.2")["events"] == [
        {"version": "5.5.0.0", "kind": "created", "rule": "309.2", "old_rule": None, "editorial": False}
    ]


def test_a_read_only_store_reads_each_lineage_link_as_the_sql_does(store):
    """A read-only store reads the lineage once into memory (history walks ask for links hundreds of
    thousands of times in `rulekb link`): every link, and every clause without one, reads the same."""
    ro = Store.open(store.path)
    assert not ro.writable
    keys = [
        (d, vid, rule)
        for old_vid, old_rule, new_vid, new_rule in store.conn.execute(
            "SELECT old_vid, old_rule, new_vid, new_rule FROM lineage"
        )
        for d, vid, rule in (("fwd", old_vid, old_rule), ("back", new_vid, new_rule))
        if rule is not None
    ]
    keys += [("fwd", 1, "999.99z"), ("back", 2, "100.1")]  # no change stored: None either way
    assert len(keys) > 1000
    from_memory = [ro.lineage_link(*k) for k in keys]
    ro.writable = True  # the statement path, as a store being built reads it
    assert [ro.lineage_link(*k) for k in keys] == from_memory
    ro.close()
