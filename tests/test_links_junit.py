"""JUnit XML from pytest, Maven Surefire and Gradle: pass/fail/skip per test found by the scanner."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.errors import InputError
from kb.links import junit
from kb.links.extract import FoundTest, scan_tree

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "engines"
JUNIT = FIXTURES / "junit"


def test_read_pytest_xml():
    cases = junit.read(str(JUNIT / "pytest.xml"))
    assert [(c.classname, c.name, c.result) for c in cases] == [
        ("python.tests.test_combat.TestTrample", "test_excess_damage", "pass"),
        ("python.tests.test_combat.TestTrample", "test_marker", "fail"),
        ("python.tests.test_combat", "test_ranges[1]", "pass"),
        ("python.tests.test_combat", "test_ranges[2]", "skip"),
        ("python.tests.test_combat", "test_japanese", "skip"),
    ]


def test_results_match_the_scanned_tests_of_each_runner():
    tests = scan_tree([str(FIXTURES)]).tests
    cases = [
        c
        for name in ("pytest.xml", "TEST-org.mage.test.combat.BattleCryTest.xml", "gradle-kotlin.xml")
        for c in junit.read(str(JUNIT / name))
    ]
    assert junit.results(cases, tests) == {
        "python/tests/test_combat.py::TestTrample::test_excess_damage": "pass",
        "python/tests/test_combat.py::TestTrample::test_marker": "fail",
        "python/tests/test_combat.py::test_ranges": "pass",  # one parameter passed, one skipped
        "python/tests/test_combat.py::test_japanese": "skip",
        "BattleCryTest#testTimestamps": "pass",
        "BattleCryTest#test_104_3b_zero_life": "fail",  # <error> counts as a failure
        "StackTest#see rule 405 for the stack": "pass",  # Gradle appends "()"
        "StackTest#test_601_2e_casting": "skip",
    }


def test_a_failing_parameter_fails_the_test():
    t = FoundTest("m.py::test_x", "m.py", 1, "m", "test_x", "python")
    cases = [
        junit.Case("m", "test_x[a]", "pass"),
        junit.Case("m", "test_x[b]", "fail"),
        junit.Case("m", "test_x[c]", "skip"),
    ]
    assert junit.results(cases, [t]) == {"m.py::test_x": "fail"}


def test_name_only_match_needs_a_unique_name():
    a = FoundTest("A#test_it", "A.java", 1, "A", "test_it", "java")
    b = FoundTest("B#test_it", "B.java", 1, "B", "test_it", "java")
    assert junit.results([junit.Case("other.C", "test_it", "pass")], [a, b]) == {}
    assert junit.results([junit.Case("other.C", "test_it", "pass")], [a]) == {"A#test_it": "pass"}


def test_broken_xml_names_file_and_line():
    with pytest.raises(InputError) as err:
        junit.read(str(JUNIT / "broken.xml"))
    assert str(err.value).startswith(f"{JUNIT / 'broken.xml'}:4: not valid XML")


def test_xml_that_is_not_junit_is_refused(tmp_path):
    f = tmp_path / "pom.xml"
    f.write_text("<project><modelVersion>4.0.0</modelVersion></project>")
    with pytest.raises(InputError, match="not JUnit XML"):
        junit.read(str(f))


def test_rust_and_go_cases_match_by_path_or_unique_name():
    tests = scan_tree([str(FIXTURES / "rust"), str(FIXTURES / "go")]).tests
    cases = [
        junit.Case("engine-crate", "tests::assigns_lethal_damage_first", "fail"),
        junit.Case("github.com/example/engine", "TestUntap", "pass"),
    ]
    assert junit.results(cases, tests) == {"tests::assigns_lethal_damage_first": "fail", "TestUntap": "pass"}
