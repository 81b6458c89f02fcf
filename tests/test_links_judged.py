"""Verdicts on the note forms that real engines write (bench/links-judged): two ids with two keywords on a
line, a keyword named as a player or inflected, and a note running on after its id."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.links import link
from kb.links.reading import inflections
from tests._kbfixtures import store_of

TREE = Path(__file__).resolve().parent / "fixtures" / "judged"
NOTES = "python/test_notes.py"

# (line, rule): status — 702.16 was shroud in 20090708, protection today; 702.18 is shroud today
EXPECTED = {
    (5, "702.16b"): "ok",  # shroud is the other id's keyword today, not 702.16b's of 2009
    (5, "702.18"): "ok",
    (10, "702.22j"): "ok",  # "defender must assign": the defending player, not the ability
    (15, "301.5"): "ok",
    (15, "702.16d"): "ok",  # 702.16d speaks of being "equipped": the line's "equip" is its topic
    (18, "122.2"): "ok",  # a note after the id (a dash, a second id), not the clause's text
    (18, "400.7"): "ok",
    (19, "606.4"): "ok",  # runs on in lower case: a note about 606.4
}


@pytest.fixture(scope="module")
def verdicts() -> dict:
    data = link(store_of("2009-07-08", "2026-01-16"), [str(TREE)], git=False)
    return {(c["line"], c["rule"]): c for c in data["citations"] if c["file"] == NOTES}


def test_every_fixture_citation_is_expected(verdicts):
    assert set(verdicts) == set(EXPECTED)


@pytest.mark.parametrize("key", sorted(EXPECTED), ids=lambda k: f"{k[0]}:{k[1]}")
def test_status(verdicts, key):
    c = verdicts[key]
    assert (c["status"], c["suggest"]) == (EXPECTED[key], []), c["note"]


def test_a_keyword_of_one_consonant_doubles_it():
    assert {"equipped", "equipping"} <= set(inflections("equip"))
    assert {"plotted", "plotting"} <= set(inflections("plot"))
    assert "flashhed" not in inflections("flash")
    assert "shroudded" not in inflections("shroud")
