"""End-to-end CLI: build the bundled corpus, read it back, refuse bad input without touching the KB."""

from __future__ import annotations

import codecs
import fcntl
import hashlib
import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from tests.helpers import CORPUS, CR_EN, alive, children, rulekb, rulekb_json, rulekb_process

VIEWER_HEAD = "総合ルールビューア\n5. ターンの構造\n509. ブロック・クリーチャー指定ステップ\n"


@pytest.fixture
def home(built_home, tmp_path) -> Path:
    """A private, writable copy of the built KB."""
    dst = tmp_path / "home"
    shutil.copytree(built_home, dst, symlinks=True)
    return dst


def snapshot(home: Path) -> tuple:
    """What must not change when input is refused: the live generation and its bytes."""
    live = os.readlink(home / "current")
    digest = hashlib.sha256((home / live / "kb.sqlite").read_bytes()).hexdigest()
    return live, digest, sorted(p.name for p in home.glob("gen-*"))


def test_versions_of_the_bundled_corpus(built_home):
    rows = {(r["game"], r["lang"], r["version"]): r for r in rulekb_json("versions", home=built_home)}
    viewer = rows[("mtg", "ja", "20231117.0")]
    assert (viewer["clauses"], viewer["documents"], viewer["effective"]) == (36, 2, "2023-11-17")
    quote = rows[("mtg", "ja", "20260807.0")]
    assert quote["partial"] is True and quote["clauses"] == 2
    legacy = rows[("mtg", "ja", "5.5.0.0")]
    assert legacy["effective"] is None and legacy["clauses"] == 472
    assert set(rows[("mtg", "ja", "20231117.0")]) >= {
        "game",
        "lang",
        "version",
        "effective",
        "partial",
        "clauses",
        "headings",
        "terms",
        "documents",
    }


def test_show_clause_with_context(built_home):
    data = rulekb_json("show", "509.1b", "--version", "20231117.0", home=built_home)
    assert data["rule"] == "509.1b" and data["parent"] == "509.1"
    assert "回避能力" in data["text"] and len(data["examples"]) == 1
    head = rulekb_json("show", "509.1", "--version", "20231117.0", home=built_home)
    assert "728" in head["references"]
    assert head["children"][:3] == ["509.1a", "509.1b", "509.1c"]
    newer = rulekb_json("show", "509.1", "--version", "20260807.0", home=built_home)
    assert "733" in newer["references"]
    heading = rulekb_json("show", "509", "--version", "20231117.0", home=built_home)
    assert heading["title"] == "ブロック・クリーチャー指定ステップ" and heading["parent"] == "5"


def test_show_accepts_user_notation(built_home):
    data = rulekb_json("show", "５０９．１ｃ", "--version", "20231117.0", home=built_home)
    assert data["rule"] == "509.1c"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("show", "999.9z", "--version", "20231117.0"), "999.9z is not in mtg/ja/20231117.0"),
        (("show", "509.1", "--version", "19000101"), "unknown version '19000101'"),
        (("show", "not-a-rule"), "not a clause id"),
    ],
)
def test_unknown_rules_and_versions_exit_1_with_one_line(built_home, args, message):
    proc = rulekb(*args, home=built_home)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_usage_errors_exit_2(built_home):
    assert rulekb("show", home=built_home).returncode == 2
    assert rulekb("search", "x", "--limit", "0", home=built_home).returncode == 2


def test_missing_kb_is_a_clear_error(tmp_path):
    proc = rulekb("versions", home=tmp_path / "empty")
    assert proc.returncode == 1 and "run `rulekb build` first" in proc.stderr


def _bad_inputs(tmp: Path) -> list[tuple[list[str], str, str]]:
    """(ingest arguments, expected file:line prefix, expected message) for each kind of bad input."""
    empty = tmp / "empty.txt"
    empty.write_bytes(b"")
    binary = tmp / "blob.txt"
    binary.write_bytes(b"509.1 ok\n" + bytes(range(256)) * 4)
    utf16 = tmp / "cut16.txt"
    utf16.write_bytes(codecs.BOM_UTF16_LE + (VIEWER_HEAD + "- 509.1 まず\n").encode("utf-16-le") + b"\x30")
    english = tmp / "english.txt"
    english.write_text("Just some English prose.\nNothing here is a rule.\n")
    dup = tmp / "dup.txt"
    dup.write_text(VIEWER_HEAD + "- 509.1 まず。\n- 509.1a 次に。\n- 509.1a もう一度。\n", encoding="utf-8")
    order = tmp / "order.txt"
    order.write_text(VIEWER_HEAD + "- 509.1 まず。\n- 509.2 次に。\n- 509.1b 戻る。\n", encoding="utf-8")
    return [
        ([str(empty)], f"{empty}", "empty file"),
        ([str(binary)], f"{binary}:2", "binary"),
        ([str(utf16)], f"{utf16}:5", "truncated UTF-16"),
        ([str(english), "--format", "cr-en"], f"{english}", "no"),
        ([str(dup)], f"{dup}:6", "duplicate clause id 509.1a"),
        ([str(order)], f"{order}:6", "509.1b out of order"),
    ]


