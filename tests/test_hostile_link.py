"""Hostile trees for ``rulekb link``: scanning a stranger's engine runs none of its code, every scan is
linear in its input, and a tree the scan cannot walk is named. Each test builds its own tree."""

from __future__ import annotations

import json
import os
import random
import shutil
import stat
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.links import gitdates, scan, scanner, units
from kb.links.owners import Owners
from tests._kbfixtures import home_of, store_of

COMMITTED = "2020-01-02T03:04:05Z"
TEST_FILE = 'def test_trample():\n    # CR 702.19b: excess damage\n    assert True\n\n\ndef test_other():\n    """rule 509.1c"""\n'
HOOKS = [
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
    "post-index-change",
]


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> str:
    """A data home with the English editions of 2015-01-23 and 2026-01-16 (copy it before writing)."""
    return str(home_of(store_of("2015-01-23", "2026-01-16"), tmp_path_factory.mktemp("home")))


def git(repo: Path, *args: str) -> None:
    """Run git as the tree's author would (fixed dates, no user configuration)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_DATE=COMMITTED,
        GIT_COMMITTER_DATE=COMMITTED,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.org",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.org",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
    )
    subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)


def trap(root: Path, marker: Path, name: str) -> str:
    """A script that records that it ran (and passes its input through, as a filter would)."""
    script = root / f"trap-{name}.sh"
    script.write_text(f'#!/bin/sh\necho "{name} $*" >> "{marker}"\ncat\n')
    script.chmod(0o755)
    return str(script)


def hostile_repo(root: Path, marker: Path) -> Path:
    """A committed tree whose repository configures a command for everything git might run."""
    if shutil.which("git") is None:
        pytest.fail("git is needed for this test")
    repo = root / "engine"
    repo.mkdir()
    (repo / "test_rules.py").write_text(TEST_FILE)
    (repo / ".gitattributes").write_text("* diff=evil filter=evil merge=evil\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "tests")
    hooks = root / "hooks"
    hooks.mkdir()
    for hook in HOOKS:
        for where in (hooks, repo / ".git" / "hooks"):
            shutil.copy(trap(root, marker, f"hook-{hook}"), where / hook)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text("* diff=evil filter=evil\n")
    included = root / "included.gitconfig"
    included.write_text(f"[core]\n\tfsmonitor = {trap(root, marker, 'included-fsmonitor')}\n")
    with open(repo / ".git" / "config", "a") as fh:
        fh.write(
            f"[core]\n\tfsmonitor = {trap(root, marker, 'fsmonitor')}\n\thooksPath = {hooks}\n"
            f"\tpager = {trap(root, marker, 'pager')}\n\tsshCommand = {trap(root, marker, 'ssh')}\n"
            f'[diff "evil"]\n\ttextconv = {trap(root, marker, "textconv")}\n\tcommand = {trap(root, marker, "diff")}\n'
            f"[diff]\n\texternal = {trap(root, marker, 'external-diff')}\n"
            f'[filter "evil"]\n\tclean = {trap(root, marker, "clean")}\n\tsmudge = {trap(root, marker, "smudge")}\n'
            f"\tprocess = {trap(root, marker, 'process')}\n"
            f'[merge "evil"]\n\tdriver = {trap(root, marker, "merge")}\n'
            f"[include]\n\tpath = {included}\n"
            f'[includeIf "gitdir:{repo}/"]\n\tpath = {included}\n'
        )
    return repo


def test_git_dating_runs_nothing_the_scanned_repository_configures(home, tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    repo = hostile_repo(tmp_path, marker)
    # A changed work tree: an uncommitted line above the citations, so git would read and convert the file.
    (repo / "test_rules.py").write_text("# a local note\n" + TEST_FILE)
    # What a hook that ran rulekb would leave in the environment must not steer git either.
    monkeypatch.setenv("GIT_DIR", str(tmp_path))
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", trap(tmp_path, marker, "env-external-diff"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.fsmonitor'='{trap(tmp_path, marker, 'env-fsmonitor')}'")

    dates = gitdates.line_dates(str(repo / "test_rules.py"))
    assert not marker.exists(), marker.read_text()
    when = {line: d.isoformat() for line, d in dates.items()}
    assert when[3] == "2020-01-02" and when[8] == "2020-01-02" and 1 not in when  # line 1 is not committed

    r = CliRunner().invoke(cli, ["--home", home, "link", str(repo), "--json"])
    assert r.exit_code == 0, r.output
    assert not marker.exists(), marker.read_text()
    cited = {(c["line"], c["rule"]): (c["written"], c["written_from"]) for c in json.loads(r.stdout)["citations"]}
    assert cited == {(3, "702.19b"): ("2020-01-02", "git"), (8, "509.1c"): ("2020-01-02", "git")}


def test_the_plain_git_blame_would_have_run_them(tmp_path):
    """The trap is real: git's own ``blame`` of the same tree runs the repository's commands."""
    marker = tmp_path / "ran"
    repo = hostile_repo(tmp_path, marker)
    (repo / "test_rules.py").write_text("# a local note\n" + TEST_FILE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "-C", str(repo), "blame", "--", "test_rules.py"], env=env, capture_output=True)
    ran = marker.read_text()
    assert "fsmonitor" in ran and "textconv" in ran and "process" in ran


def test_a_partial_clone_fetches_nothing(tmp_path):
    """A missing blob makes git fetch from the promisor remote: an ``ext::`` URL would run a command."""
    marker = tmp_path / "ran"
    source = tmp_path / "source"
    source.mkdir()
    (source / "test_rules.py").write_text(TEST_FILE)
    git(source, "init", "-q")
    git(source, "add", ".")
    git(source, "commit", "-qm", "tests")
    git(source, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-checkout", "--filter=blob:none", f"file://{source}", str(clone))
    (clone / "test_rules.py").write_text(TEST_FILE)
    git(clone, "config", "remote.origin.url", f"ext::{trap(tmp_path, marker, 'ext')} %S")
    git(clone, "config", "protocol.ext.allow", "always")
    assert gitdates.line_dates(str(clone / "test_rules.py")) == {}
    assert not marker.exists(), marker.read_text()


def test_lines_are_matched_to_the_commit_as_blame_would():
    committed = [b"a", b"b", b"c", b"d"]
    assert gitdates.match_lines([b"a", b"b", b"c", b"d"], committed) == [(0, 0), (1, 1), (2, 2), (3, 3)]
    assert sorted(gitdates.match_lines([b"new", b"a", b"b", b"x", b"d"], committed)) == [(1, 0), (2, 1), (4, 3)]
    assert gitdates.match_lines([], committed) == []


def test_a_fifo_named_as_the_tree_is_named_as_what_it_is(home, tmp_path):
    fifo = tmp_path / "tests.fifo"
    os.mkfifo(fifo)
    r = CliRunner().invoke(cli, ["--home", home, "link", str(fifo)])
    assert r.exit_code == 1
    assert r.stderr.strip().splitlines() == [f"rulekb: {fifo}: a FIFO, not a directory or a regular file"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # nothing opened it (an open would have blocked this test)


def nest(root: Path, name: str, depth: int, leaf: str) -> Path:
    """``depth`` directories ``name`` inside each other under ``root`` (through directory descriptors: the
    path may grow longer than the system lets a path be), with ``leaf`` written as a test file at the bottom."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        out = os.open("test_deep.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, leaf.encode())
        os.close(out)
    finally:
        os.close(fd)
    return root


