"""What the tests share besides fixtures: where things are, and ways to run the ``rulekb`` command.

The real rule texts are read from ``../shared`` (beside the checkout): the whole corpora, and the pieces
of the Japanese CR the ingestor tests cut from it. Fixtures live in ``conftest.py``; the stores built
from those texts in ``_kbfixtures.py``; the hand-made web KB in ``_webkb.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"  # the bundled texts the default build serves
SHARED = ROOT.parent / "shared"
CORPORA = SHARED / "corpora"
CR_EN = CORPORA / "cr-en"
CR_JA = CORPORA / "cr-ja"
DM_RULES = CORPORA / "dm-rules"
SEEDS = SHARED / "seeds"
FIXTURES = ROOT / "tests" / "fixtures"
ENGINES = FIXTURES / "engines"
ARTIFACTS = ROOT / "tests" / "artifacts"  # screenshots and reports a failing browser test leaves


@dataclass
class Run:
    """What one ``rulekb`` command did: its exit code and what it wrote."""

    returncode: int
    stdout: str
    stderr: str


def rulekb(*args: str | Path, home: Path | None = None, check: bool = False) -> Run:
    """Run the ``rulekb`` command in-process (click's CliRunner, as the shell would call it, with
    ``RULEKB_HOME`` set). An exception the command did not turn into its one-line error fails the test."""
    from click.testing import CliRunner

    from kb.cli import cli

    env = {"RULEKB_HOME": str(home)} if home is not None else {}
    result = CliRunner().invoke(cli, [str(a) for a in args], env=env, prog_name="rulekb")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    run = Run(result.exit_code, result.stdout, result.stderr)
    if check and run.returncode != 0:
        raise AssertionError(f"rulekb {' '.join(map(str, args))} failed ({run.returncode}): {run.stderr}")
    return run


def rulekb_process(*args: str | Path, home: Path) -> subprocess.Popen:
    """Start the real ``rulekb`` entry point in its own process (for what in-process runs cannot show:
    a kill in the middle of a build)."""
    env = dict(os.environ, RULEKB_HOME=str(home))
    return subprocess.Popen(
        [sys.executable, "-c", "from kb.cli import main; main()", *map(str, args)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def rulekb_json(*args: str, home: Path):
    return json.loads(rulekb(*args, "--json", home=home, check=True).stdout)


@contextlib.contextmanager
def served(home: Path) -> Iterator[str]:
    """The web app of ``home`` served by waitress on a free loopback port: its base URL."""
    from web.server import start_in_thread

    server = start_in_thread(home)
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        server.close()


def home_with(built: Path, dest: Path, *editions: Path) -> Path:
    """A copy of the built data home ``built`` at ``dest`` with more English editions ingested."""
    import shutil

    from ingest.common import Hints
    from kb.build import ingest_files

    shutil.copytree(built, dest, symlinks=True)
    ingest_files(dest, [str(p) for p in editions], lambda _path: Hints())
    return dest


def first(searcher, q: str, **kw) -> dict:
    """The first hit of a search that must find something."""
    hits = searcher.search(q, **kw)
    assert hits, f"no hits for {q!r}"
    return hits[0]