def test_bad_input_is_refused_and_the_kb_is_untouched(home, tmp_path):
    before = snapshot(home)
    versions_before = rulekb("versions", "--json", home=home).stdout
    for args, where, message in _bad_inputs(tmp_path):
        proc = rulekb("ingest", *args, home=home)
        assert proc.returncode == 1, (args, proc.stdout, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1, proc.stderr
        assert lines[0].startswith(f"rulekb: {where}"), (where, lines[0])
        assert message in lines[0], lines[0]
        assert "Traceback" not in proc.stderr
        assert snapshot(home) == before
    assert rulekb("versions", "--json", home=home).stdout == versions_before


@pytest.mark.heavy
def test_ingest_says_what_it_detected_and_is_all_or_nothing(home, tmp_path):
    en = CR_EN / "MagicCompRules_2023-11-17.txt"
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    before = snapshot(home)
    proc = rulekb("ingest", en, empty, home=home)
    assert proc.returncode == 1 and snapshot(home) == before
    proc = rulekb("ingest", en, home=home)
    assert proc.returncode == 0, proc.stderr
    assert "format cr-en" in proc.stdout and "mtg/en/20231117" in proc.stdout
    rows = {(r["lang"], r["version"]) for r in rulekb_json("versions", home=home)}
    assert ("en", "20231117") in rows and ("ja", "20231117.0") in rows
    again = rulekb("ingest", en, home=home)
    assert again.returncode == 0 and "already ingested" in again.stdout
    hits = rulekb_json("search", "blocked creature", "--lang", "en", home=home)
    assert hits and hits[0]["version"] == "20231117"


@pytest.mark.heavy
def test_build_killed_mid_way_leaves_the_previous_kb_readable(home, tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    entries = [f'[[document]]\npath = "{p}"\nformat = "cr-en"\n' for p in sorted(CR_EN.glob("*.txt"))[-40:]]
    (corpus / "manifest.toml").write_text("\n".join(entries))
    before = snapshot(home)
    versions_before = rulekb("versions", "--json", home=home).stdout
    proc = rulekb_process("build", "--corpus", corpus, home=home)  # a real process, to be killed
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            fresh = [g for g in home.glob("gen-*") if g.name not in before[2] and (g / "kb.sqlite").exists()]
            if fresh and (fresh[0] / "kb.sqlite").stat().st_size > 1_000_000:
                break
            assert proc.poll() is None, "the build finished before it could be killed"
            time.sleep(0.05)
        else:
            pytest.fail("the build never started writing")
        workers = children(proc.pid)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    # Its forked workers go with it: none is left holding the home's writer lock, so the next build may run.
    assert workers, "the build had no worker processes to check"
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in workers if alive(pid)]
    with open(home / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)  # BlockingIOError while a worker of the killed build lives
    assert snapshot(home)[:2] == before[:2]
    assert rulekb("versions", "--json", home=home).stdout == versions_before
    data = json.loads(rulekb("show", "509.1", "--version", "20231117.0", "--json", home=home, check=True).stdout)
    assert "728" in data["references"]


@pytest.mark.heavy
def test_same_file_with_other_overrides_is_another_document(home):
    seed = CORPUS / "003_1192bed475bff8cb.txt"
    proc = rulekb("ingest", seed, "--version", "20240101.0", home=home)
    assert proc.returncode == 0 and "mtg/ja/20240101.0" in proc.stdout, proc.stdout + proc.stderr
    again = rulekb("ingest", seed, "--version", "20240101.0", home=home)
    assert "already ingested" in again.stdout
    labels = {r["version"] for r in rulekb_json("versions", home=home)}
    assert {"20231117.0", "20240101.0"} <= labels
    assert rulekb("diff", "20231117.0", "20231117.0", home=home).stdout.startswith("no changes between")


@pytest.mark.heavy
def test_align_latest_means_the_other_language(home):
    en = CR_EN / "MagicCompRules_2023-11-17.txt"
    assert rulekb("ingest", en, home=home).returncode == 0
    data = rulekb_json("align", "20231117.0", "latest", home=home)
    assert (data["a"], data["b"]) == ("20231117.0", "20231117")


def test_generations_are_readable_by_other_users(built_home):
    live = built_home / os.readlink(built_home / "current")
    assert live.stat().st_mode & 0o055 == 0o055