def unnest(root: Path, name: str) -> None:
    """Remove what ``nest`` made, from the bottom up, without recursion or long paths."""
    fds = [os.open(root, os.O_RDONLY)]
    while name in os.listdir(fds[-1]):
        fds.append(os.open(name, os.O_RDONLY, dir_fd=fds[-1]))
    os.unlink("test_deep.py", dir_fd=fds[-1])
    while len(fds) > 1:
        os.close(fds.pop())
        os.rmdir(name, dir_fd=fds[-1])
    os.close(fds[0])


@pytest.mark.parametrize(("name", "reached"), [("d", True), ("directory", False)], ids=["990-deep", "past-PATH_MAX"])
def test_a_tree_990_directories_deep_is_scanned(home, tmp_path, name, reached):
    """No recursion: the bottom file is read; where its path grows past what the system allows, the
    directory that could not be listed is named and the rest of the tree still scanned."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "test_top.py").write_text("def test_top():\n    # CR 702.19b\n    pass\n")
    nest(tree, name, 990, "def test_bottom():\n    # CR 509.1c\n    pass\n")
    try:
        r = CliRunner().invoke(cli, ["--home", home, "link", str(tree), "--json"])
    finally:
        unnest(tree, name)
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    cited = sorted((c["file"].count("/"), c["rule"]) for c in data["citations"])
    assert cited == ([(0, "702.19b"), (990, "509.1c")] if reached else [(0, "702.19b")])
    if not reached:
        [skip] = data["skipped"]
        assert skip.startswith(f"{tree}/{name}/{name}/") and skip.endswith(
            ": cannot read directory: File name too long"
        )
        assert r.stderr.count("rulekb: warning: ") == 1 and skip in r.stderr


# --- every scan linear ------------------------------------------------------------------------------

SOUP = ['"', "'", "`", "\\", "\n", "/", "*", "#", "r", "b", "$", "@", "x", " ", '"""', "'''", "\\\n", "f", "{", "}"]


