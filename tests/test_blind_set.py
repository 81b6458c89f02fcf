"""The blind evaluation sets (queries, and judged citations) are frozen: their bytes match the hashes recorded when they were written."""

from __future__ import annotations

import hashlib

import pytest

from tests.helpers import ROOT

BLIND = ROOT / "bench" / "blind"
BLIND2 = ROOT / "bench" / "blind2"
BLIND3 = ROOT / "bench" / "blind3"
BLIND4 = ROOT / "bench" / "blind4"
BLIND5 = ROOT / "bench" / "blind5"
BLIND6 = ROOT / "bench" / "blind6"
BLIND7 = ROOT / "bench" / "blind7"
BLIND8 = ROOT / "bench" / "blind8"
BLIND9 = ROOT / "bench" / "blind9"
# Recorded here too, so a changed set cannot pass by rewriting its own SHA256SUMS beside it.
WRITTEN = {
    BLIND: "ca5b4e732181c4df1acb6a7cb6341edc14d9a2a2c0a2e223fd32e20dd0524265",
    BLIND2: "5fd7ca067e4d815af1c13b85ce0fbb40fcdfdfdeafb341c2075058eb244715fa",
    BLIND3: "170fa5e36f39dbfc4e02cf60b49b52bcd2cb17440b07c8868722f84764354f52",
    BLIND4: "510672a93d3cf3aec3388ff7e7010ffd2cd3104c6e1166c866c8a10400e222c4",
    BLIND5: "ce3dde0ee5b71f356eae1f866b641912b53e2fac9aa78a65d20ba014ba80880e",
    BLIND6: "22d1f1381c4032d811c980dac72d4a696da9886b6e63c5830a1d33631687ca4b",
    BLIND7: "f1fe8429e73ad23aba72d1e4ec744fc71e850a1ae3d1962dc1d4035d19b82496",
    BLIND8: "8fc911e1fb6e82f038c03485a9d74b31e82e3089bdbb121af40e5f9a1b2bde74",
    BLIND9: "fe023a9fc8071fffcaf182ae9658089792636bdcbe5dbc39dd5047100e3a624f",
}


@pytest.mark.parametrize(
    "folder",
    [BLIND, BLIND2, BLIND3, BLIND4, BLIND5, BLIND6, BLIND7, BLIND8, BLIND9],
    ids=["blind", "blind2", "blind3", "blind4", "blind5", "blind6", "blind7", "blind8", "blind9"],
)
def test_a_blind_set_is_byte_identical_to_its_recorded_hash(folder):
    recorded = dict(line.split()[::-1] for line in (folder / "SHA256SUMS").read_text().splitlines())
    digest = hashlib.sha256((folder / "queries.tsv").read_bytes()).hexdigest()
    assert digest == recorded["queries.tsv"] == WRITTEN[folder]


def test_the_blind_set_has_every_kind_it_promises():
    rows = [r.split("\t") for r in (BLIND / "queries.tsv").read_text(encoding="utf-8").splitlines()]
    kinds = [r[0] for r in rows if r[0] and not r[0].startswith("#")]
    assert len(kinds) >= 300 and kinds.count("question") >= 60 and kinds.count("multi") >= 40
    assert all(len(r) >= 3 for r in rows if r[0] and not r[0].startswith("#"))


def _loaded(folder):
    """bench/blind.py and the kinds of a frozen set's queries, as it loads them."""
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    import blind

    rows = blind.load(folder / "queries.tsv")
    return blind, rows, [k for k, _q, _e in rows]


def test_the_second_blind_set_parses_and_keeps_its_kinds():
    blind, rows, kinds = _loaded(BLIND2)
    assert len(rows) == 200 and kinds.count("question") == 55 and kinds.count("nonsense") == 10
    assert set(kinds) <= {k for group in blind.GROUPS.values() for k in group} | {"nonsense"}


@pytest.mark.parametrize(
    "folder",
    [BLIND3, BLIND4, BLIND5, BLIND6, BLIND7, BLIND8, BLIND9],
    ids=["blind3", "blind4", "blind5", "blind6", "blind7", "blind8", "blind9"],
)
def test_the_later_blind_sets_parse_and_keep_their_kinds(folder):
    blind, rows, kinds = _loaded(folder)
    assert len(rows) == 300 and kinds.count("question") == 100 and kinds.count("multi") == 45
    assert set(kinds) <= {k for group in blind.GROUPS.values() for k in group} | {"nonsense"}
    assert (folder / "queries.tsv") in blind.BLIND_SETS  # kept out of the ranker's training queries


def test_the_third_judged_citation_set_is_byte_identical_to_its_recorded_hash():
    judged = ROOT / "bench" / "links-judged" / "judged3.tsv"
    digest = hashlib.sha256(judged.read_bytes()).hexdigest()
    assert digest == "b6350f847ca0cb941007a2a922ba7ae89cc4e171d7c22839d670567a4c9f745a"
    assert digest in (judged.parent / "README.md").read_text(encoding="utf-8")


def test_the_fourth_judged_citation_set_is_byte_identical_to_its_recorded_hash():
    judged = ROOT / "bench" / "links-judged" / "judged4.tsv"
    digest = hashlib.sha256(judged.read_bytes()).hexdigest()
    assert digest == "c9ceb56d7102a404536b18d3ca48ef05e022d7a83bff7ee27b28b1cbaa8e8c8a"
    assert digest in (judged.parent / "README.md").read_text(encoding="utf-8")


def test_the_fifth_judged_citation_set_is_byte_identical_to_its_recorded_hash():
    judged = ROOT / "bench" / "links-judged" / "judged5.tsv"
    digest = hashlib.sha256(judged.read_bytes()).hexdigest()
    assert digest == "9c104175a032f950711e7d1c1923149f615785967c5585d5963fdb218c4f955d"
    assert digest in (judged.parent / "README.md").read_text(encoding="utf-8")


def test_the_sixth_judged_citation_set_is_byte_identical_to_its_recorded_hash():
    judged = ROOT / "bench" / "links-judged" / "judged6.tsv"
    digest = hashlib.sha256(judged.read_bytes()).hexdigest()
    assert digest == "545716d709c5b7e0a247b74e7638c97fd8b181974fcb6f72b8a1f59a8e53f450"
    assert digest in (judged.parent / "README.md").read_text(encoding="utf-8")


def test_the_seventh_judged_citation_set_is_byte_identical_to_its_recorded_hash():
    judged = ROOT / "bench" / "links-judged" / "judged7.tsv"
    digest = hashlib.sha256(judged.read_bytes()).hexdigest()
    assert digest == "b49733835d623f52c3b3069f4fff556b4be82ee528a1ddea27a3040d2fc1c87c"
    assert digest in (judged.parent / "README.md").read_text(encoding="utf-8")
