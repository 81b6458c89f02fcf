"""When each line of a file was last committed (``git blame``), for dating citations.

The scanned tree is a stranger's: its repository must not get git to run anything. A repository's
own configuration (``.git/config`` and whatever it includes) can name commands git runs while it
reads: ``core.fsmonitor`` (on every look at the work tree), ``diff.X.textconv`` and
``filter.X.clean`` drivers that ``.gitattributes`` assigns to files (``git blame`` converts the work
tree's copy with them), hooks, and the transport of a partial clone's promisor remote (``ext::``
commands, ``core.sshCommand``) when a blob is missing. So ``git blame`` here

- blames the committed file (``HEAD``), never the work tree's copy: no clean filter or textconv
  reads a file; the lines of the work tree's copy are matched to the committed ones here;
- runs with ``--no-textconv``, ``core.fsmonitor=false``, no hooks, no attributes file, no fetching
  (``GIT_ALLOW_PROTOCOL`` names no protocol), no implicitly found bare repository
  (``safe.bareRepository=explicit``), no pager;
- reads no system or user configuration and inherits no ``GIT_*`` variable (``GIT_DIR``,
  ``GIT_CONFIG_PARAMETERS``, ``GIT_EXTERNAL_DIFF``… of a hook that ran rulekb).

Git's own refusal of a repository another user owns stays in force: such a tree is not dated.
"""

from __future__ import annotations

import difflib
import os
import subprocess
from datetime import UTC, date, datetime

# Command-line configuration is read after the repository's, so each of these wins over it.
_CONFIG = (
    "core.fsmonitor=false",
    f"core.hooksPath={os.devnull}",
    f"core.attributesFile={os.devnull}",
    "safe.bareRepository=explicit",
    "protocol.allow=never",
    "blame.ignoreRevsFile=",
)
MAX_MATCHED = 5000  # lines either side that differ from the commit: matched line by line up to this many


def git_command(folder: str, *args: str) -> list[str]:
    """A ``git`` command run in ``folder`` that takes nothing from the repository that runs code."""
    config = [arg for item in _CONFIG for arg in ("-c", item)]
    return ["git", "--no-pager", "--no-replace-objects", *config, "-C", folder, *args]


def git_environment() -> dict[str, str]:
    """This process's environment without any ``GIT_*`` variable, and no configuration but the repository's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_ATTR_NOSYSTEM="1",
        GIT_ALLOW_PROTOCOL="none",  # no transport at all: a partial clone never fetches a missing blob
        GIT_NO_LAZY_FETCH="1",  # the same, said plainly to a git that knows it (2.44+)
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",  # a reader never rewrites the repository's index
        LC_ALL="C",
    )
    return env


def committed_lines(path: str) -> list[tuple[bytes, date]] | None:
    """Each line of the file as last committed, with its commit date; None outside a git work tree."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    try:
        proc = subprocess.run(
            git_command(folder, "blame", "--no-textconv", "--line-porcelain", "HEAD", "--", os.path.basename(path)),
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env=git_environment(),
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    out: list[tuple[bytes, date]] = []
    when: date | None = None
    for row in proc.stdout.split(b"\n"):
        if row.startswith(b"\t"):
            out.append((row[1:].rstrip(b"\r"), when or date.min))
        elif row.startswith(b"committer-time "):
            when = datetime.fromtimestamp(int(row.split()[1]), UTC).date()
    return out


def line_dates(path: str) -> dict[int, date]:
    """Line number -> commit date of that line; empty outside a git work tree, none for uncommitted lines."""
    committed = committed_lines(path)
    if not committed:
        return {}
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        current = [line.rstrip(b"\r") for line in data.split(b"\n")]
    except OSError:
        return {}
    if data.endswith(b"\n"):
        current.pop()  # what follows the last newline is no line
    return {mine + 1: committed[theirs][1] for mine, theirs in match_lines(current, [c[0] for c in committed])}


def match_lines(current: list[bytes], committed: list[bytes]) -> list[tuple[int, int]]:
    """Pairs (line of the work tree's copy, line of the committed file) holding the same text, 0-based.

    What ``git blame`` does for a changed file: lines the work tree changed or added have no commit."""
    head = 0
    while head < min(len(current), len(committed)) and current[head] == committed[head]:
        head += 1
    tail = 0
    while tail < min(len(current), len(committed)) - head and current[-1 - tail] == committed[-1 - tail]:
        tail += 1
    pairs = [(i, i) for i in range(head)]
    mine, theirs = current[head : len(current) - tail], committed[head : len(committed) - tail]
    if mine and theirs and max(len(mine), len(theirs)) <= MAX_MATCHED:  # bounded: difflib is quadratic at worst
        for block in difflib.SequenceMatcher(None, theirs, mine).get_matching_blocks():
            pairs += [(head + block.b + k, head + block.a + k) for k in range(block.size)]
    shift = len(current) - len(committed)
    pairs += [(i + shift, i) for i in range(len(committed) - tail, len(committed))]
    return pairs
