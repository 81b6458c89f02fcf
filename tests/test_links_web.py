"""A saved link result as the web app shows it: the test coverage page and a clause's citing tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.home import STORE_FILE, Home
from tests._kbfixtures import build_store, english
from web import create_app

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "engines"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = tmp_path_factory.mktemp("web-links")
    with Home(root).new_generation() as gen:
        build_store(english("2015-01-23", "2026-01-16"), gen / STORE_FILE).close()
    tree = shutil.copytree(FIXTURES / "staleness", root / "engine")  # outside git: dated by comments only
    r = CliRunner().invoke(cli, ["--home", str(root), "link", str(tree), "--save"])
    assert r.exit_code == 0, r.output
    return create_app(root).test_client()


def test_coverage_page_shows_the_saved_run(client):
    data = client.get("/api/tests").get_json()
    assert data["saved"] is True and data["against"] == "20260116"
    assert data["status_counts"] == {"stale": 1, "mismatch": 1, "ok": 1}
    stale = data["problems"]["stale"][0]
    assert (stale["file"], stale["line"], stale["rule"], stale["suggest"]) == (
        "test_battle_cry.py",
        5,
        "702.90a",
        ["702.91a"],
    )
    page = client.get("/tests").get_data(as_text=True)
    assert "test_battle_cry.py:5" in page and "702.91a" in page


def test_clause_page_lists_the_tests_citing_it(client):
    resp = client.get("/api/mtg/en/20260116/702.91a")
    assert resp.status_code == 200, resp.data[:300]
    tests = resp.get_json()["tests"]
    assert [(t["test"], t["status"]) for t in tests] == [("test_battle_cry.py::test_quoted_battle_cry", "ok")]
