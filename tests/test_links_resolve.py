"""Resolving citations against real editions: ok / stale / orphan / mismatch, windows, suggestions, coverage."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kb.errors import InputError, NotFound
from kb.links import citations_for, forms, link, saved
from kb.links.extract import Cite
from kb.links.resolve import Resolver
from kb.store import Store
from tests._kbfixtures import build_store, english

pytestmark = pytest.mark.heavy  # a store of four English editions with their lineage

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "engines"
# Battle cry is 702.90 until 2021-02; the 2021-04 edition inserts a rule and it becomes 702.91.
EDITIONS = ["2015-01-23", "2021-02-02", "2021-04-19", "2026-01-16"]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    s = build_store(english(*EDITIONS), tmp_path_factory.mktemp("links") / "kb.sqlite")
    yield s
    s.close()


def _by_line(data: dict) -> dict:
    return {(c["file"], c["line"], c["rule"]): c for c in data["citations"]}


def test_battle_cry_written_in_2015_is_ok_then_stale_with_its_new_id(store):
    old = _by_line(link(store, [str(FIXTURES / "staleness")], against="20150123", git=False))
    c = old[("test_battle_cry.py", 5, "702.90a")]
    assert (c["status"], c["valid_from"], c["valid_to"], c["suggest"]) == ("ok", "20150123", "20210202", [])
    new = _by_line(link(store, [str(FIXTURES / "staleness")], git=False))
    c = new[("test_battle_cry.py", 5, "702.90a")]
    assert c["status"] == "stale"
    assert c["written_version"] == "20150123"
    assert c["suggest"][0] == "702.91a"
    assert (c["valid_from"], c["valid_to"]) == ("20150123", "20210202")  # the text the test was written for


def test_git_commit_date_dates_an_undated_citation(store, tmp_path):
    if shutil.which("git") is None:
        pytest.fail("git is needed for this test")
    repo = tmp_path / "engine"
    repo.mkdir()
    (repo / "test_cry.py").write_text('def test_battle_cry():\n    """CR 702.90a: each other attacker gets +1/+0."""\n')
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2015-06-01T12:00:00Z",
        "GIT_COMMITTER_DATE": "2015-06-01T12:00:00Z",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }
    for cmd in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-qm", "tests"]):
        subprocess.run(cmd, cwd=repo, env=env, check=True)
    c = link(store, [str(repo)])["citations"][0]
    assert (c["written"], c["written_from"], c["written_version"]) == ("2015-06-01", "git", "20150123")
    assert c["status"] == "stale" and c["suggest"][0] == "702.91a"
    assert c["test"] == "test_cry.py::test_battle_cry"
    # without git the same citation has no date: the id exists (as Infect), but the test's name and the
    # line's words are battle cry's, the clause 702.90a held before: a mismatch pointing at battle cry today
    c = link(store, [str(repo)], git=False)["citations"][0]
    assert (c["status"], c["written"], c["suggest"][:1]) == ("mismatch", None, ["702.91a"])


def test_keyword_that_names_another_rule_is_a_mismatch(store):
    new = _by_line(link(store, [str(FIXTURES / "staleness")], git=False))
    c = new[("test_battle_cry.py", 10, "702.90a")]  # "exalted: CR 702.90a" — 702.90 is Infect, exalted 702.83
    assert (c["status"], c["suggest"]) == ("mismatch", ["702.83a"])
    assert "exalted" in c["note"] and "infect" in c["note"]
    old = _by_line(link(store, [str(FIXTURES / "staleness")], against="20150123", git=False))
    assert old[("test_battle_cry.py", 10, "702.90a")]["suggest"] == ["702.82a"]  # exalted was 702.82 then


def test_quoted_text_is_compared_with_the_clause(store):
    # 702.91a quoting battle cry: right in 2026, wrong in 2015 (702.91 was Living Weapon; battle cry was 702.90a)
    new = _by_line(link(store, [str(FIXTURES / "staleness")], git=False))
    assert new[("test_battle_cry.py", 14, "702.91a")]["status"] == "ok"
    old = _by_line(link(store, [str(FIXTURES / "staleness")], against="20150123", git=False))
    c = old[("test_battle_cry.py", 14, "702.91a")]
    assert (c["status"], c["suggest"]) == ("mismatch", ["702.90a"])


def test_fixture_tree_statuses_against_2026(store):
    data = link(store, [str(FIXTURES)], git=False)
    assert data["against"] == "20260116"
    statuses = {(c["file"].rsplit("/", 1)[-1], c["line"], c["rule"], c["test"]): c["status"] for c in data["citations"]}
    not_ok = sorted((k, v) for k, v in statuses.items() if v != "ok")
    assert not_ok == [
        # its header "702.90. Battle Cry" fits the editions when battle cry was 702.90: written then, stale
        (("BattleCryKeywordTest.java", 7, "702.90", "BattleCryKeywordTest#testOtherAttackersGetBoost"), "stale"),
        # the javadoc copies 702.90a's text from an edition when battle cry was 702.90a: it went stale
        (("BattleCryKeywordTest.java", 9, "702.90a", "BattleCryKeywordTest#testOtherAttackersGetBoost"), "stale"),
        # "Battle cry: 702.90a" names the keyword 702.90 was until 2021: written then
        (("BattleCryTest.java", 6, "702.90a", "BattleCryTest#testTimestamps"), "stale"),
        (("BattleCryTest.java", 6, "702.90a", "BattleCryTest#test_104_3b_zero_life"), "stale"),
        (("BattleCryTest.java", 28, "708.4b", ""), "orphan"),
        (("blockers.test.ts", 9, "506.1", "declare blockers 509 (CR 509.1) > orders blockers"), "orphan"),
        (
            ("test_battle_cry.py", 5, "702.90a", "staleness/test_battle_cry.py::test_battle_cry_pumps_other_attackers"),
            "stale",
        ),
        (
            ("test_battle_cry.py", 10, "702.90a", "staleness/test_battle_cry.py::test_exalted_on_a_lone_attacker"),
            "mismatch",
        ),
        (("test_combat.py", 39, "506.1", "python/tests/test_combat.py::test_japanese"), "orphan"),
    ]
    by = _by_line(data)
    orphan = by[("java/src/test/java/org/mage/test/combat/BattleCryTest.java", 28, "708.4b")]
    assert orphan["kind"] == "code" and orphan["suggest"] == ["709.4b"]  # split cards moved from 708 to 709
    assert (orphan["valid_from"], orphan["valid_to"]) == ("20210419", "20210419")
    # XMage-style javadoc copying the old text of battle cry, id and all: the text is 702.91a's today
    quoted = by[("java/src/test/java/org/mage/test/keywords/BattleCryKeywordTest.java", 9, "702.90a")]
    assert quoted["suggest"] == ["702.91a"] and "the line is the text of the rules of 20210202" in quoted["note"]
    assert by[("java/src/test/java/org/mage/test/keywords/BattleCryKeywordTest.java", 7, "702.90")]["suggest"] == [
        "702.91"
    ]
    # 800.4a changed since 20150123 only in its examples ("his or her library" -> "their library"): ok, with a note
    editorial = by[("python/tests/test_combat.py", 30, "800.4a")]
    assert (editorial["status"], editorial["note"]) == ("ok", "editorial change since 20150123: pronouns, examples")
    assert (editorial["valid_from"], editorial["valid_to"]) == ("20150123", "20260116")
    dm = by[("python/tests/test_combat.py", 39, "506.1")]
    assert dm["game"] == "dm" and "no versions of dm" in dm["note"]


def test_every_citation_has_the_design_keys(store):
    data = link(store, [str(FIXTURES / "go")], git=False)
    keys = {"file", "line", "test", "rule", "raw", "status", "valid_from", "valid_to", "suggest", "note"}
    assert all(keys <= set(c) for c in data["citations"])
    assert set(data) >= {"against", "citations", "coverage"}


def test_unknown_version_is_a_user_error(store):
    with pytest.raises(NotFound, match="unknown version '19990101'"):
        link(store, [str(FIXTURES / "go")], against="19990101")
    with pytest.raises(InputError, match="no such file"):
        link(store, [str(FIXTURES / "nowhere")])


def test_coverage_per_section_rule_and_test(store):
    data = link(store, [str(FIXTURES)], junit=[str(FIXTURES / "junit" / "pytest.xml")], git=False)
    cov = data["coverage"]
    assert cov["version"] == "20260116" and cov["tests"] == 23
    assert cov["uncited_tests"] == []
    assert cov["citations_per_test"]["python/tests/test_combat.py::test_ranges"] == 7
    rule509 = next(r for r in cov["rules"] if r["rule"] == "509")
    assert rule509["covered_clauses"] == ["509.1", "509.1b", "509.1c", "509.1d"]
    assert "509.1a" in rule509["uncovered"] and "509.1a" in cov["uncovered"]
    assert rule509["total"] == rule509["covered"] + len(rule509["uncovered"])
    section5 = next(s for s in cov["sections"] if s["section"] == "5")
    assert section5["covered"] == sum(r["covered"] for r in cov["rules"] if r["rule"].startswith("5"))
    assert cov["total"] == sum(s["total"] for s in cov["sections"])
    # 509.1c: cited by a passing-less failing marker test, the Gherkin scenario, the TS test and test_japanese (skipped)
    c509 = cov["clauses"]["509.1c"]
    assert c509["fail"] == 1 and c509["skip"] == 1
    assert "python/tests/test_combat.py::TestTrample::test_marker" in c509["tests"]
    assert "708.4b" not in cov["clauses"]  # orphans and code links cover nothing


def test_save_then_read_back_for_the_web_app(store, tmp_path):
    copy = tmp_path / "kb.sqlite"
    store.conn.commit()
    shutil.copy(store.path, copy)
    writable = Store.open(str(copy), write=True)
    assert saved(writable) is None and citations_for(writable, "mtg", "509.1c") == []
    data = link(writable, [str(FIXTURES / "python")], save=True, git=False)
    writable.close()
    ro = Store.open(str(copy))
    back = saved(ro)
    assert back["against"] == "20260116" and back["citations"] == data["citations"]
    tests = [c["test"] for c in citations_for(ro, "mtg", "509.1c")]
    assert tests == ["tests/test_combat.py::TestTrample::test_marker", "tests/test_combat.py::test_japanese"]
    assert [c["rule"] for c in citations_for(ro, "dm", "506.1")] == ["506.1"]


@pytest.mark.parametrize(
    ("rule", "context", "status"),
    [
        ("702.19b", "CR 702.19b: trample; a creature with reach can still block it", "ok"),
        ("702.19b", 'CR 702.19b: "Colossal Dreadmaw" tramples over', "ok"),  # a card name is not rule text
        ("702.19b", "CR 702.19b: a blocked creature assigns its excess damage; later in this line: exalted", "ok"),
        ("702.19b", "exalted: CR 702.19b", "mismatch"),
        ("702.2b", "CR 702.19b & 702.2b: deathtouch and trample", "ok"),  # each keyword belongs to a cited id
        ("104.3a", "CR 104.3a: exalted", "ok"),  # only keyword rules are checked by keyword
        ("509.1c", 'CR 509.1c: "the defending player checks each creature they control"', "ok"),
        # a quote of another clause (508.1a) is evidence against; a paraphrase found nowhere in the rules is none
        ("509.1c", 'CR 509.1c: "chooses which creatures that they control, if any, will attack"', "mismatch"),
        ("509.1c", 'CR 509.1c: "the attacking player chooses which creatures attack"', "ok"),
    ],
)
def test_keyword_and_quote_checks(store, rule, context, status):
    r = Resolver(store, "mtg")
    cite = Cite(file="t.py", line=1, rule=rule, raw=rule, context=context)
    siblings = [f.rule for f in forms.find_ids(context)]
    assert r.resolve(cite, siblings)["status"] == status
