"""Version order and the estimated date of the undated 5.5.0.0 translation."""

from __future__ import annotations

import pytest

from kb.versions import order
from tests import helpers
from tests._kbfixtures import LEGACY_55, build_store, full_store, store_of


@pytest.mark.slow
def test_old_translation_is_placed_just_before_the_2009_renumbering():
    store = full_store()
    v = store.get_version("mtg", "ja", "5.5.0.0")
    est = v.meta["estimated"]
    assert est["best"] == "20081001" and est["score"] > 0.95
    # old numbering (blocking is 309), and planeswalker loyalty (rule 209, Lorwyn 2007-10) already there
    assert "2007-10-01" <= est["from"] <= est["to"] < "2009-07-08"
    assert v.sort_date == "2008-10-01"
    labels = [x.label for x in store.versions("mtg", "ja")]
    assert labels[0] == "5.5.0.0"  # sorts first among the Japanese versions once estimated


@pytest.mark.slow
def test_best_edition_beats_the_renumbered_ones_by_far():
    store = full_store()
    v = store.get_version("mtg", "ja", "5.5.0.0")
    scores = {e.label: s for s, e in order.score_editions(store, v, store.versions("mtg", "en"))}
    assert scores["20081001"] - scores["20090708"] > 0.3  # after M10 the ids no longer agree
    assert scores["20081001"] > scores["19990423"]


def test_japanese_dated_version_sorts_with_its_english_edition():
    store = store_of("2023-11-17", japanese=True)  # the fact needs one edition and its translation
    ja = store.get_version("mtg", "ja", "20231117.0")
    en = store.get_version("mtg", "en", "20231117")
    assert ja.sort_date == en.sort_date == "2023-11-17"
    assert order.english_label("20231117.0") == "20231117" and order.english_label("5.5.0.0") is None


def test_place_undated_is_harmless_without_english_editions(tmp_path):
    store = build_store([LEGACY_55], tmp_path / "ja.sqlite")
    order.place_undated(store)
    v = store.get_version("mtg", "ja", "5.5.0.0")
    assert "estimated" not in v.meta and order.is_undated(v)


def test_no_estimate_when_no_held_edition_matches(tmp_path):
    """The 2008 translation next to only a 2026 edition stays undated rather than dated 2026."""
    from ingest import parse_file
    from kb.store import Store
    from kb.versions.order import estimate, place_undated

    st = Store.create(str(tmp_path / "kb.sqlite"))
    for path in (helpers.CORPUS / "004_141578bca00711b0.txt", helpers.CR_EN / "MagicCompRules_2026-01-16.txt"):
        st.add(parse_file(str(path)), path=str(path), sha256=path.name)
    st.commit()
    legacy = st.find_version("5.5.0.0")
    assert estimate(st, legacy) is None
    place_undated(st)
    assert st.find_version("5.5.0.0").meta.get("estimated") is None
    assert st.get_version("mtg", "ja", "latest").label == "5.5.0.0"  # the only Japanese version
