"""Shared fixtures: a KB built from the bundled corpus, a browser, a CLI runner, the search KB."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.helpers import ARTIFACTS, cut_pieces


def pytest_configure(config) -> None:
    """Cut the pieces of the Japanese CR some ingestor tests read (from corpus/, once per checkout). No
    `rulekb search` of a test starts a search daemon (kb.remote.start_daemon) unless the test asks for one."""
    os.environ["RULEKB_DAEMON"] = "0"
    cut_pieces()


HEAVY_FIXTURES = {"kb", "searcher"}  # a search index over a whole English edition: a minute on a busy machine


def pytest_collection_modifyitems(items) -> None:
    """Mark ``heavy`` every test that uses a heavy fixture (``make test-fast`` leaves them out)."""
    for item in items:
        if HEAVY_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.heavy)


@pytest.fixture(scope="session")
def built_home(tmp_path_factory) -> Path:
    """A data home built from the bundled seeds (read-only for tests: copy before writing)."""
    from kb.build import build_kb
    from tests._kbfixtures import seed_corpus

    home = tmp_path_factory.mktemp("built-home")
    build_kb(home, seed_corpus(tmp_path_factory.mktemp("seed-corpus")))
    return home


@pytest.fixture(scope="session")
def today_kb():
    """Every English edition, the whole 和訳 20260116.0 and the Japanese seeds (tests._kbfixtures.today_store)."""
    from tests._kbfixtures import today_store

    return today_store()


@pytest.fixture(scope="session")
def today_home(today_kb, tmp_path_factory) -> Path:
    """A data home serving a copy of ``today_kb`` (no search index: search falls back to substrings)."""
    from tests._kbfixtures import home_of

    return home_of(today_kb, tmp_path_factory.mktemp("today") / "home")


@pytest.fixture(scope="session")
def today_url(today_home):
    """``today_home`` served by waitress on a free loopback port: its base URL."""
    from tests.helpers import served

    with served(today_home) as url:
        yield url


CHROMIUM = "/usr/bin/chromium"  # Debian's, installed by `make test`; Playwright's own download does not work here
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium driven by Playwright."""
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)  # screenshots and reports of the browser tests
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def cli():
    """Run ``rulekb`` in-process; returns (exit_code, stdout, stderr)."""
    from kb.cli import cli as group

    def run(*args: str):
        result = CliRunner().invoke(group, [str(a) for a in args], catch_exceptions=False)
        return result.exit_code, result.stdout, result.stderr

    return run


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    """Store + search index from the seeds, the newest English edition and the Duel Masters rules (no lineage:
    the index and search tests need texts only). Yields (store, index dir, build stats, progress calls)."""
    from tests._kbfixtures import search_kb

    calls = []
    store, index_dir, stats = search_kb(tmp_path_factory.mktemp("search-kb"), lambda d, t, w: calls.append((d, t, w)))
    yield store, index_dir, stats, calls
    store.close()


@pytest.fixture(scope="module")
def searcher(kb):
    """A searcher over the ``kb`` fixture."""
    from kb.search.searcher import Searcher

    store, index_dir, _, _ = kb
    return Searcher(store, index_dir)
