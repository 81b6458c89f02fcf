"""Shared fixtures: the shared corpora, a KB built from the bundled corpus, a CLI runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CR_EN = SHARED / "corpora" / "cr-en"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return SHARED


@pytest.fixture(scope="session")
def built_home(tmp_path_factory) -> Path:
    """A data home built from the bundled seeds (read-only for tests: copy before writing)."""
    from kb.build import build_kb
    from tests._kbfixtures import seed_corpus

    home = tmp_path_factory.mktemp("built-home")
    build_kb(home, seed_corpus(tmp_path_factory.mktemp("seed-corpus")))
    return home


CHROMIUM = "/usr/bin/chromium"  # Debian's, installed by `make test`; Playwright's own download does not work here
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]  # fmt: skip


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium driven by Playwright."""
    from playwright.sync_api import sync_playwright

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


def rulekb(*args: str, home: Path | None = None, check: bool = False, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run the real ``rulekb`` entry point in a subprocess."""
    env = dict(os.environ)
    if home is not None:
        env["RULEKB_HOME"] = str(home)
    proc = subprocess.run(
        [sys.executable, "-c", "from kb.cli import main; main()", *map(str, args)],
        capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT,
    )  # fmt: skip
    if check and proc.returncode != 0:
        raise AssertionError(f"rulekb {' '.join(map(str, args))} failed ({proc.returncode}): {proc.stderr}")
    return proc


def rulekb_json(*args: str, home: Path):
    return json.loads(rulekb(*args, "--json", home=home, check=True).stdout)
