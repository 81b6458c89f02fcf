"""`rulekb link` end to end: text report, JSON, --against, --junit, --save for the web app, user errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.home import STORE_FILE, Home
from kb.links import citations_for, saved
from tests._kbfixtures import build_store, english

pytestmark = pytest.mark.heavy  # a home of English editions with their lineage and index

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "engines"


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> str:
    root = tmp_path_factory.mktemp("home")
    with Home(root).new_generation() as gen:
        build_store(english("2015-01-23", "2026-01-16"), gen / STORE_FILE).close()
    return str(root)


def _run(home: str, *args: str):
    return CliRunner().invoke(cli, ["--home", home, "link", *args])


def test_text_report_lists_broken_links_with_suggestions(home, tmp_path):
    r = _run(home, str(shutil.copytree(FIXTURES / "staleness", tmp_path / "staleness")))
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("test_battle_cry.py:5: stale 702.90a -> 702.91a")
    assert lines[1].startswith("test_battle_cry.py:10: mismatch 702.90a -> 702.83a")
    assert lines[-1] == "3 citations against 20260116: mismatch 1, ok 1, stale 1"


def test_json_against_an_old_edition(home, tmp_path):
    # A copy outside the repository: no git dates, only what the comments say.
    tree = shutil.copytree(FIXTURES / "staleness", tmp_path / "staleness")
    r = _run(home, str(tree), "--against", "20150123", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["against"] == "20150123"
    assert [(c["line"], c["rule"], c["status"], c["suggest"]) for c in data["citations"]] == [
        (5, "702.90a", "ok", []),
        (10, "702.90a", "mismatch", ["702.82a"]),
        (14, "702.91a", "mismatch", ["702.90a"]),
    ]


def test_json_with_junit_results(home):
    r = _run(home, str(FIXTURES / "python"), "--json", "--junit", str(FIXTURES / "junit" / "pytest.xml"))
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    results = {(c["test"].rsplit("::", 1)[-1], c["rule"]): c.get("result") for c in data["citations"] if c["test"]}
    assert results[("test_marker", "509.1c")] == "fail"
    assert results[("test_excess_damage", "104.3a")] == "pass"
    assert results[("test_japanese", "509.1c")] == "skip"
    assert results[("test_Rules_111_4_Example1", "111.4")] is None  # not in the XML
    assert data["junit"]["cases"] == 5


def test_save_keeps_the_result_for_the_web_app(home):
    r = _run(home, str(FIXTURES / "go"), "--save")
    assert r.exit_code == 0, r.output
    store = Home(home).open_store()
    assert saved(store)["citations"][0]["file"] == "engine_test.go"
    assert [c["test"] for c in citations_for(store, "mtg", "502.2")] == ["TestUntap"]
    store.close()


def test_user_errors_are_one_line(home):
    r = _run(home, str(FIXTURES / "go"), "--against", "19990101")
    assert r.exit_code == 1
    assert "unknown version '19990101'" in r.output and "Traceback" not in r.output
    r = _run(home, str(FIXTURES / "go"), "--junit", str(FIXTURES / "junit" / "broken.xml"))
    assert r.exit_code == 1
    assert "broken.xml:4: not valid XML" in r.output


def test_skipped_files_are_warned_of_on_stderr_and_listed_in_json(home, tmp_path):
    tree = shutil.copytree(FIXTURES / "go", tmp_path / "go")
    (tree / "gone_test.go").symlink_to(tree / "nowhere.go")  # a dangling symlink: cannot be read
    r = CliRunner().invoke(cli, ["--home", home, "link", str(tree), "--json", "--no-git"])
    assert r.exit_code == 0, r.output
    why = f"{tree / 'gone_test.go'}: cannot read: No such file or directory"
    assert json.loads(r.stdout)["skipped"] == [why]  # stdout stays pure JSON
    assert r.stderr == f"rulekb: warning: {why} (skipped)\n"


def _forms(home, tmp_path, *args):
    tree = shutil.copytree(FIXTURES.parent / "forms", tmp_path / "forms")  # outside git: dated by headers only
    r = _run(home, str(tree), "--json", *args)
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def test_ranges_become_the_ids_of_the_edition_cited_against(home, tmp_path):
    data = _forms(home, tmp_path)

    def spanned(file, line):
        return [c["rule"] for c in data["citations"] if (c["file"], c["line"]) == (file, line) and c.get("range")]

    assert spanned("python/test_keywords.py", 15) == ["510.1", "510.2", "510.3"]
    assert spanned("typescript/Rules.tsx", 21) == [f"702.{n}" for n in range(170, 177)]
    assert spanned("python/test_keywords.py", 20) == ["500", "501", "502"]
    assert spanned("python/test_keywords.py", 21) == ["119.9", "119.10"]
    assert spanned("rust/src/keywords.rs", 13) == ["101", "102", "103", "104"]
    assert spanned("go/rules_test.go", 7) == ["405.1", "405.2", "405.3", "405.4", "405.5", "405.6"]
    assert {c["range"] for c in data["citations"] if c["line"] == 21 and c["file"] == "typescript/Rules.tsx"} == {
        "702.170-702.176"
    }


def test_a_range_newer_than_the_edition_keeps_its_ends(home, tmp_path):
    data = _forms(home, tmp_path, "--against", "20150123")
    rows = [(c["rule"], c["status"]) for c in data["citations"] if c.get("range") == "702.170-702.176"]
    assert rows == [("702.170", "orphan"), ("702.176", "orphan")]


def test_a_group_range_is_one_label_that_covers_nothing(home, tmp_path):
    data = _forms(home, tmp_path)
    labels = [c for c in data["citations"] if c["kind"] == "label"]
    assert [(c["file"], c["test"], c["range"]) for c in labels] == [
        ("java/src/test/java/forms/PartTwoTest.java", "PartTwoTest", "702.21-702.37"),
        ("kotlin/CombatSpec.kt", "CombatSpec.Rules 506-511", "506-511"),
        ("python/test_keywords.py", "python/test_keywords.py::TestPartTwo", "702.21-702.37"),
        ("typescript/Rules.tsx", "Part 2 (Rules 702.21-702.37)", "702.21-702.37"),
    ]
    assert labels[0]["span"] == [f"702.{n}" for n in range(21, 38)]
    cov = data["coverage"]
    assert "702.21" not in cov["clauses"] and "702.22" not in cov["clauses"]
    per_test = cov["citations_per_test"]
    assert per_test['Part 2 (Rules 702.21-702.37) > doesn\'t let ward be "ignored"'] == 2 + 7  # 702.21b, c; 702.170-176
    assert per_test["python/test_keywords.py::TestPartTwo::test_ward_counters"] == 1  # 702.21a, not the label


def test_embedded_copies_in_json_and_text(home, tmp_path):
    data = _forms(home, tmp_path)
    assert data["embedded"] == [
        {"file": "python/cr_copy.py", "edition": "20251114", "effective": "2025-11-14", "lines": 32}
    ]
    r = _run(home, str(tmp_path / "forms"))
    assert "python/cr_copy.py: embedded copy of the rules (edition 20251114, 32 lines), not scanned" in r.output


def test_coverage_leaves_out_mismatched_and_orphan_citations(home, tmp_path):
    tree = shutil.copytree(FIXTURES / "staleness", tmp_path / "staleness")
    data = json.loads(_run(home, str(tree), "--against", "20150123", "--json").output)
    assert [c["status"] for c in data["citations"]] == ["ok", "mismatch", "mismatch"]
    clauses = data["coverage"]["clauses"]
    assert clauses["702.90a"]["tests"] == ["test_battle_cry.py::test_battle_cry_pumps_other_attackers"]
    assert "702.91a" not in clauses
