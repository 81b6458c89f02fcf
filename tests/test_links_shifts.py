"""An engine that follows a newer numbering than the KB's newest: its runs of absent ids one rule or one
sub-rule off are read as that numbering (kb.links.shifts), and each gets the clause it stands for."""

from __future__ import annotations

import pytest

from kb.links import link
from kb.links.shifts import learn, shifted
from tests._kbfixtures import store_of

LIVE = {"310.8", "310.8a", "310.8b", "310.9", "310.11", "310.11a", "310.11b", "728.5", "728.5c", "729.1", "729.2a"}


def test_runs_of_absent_ids_one_number_off_are_learned_with_their_support():
    cited = [("310.12a", ("a", 1)), ("310.12b", ("a", 9)), ("310.9a", ("b", 1)), ("310.9b", ("b", 2))]
    cited += [("729.5", ("c", 1)), ("729.5c", ("d", 1)), ("310.8a", ("e", 1))]  # a live id supports nothing
    got = learn(cited, LIVE)
    assert got == {"310.12": [("310.11", 2)], "310.9": [("310.8", 2)], "729": [("728", 2)]}
    assert shifted("310.12b", got) == [("310.11b", "310.12", 2)]
    assert shifted("729.5c", got) == [("728.5c", "729", 2)]
    assert shifted("310.11a", got) == []


def test_one_absent_id_or_one_place_is_no_numbering():
    assert learn([("310.12a", ("a", 1))], LIVE) == {}
    assert learn([("310.12a", ("a", 1)), ("310.12b", ("a", 1))], LIVE) == {}  # "310.12a-b": one place


@pytest.fixture(scope="module")
def store():
    return store_of("2026-01-16")


def test_an_engine_on_a_newer_numbering_gets_the_clauses_it_means(store, tmp_path):
    (tmp_path / "BattleSpec.hs").write_text(
        "-- CR 310.9a: the controller chooses the protector as the battle enters\n"
        "-- CR 310.9b: the protector can never attack it\n"
        "-- CR 310.12a: only an opponent of a Siege's controller may protect it\n"
        "-- CR 310.12b: exile it, then cast it transformed\n"
    )
    (tmp_path / "Subgame.hs").write_text(
        "-- CR 729.1a: the subgame is a completely separate game\n-- CR 729.5: when the subgame ends\n"
    )
    got = {c["rule"]: c for c in link(store, [str(tmp_path)], git=False)["citations"]}
    firsts = {r: c["suggest"][0] for r, c in got.items()}
    assert firsts == {
        "310.9a": "310.8a",
        "310.9b": "310.8b",
        "310.12a": "310.11a",
        "310.12b": "310.11b",
        "729.1a": "728.1a",
        "729.5": "728.5",
    }
    assert "absent ids this tree cites under 310.12 all stand there" in got["310.12b"]["why"]


def test_a_rule_that_fits_both_ways_moves_as_its_neighbours_did():
    live = {f"{r}.{n}" for r in (722, 723, 724, 725, 726, 728) for n in (3, 5)} | {
        "726.5a",
        "728.5a",
        "729.2a",
        "729.2b",
    }
    cited = [(f"{r}.{n}", (f"f{r}", n)) for r in (723, 724) for n in (3, 5)]  # 723 -> 722, 724 -> 723 (down)
    cited += [("727.3", ("g", 1)), ("727.5a", ("g", 2))]  # 726.x and 728.x both hold these numbers
    cited += [("729.5", ("h", 2)), ("729.3", ("h", 3))]  # 729 moved down as a whole ...
    cited += [("729.1a", ("h", 4)), ("729.1b", ("h", 5))]  # ... though 729.2a and 729.2b are live
    got = learn(cited, live)
    assert got["727"] == [("726", 2)] and got["729"] == [("728", 2)]
    assert "729.1" not in got  # ... so its 729.1a is not 729.2a
