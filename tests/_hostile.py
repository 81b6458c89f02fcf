"""Helpers of the hostile-input tests: what must not change when a command is refused."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from tests.helpers import CORPUS, CR_EN, CR_JA, DM_RULES

EN = CR_EN / "MagicCompRules_2018-06-08.txt"  # UTF-8 without BOM, LF
DM = DM_RULES / "DM_SogoGameRule_Ver1.48_20251217_dm_rule.md"
JA = CR_JA / "JP_CR_20260116.0.txt"
LEGACY = CORPUS / "004_141578bca00711b0.txt"


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


def hostile_home(root: Path) -> Path:
    """A home holding the whole English ``EN``, DM 1.48, 和訳 20260116.0 and the legacy translation.

    Built without the search index: refused ingests never reach it, and building it would cost a
    minute for nothing these tests look at.
    """
    from kb.build import ingest_into
    from kb.home import STORE_FILE, Home
    from kb.store import Store
    from kb.versions import order

    home = Home(root)
    with home.new_generation() as gen:
        store = Store.create(str(gen / STORE_FILE))
        for f in (EN, DM, JA, LEGACY):
            ingest_into(store, str(f))
        order.place_undated(store)
        store.commit()
        store.close()
    return home.path
