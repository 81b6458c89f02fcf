"""What the tests share besides fixtures: where things are, and ways to run the ``rulekb`` command.

The real rule texts are the bundled ones in ``corpus/`` (byte-exact; ``corpus/manifest.toml`` records
each file's sha256), plus two pieces cut from the whole Japanese CR for the ingestor tests; small
hand-made inputs live in ``tests/fixtures``. Fixtures live in ``conftest.py``; the stores built from
the texts in ``_kbfixtures.py``; the hand-made web KB in ``_webkb.py``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"  # the bundled texts the default build serves
CR_EN = CORPUS / "cr-en"  # the 120 English editions
CR_JA = CORPUS / "cr-ja"  # the whole 和訳 20260116.0
CR_JA_FULL = CR_JA / "JP_CR_20260116.0.txt"
DM_RULES = CORPUS / "dm-rules"
SEEDS = CORPUS  # the five texts the project began with sit at the top of corpus/ (000_….txt … 004_….txt)
FIXTURES = ROOT / "tests" / "fixtures"
ENGINES = FIXTURES / "engines"
ARTIFACTS = ROOT / "tests" / "artifacts"  # screenshots and reports a failing browser test leaves
PIECES = ROOT / "tests" / ".deps" / "cr-ja-pieces"  # made from corpus/ on first use; not committed

# Two pieces of the whole Japanese CR by character offsets, as the text was first found: its head (with
# the title) and its tail (no title). conftest.py cuts them from corpus/ before the tests run.
CR_JA_HEAD = PIECES / "JP_CR_20260116.0_lines_offset0-8167.txt"
CR_JA_TAIL = PIECES / "JP_CR_20260116.0_lines_offset500000-509905.txt"
_PIECES = {  # piece -> (first character, end, sha256)
    CR_JA_HEAD: (0, 8167, "0f533a9fd438f17ac805a22437f03517e1f30b25d283e9e80a02a00b2361d49f"),
    CR_JA_TAIL: (500000, 509905, "f79c43096d8a1bcaca87801fc2bccdfddaca858d79a88805b2412782b071ff22"),
}


def cut_pieces() -> None:
    """Write the pieces of the Japanese CR that are missing, each checked against its sha256."""
    for path, (first, end, sha) in _PIECES.items():
        if path.exists():
            continue
        data = CR_JA_FULL.read_bytes().decode("utf-8")[first:end].encode("utf-8")
        assert hashlib.sha256(data).hexdigest() == sha, f"{path.name}: the cut differs from the piece the tests expect"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, path)  # atomic: parallel test workers may cut it at once


_ENGLISH_NOTE = re.compile(
    r"^encoding (?P<encoding>.+?); line endings (?P<eol>.+?); effective line: (?P<effective_line>.*)$"
)


@functools.cache
def english_notes() -> dict[str, dict[str, str]]:
    """Per English edition file name, what corpus/manifest.toml notes of it: ``encoding``, ``eol`` (line
    endings) and ``effective_line`` (the sentence inside that states its date)."""
    from kb.build import BUNDLED_CORPUS, read_manifest

    notes = {}
    for e in read_manifest(BUNDLED_CORPUS):
        if e.format == "cr-en":
            m = _ENGLISH_NOTE.match(e.notes)
            assert m, f"corpus/manifest.toml: {e.path.name}: notes lack encoding, line endings or effective line"
            notes[e.path.name] = m.groupdict()
    return notes


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


def children(pid: int) -> set[int]:
    """Live child processes of ``pid`` (read from /proc)."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.add(int(stat.parent.name))
    return out


def wait_for(check, timeout: float = 30.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def processes_naming(arg: str | Path) -> dict[int, list[bytes]]:
    """pid -> argv of each live process with ``arg`` as one of its arguments (read from /proc)."""
    out = {}
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if str(arg).encode() in argv:
            out[int(cmdline.parent.name)] = argv
    return out


def alive(pid: int) -> bool:
    """``pid`` runs (a zombie, dead but not yet reaped, does not count)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False