@pytest.mark.parametrize("language", sorted(set(scanner.LANGUAGES.values()) - {"gherkin"}))
def test_the_lexer_finds_what_the_plain_alternation_finds(language):
    """Random source soup (quotes, escapes, comment markers, newlines): the same matches as ``re.finditer``."""
    lexer = scanner._LEXERS[language]
    plain = lexer.plain()
    rng = random.Random(language)
    for _ in range(3000):
        text = "".join(rng.choice(SOUP) for _ in range(rng.randrange(1, 40)))
        assert [m.span() for m in lexer.finditer(text)] == [m.span() for m in plain.finditer(text)], repr(text)


UNCLOSED = {
    "python double quotes": ("test_q.py", lambda n: 'x = "CR 702.19b ' + '\\"' * n + "\n"),
    "python single quotes": ("test_q.py", lambda n: "x = 'CR 702.19b " + "\\'" * n + "\n"),
    "typescript single quotes": ("q.test.ts", lambda n: "const s = 'CR 702.19b " + "\\'" * n + ";\n"),
    "typescript template": ("q.test.ts", lambda n: "const s = `CR 702.19b " + "\\`" * n + "\\\n"),
    "java double quotes": ("QTest.java", lambda n: 'String s = "CR 702.19b ' + '\\"' * n + ";\n"),
    "rust byte string": ("q.rs", lambda n: 'let s = b"CR 702.19b ' + '\\"' * n + ";\n"),
}


@pytest.mark.parametrize("case", list(UNCLOSED))
def test_a_string_that_never_closes_is_scanned_in_linear_time(tmp_path, case):
    """8x the escaped quotes take about 8x the time, not 64x (the plain alternation took 0.3 s at 5,000
    quotes and 21 s at 40,000)."""
    assert_linear(tmp_path, *UNCLOSED[case], 5000)


def assert_linear(tmp_path: Path, name: str, make, n: int, cites: bool = False) -> None:
    """Scanning ``make(8 * n)`` takes less than 16x scanning ``make(n)`` (a quadratic scan takes 64x):
    best of three CPU times, with room for a loaded machine."""

    def seconds(size: int) -> float:
        path = tmp_path / name
        path.write_text(make(size))
        best = float("inf")
        for _ in range(3):
            t0 = time.process_time()
            found = scan([str(path)])
            best = min(best, time.process_time() - t0)
        assert not cites or len(found) >= size  # every level's citation is read
        return best

    small, large = seconds(n), seconds(8 * n)
    assert large < 16 * small + 0.05, (small, large)


