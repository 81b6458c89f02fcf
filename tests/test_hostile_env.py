"""Hostile environments and arguments: every failure is one line on stderr with exit 1, never a
traceback or click's usage text, and the KB is left byte-identical with nothing left behind.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests._hostile import copy_home, refused, snapshot
from tests.helpers import CR_EN, ENGINES, ROOT

EN = CR_EN / "MagicCompRules_2018-06-08.txt"
ENGINE = ENGINES / "python"


@pytest.fixture
def home(built_home, tmp_path) -> Path:
    return copy_home(built_home, tmp_path / "home")


def run(
    *args, home: Path | None = None, unprivileged: bool = False, timeout: float = 120
) -> subprocess.CompletedProcess:
    """The real ``rulekb`` in a subprocess (bytes arguments pass through as they are).

    ``unprivileged``: when the tests run as root, drop the capabilities that let root write where
    the permissions say no, so that a read-only directory means what it means for any user.
    """
    env = dict(os.environ, RULEKB_HOME=str(home)) if home else dict(os.environ)
    prefix = []
    if unprivileged and os.geteuid() == 0:
        prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]
    cmd = [*prefix, sys.executable, "-c", "from kb.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, env=env, timeout=timeout, cwd=ROOT)


def one_line(proc: subprocess.CompletedProcess) -> str:
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 1, (proc.returncode, proc.stdout, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and "Usage:" not in err, err
    return err.strip()


# --- the data home --------------------------------------------------------------------------------


def test_a_home_that_cannot_be_written_is_one_line_and_the_kb_stays(home):
    before = snapshot(home)
    home.chmod(0o555)
    try:
        proc = run("ingest", EN, home=home, unprivileged=True)
        line = one_line(proc)
        assert line.startswith(f"rulekb: cannot write to the data home {home}: Permission denied"), line
        proc = run("link", ENGINE, "--save", "--no-git", home=home, unprivileged=True)
        assert one_line(proc).startswith(f"rulekb: cannot write to the data home {home}: Permission denied")
    finally:
        home.chmod(0o755)
    assert snapshot(home) == before
    assert run("versions", home=home).returncode == 0


def test_a_home_that_cannot_be_created_leaves_nothing(tmp_path):
    parent = tmp_path / "locked"
    parent.mkdir()
    parent.chmod(0o555)
    try:
        line = one_line(run("ingest", EN, home=parent / "home", unprivileged=True))
    finally:
        parent.chmod(0o755)
    assert line.startswith(f"rulekb: cannot write to the data home {parent / 'home'}: Permission denied")
    assert list(parent.iterdir()) == []


def test_a_failed_first_ingest_leaves_no_empty_home(cli, tmp_path):
    bad = tmp_path / "empty.txt"
    bad.write_bytes(b"")
    code, _, err = cli("--home", tmp_path / "new-home", "ingest", bad)
    assert code == 1 and "empty file" in err
    assert not (tmp_path / "new-home").exists()


# --- special files and paths given as arguments ----------------------------------------------------


def test_a_directory_to_ingest_is_one_line_not_usage_text(cli, home, tmp_path):
    line = refused(cli, home, "ingest", tmp_path)
    assert line == f"rulekb: {tmp_path}: is a directory, not a file (give the files in it, e.g. DIR/*.txt)"


def test_an_unreadable_file_is_one_line(home, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_bytes(EN.read_bytes())
    secret.chmod(0)
    before = snapshot(home)
    line = one_line(run("ingest", secret, home=home, unprivileged=True))
    assert line == f"rulekb: {secret}: cannot read: permission denied"
    assert snapshot(home) == before


def test_a_fifo_is_refused_without_waiting_for_a_writer(home, tmp_path):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    before = snapshot(home)
    assert one_line(run("ingest", fifo, home=home, timeout=60)) == f"rulekb: {fifo}: not a regular file (a FIFO)"
    line = one_line(run("link", ENGINE, "--junit", fifo, "--no-git", home=home, timeout=60))
    assert line == f"rulekb: {fifo}: not a regular file (a FIFO)"
    assert snapshot(home) == before


def test_symlink_loops_are_named_as_such(cli, home, tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop")
    assert refused(cli, home, "ingest", loop) == f"rulekb: {loop}: symbolic link loop"
    assert refused(cli, home, "link", loop, "--no-git") == f"rulekb: {loop}: symbolic link loop"
    assert refused(cli, home, "link", ENGINE, "--junit", loop, "--no-git") == f"rulekb: {loop}: symbolic link loop"
    missing = tmp_path / "missing.txt"
    assert refused(cli, home, "ingest", missing) == f"rulekb: {missing}: no such file or directory"
    assert refused(cli, home, "build", "--corpus", missing).startswith(f"rulekb: {missing}: ")


def test_a_corpus_that_is_a_file_is_one_line(cli, home):
    assert refused(cli, home, "build", "--corpus", EN).startswith(f"rulekb: {EN}: ")


# --- arguments that are not UTF-8 -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((b"search", b"\xff\xfeblock"), "QUERY"),
        ((b"show", b"509.1\xe9"), "RULE"),
        ((b"search", b"x", b"--version", b"2024\x80"), "LABEL"),
    ],
    ids=["search", "show", "version"],
)
def test_bytes_that_are_not_utf8_in_a_text_argument(built_home, args, name):
    line = one_line(run(*args, home=built_home))
    bad = next(b for b in b"".join(args) if b >= 0x80)
    assert line.startswith(f"rulekb: argument {name} is not UTF-8 text (byte 0x{bad:02X} at character ")


def test_a_file_name_that_is_not_utf8_still_works_and_errors_print(home, tmp_path):
    name = os.fsencode(tmp_path) + b"/r\xe9gles.txt"
    with open(name, "wb") as fh:
        fh.write(b"")
    line = one_line(run(b"ingest", name, home=home))
    assert line == f"rulekb: {tmp_path}/r\\udce9gles.txt: empty file"  # the byte shown, escaped, on one line


# --- failures deep inside: recursion, SQLite, a full disk (simulated here; real in test_full_disk) ---


@pytest.mark.parametrize(
    ("failure", "message"),
    [
        (
            RecursionError("maximum recursion depth exceeded"),
            "rulekb: input nested too deeply to read (recursion limit reached)",
        ),
        (
            sqlite3.OperationalError("database or disk is full"),
            "rulekb: no space left on the device for the KB (database or disk is full): the KB was left as it was",
        ),
        (sqlite3.DatabaseError("file is not a database"), "rulekb: SQLite: file is not a database"),
        (
            OSError(errno.ENOSPC, "No space left on device", "/x/kb.sqlite"),
            "rulekb: no space left on the device (/x/kb.sqlite): the KB was left as it was",
        ),
        (MemoryError(), "rulekb: out of memory"),
    ],
    ids=["recursion", "sqlite-full", "sqlite-corrupt", "enospc", "memory"],
)
def test_failures_inside_ingest_are_one_line_and_leave_no_generation(cli, home, monkeypatch, failure, message):
    import ingest

    def fail(*_args, **_kwargs):
        raise failure

    monkeypatch.setattr(ingest, "parse_data", fail)
    assert refused(cli, home, "ingest", EN) == message


def test_deeply_nested_html_is_read_not_a_recursion_error(cli, tmp_path):
    depth = 5000
    html = (
        "<html><head><title>深い - MTG Wiki</title></head><body><h1 id='firstHeading'>深い</h1>"
        "<div class='mw-parser-output'>"
        + "<div>" * depth
        + "<p>引用：総合ルール 20231117.0 509.1を参照。</p>"
        + "<ul><li>項目" * 300
        + "</li></ul>" * 300
        + "</div>" * depth
        + "</div></body></html>"
    )
    page = tmp_path / "deep.html"
    page.write_text(html, encoding="utf-8")
    code, out, err = cli("--home", tmp_path / "home", "ingest", page, "--format", "mtgwiki")
    assert code == 0, err
    assert "article 深い" in out
    code, out, _ = cli("--home", tmp_path / "home", "search", "項目", "--json")
    assert code == 0 and '"article"' in out


def test_leftovers_of_a_failed_swap_are_removed(home, monkeypatch):
    from kb.home import Home

    before = snapshot(home)

    def no_rename(*_args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", no_rename)
    with pytest.raises(OSError), Home(home).new_generation(copy_current=True):
        pass
    monkeypatch.undo()
    assert snapshot(home) == before  # no gen-*, no .current-* link
    shutil.rmtree(home)
