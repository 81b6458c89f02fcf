"""Clause ids: parsing, validity, order and parents."""

import pytest

from kb import ruleid


@pytest.mark.parametrize(
    ("raw", "norm"),
    [
        ("509.1c", "509.1c"),
        ("５０９．１ｃ", "509.1c"),
        ("rule 509.1c", "509.1c"),
        ("ルール509.1c", "509.1c"),
        ("CR 702.19b", "702.19b"),
        ("309.2.", "309.2"),
    ],
)
def test_normalize(raw, norm):
    assert ruleid.normalize(raw) == norm


def test_levels_and_parents():
    assert [ruleid.level(r) for r in ("5", "509", "509.1", "509.1c")] == ["section", "rule", "clause", "subclause"]
    assert ruleid.parent("509.1c") == "509.1"
    assert ruleid.parent("704.5aa") == "704.5"
    assert ruleid.ancestors("509.1c") == ["5", "509", "509.1"]
    assert ruleid.parent("5") is None


def test_letters_l_and_o_are_not_sub_rules():
    assert ruleid.is_valid("509.1k")
    assert not ruleid.is_valid("509.1l")
    assert not ruleid.is_valid("509.1o")
    assert not ruleid.is_valid("1000.1")
    assert not ruleid.is_valid("abc")


def test_document_order():
    ids = ["509.10", "509.1aa", "5", "509.2", "509.1", "509.1z", "509", "509.1a"]
    assert sorted(ids, key=ruleid.sort_key) == ["5", "509", "509.1", "509.1a", "509.1z", "509.1aa", "509.2", "509.10"]