def test_a_file_name_that_is_not_utf8_is_scanned_and_saved(home, tmp_path):
    from tests._hostile import copy_home

    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / os.fsdecode(b"test_\xff.py")).write_text("def test_a():\n    # CR 702.19b\n    pass\n")
    writable = copy_home(Path(home), tmp_path / "home")
    r = CliRunner().invoke(cli, ["--home", str(writable), "link", str(tree), "--save", "--json"])
    assert r.exit_code == 0, r.output
    [c] = json.loads(r.stdout)["citations"]
    assert (c["file"], c["test"], c["rule"]) == ("test_\\xff.py", "test_\\xff.py::test_a", "702.19b")


NESTED = {
    "typescript describes": ("n.test.ts", lambda n: 'describe("a", () => { // CR 702.19b\n' * n),
    "java classes with tests": ("NTest.java", lambda n: "class A { // rule 509.1c\n @Test void t() {}\n" * n),
    "kotlin specs": ("n.kt", lambda n: 'context("x") { // CR 702.19b\n' * n),
    "python that never dedents": (
        "test_n.py",
        lambda n: "".join(" " * (i % 64) + f"class T{i}:\n" + " " * (i % 64 + 1) + "# CR 702.19b\n" for i in range(n)),
    ),
}


@pytest.mark.parametrize("case", list(NESTED))
def test_blocks_nested_thousands_deep_are_scanned_in_linear_time(tmp_path, case):
    """8x the nesting takes about 8x the time (owners were found from the roots down, test ids and Python
    block ends by walking the whole depth: 25x per 4x)."""
    assert_linear(tmp_path, *NESTED[case], 500, cites=True)


def test_a_test_id_names_the_innermost_classes_only():
    from kb.links.units import MAX_NESTING

    src = scanner.lex(scanner.SourceFile("N.java", "N.java", "java", "class A {\n" * 100 + "@Test void t() {}\n"))
    [test] = [f for f in units.iter_frames(units.frames(src)) if f.test]
    assert test.id == ".".join(["A"] * MAX_NESTING) + "#t"


@pytest.mark.parametrize("language", ["java", "typescript", "python", "kotlin"])
def test_owners_swept_forward_match_owners_found_from_the_roots(language):
    """The sweep (well nested frames) answers as the walk down from the roots, on random test files."""
    tokens = {
        "java": ["class A {\n", "@Test\nvoid t() {\n", "}\n", "// CR 509.1c\n", "int[] x = {1, 2};\n", "void h() {\n"],
        "typescript": ["describe('x', () => {\n", "it('y', () => {\n", "});\n", "// CR 509.1c\n", "function f() {\n"],
        "python": [
            "class TestA:\n",
            "    def test_a(self):\n",
            "        # CR 509.1c\n",
            "def test_b():\n",
            "    pass\n",
        ],
        "kotlin": ["class A {\n", "@Test fun t() {\n", "}\n", "// CR 509.1c\n", 'context("x") {\n', 'test("y") {\n'],
    }[language]
    name = {"java": "A.java", "typescript": "a.test.ts", "python": "test_a.py", "kotlin": "a.kt"}[language]
    rng = random.Random(language)
    for _ in range(400):
        text = "".join(rng.choice(tokens) for _ in range(rng.randrange(1, 40)))
        roots = units.frames(scanner.lex(scanner.SourceFile(name, name, language, text)))
        swept, walked = Owners(roots), Owners(roots)
        walked.nested = False
        for offset in sorted(rng.randrange(len(text) + 1) for _ in range(15)):
            assert swept(offset) == walked(offset), (text, offset)
