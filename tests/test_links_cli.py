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

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "engines"


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> str:
    root = tmp_path_factory.mktemp("home")
    with Home(root).new_generation() as gen:
        build_store(english("2015-01-23", "2026-01-16"), gen / STORE_FILE, lineage=False).close()
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
