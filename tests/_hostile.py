"""Helpers of the hostile-input tests: what must not change when a command is refused."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path


def snapshot(home: Path) -> tuple:
    """The live generation, the bytes of every file in it, and every entry of the home."""
    live = os.readlink(home / "current")
    files = {
        str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((home / live).rglob("*"))
        if p.is_file()
    }
    return live, files, sorted(p.name for p in home.iterdir())


def refused(cli, home: Path, *args) -> str:
    """Run ``rulekb --home HOME ARGS``; assert exit 1, one line on stderr, the KB untouched; return that line."""
    before = snapshot(home)
    code, out, err = cli("--home", home, *args)
    lines = err.strip().splitlines()
    assert code == 1, (code, out, err)
    assert len(lines) == 1 and "Traceback" not in err, err
    assert snapshot(home) == before
    return lines[0]


def copy_home(src: Path, dst: Path) -> Path:
    """A private, writable copy of a data home (its ``current`` link kept a link)."""
    shutil.copytree(src, dst, symlinks=True)
    return dst
