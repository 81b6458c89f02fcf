"""Stores built with the real parsers from the bundled texts (corpus/), cached once per test process.

Used by the versions tests (order, diff, history, align), bench/versions.py, the search tests' ``kb`` fixture
and bench/vectors.py (``search_kb``).
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import json
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from tests.helpers import CR_EN, CR_JA_FULL, CR_JA_HEAD, DM_RULES, SEEDS

VIEWER_509 = SEEDS / "000_69c867f839c48ea8.txt"
VIEWER_510 = SEEDS / "003_1192bed475bff8cb.txt"
WIKI_QUOTE = SEEDS / "002_52ff311794a719e8.txt"
LEGACY_55 = SEEDS / "004_141578bca00711b0.txt"
JAPANESE = (VIEWER_509, VIEWER_510, WIKI_QUOTE, CR_JA_HEAD, LEGACY_55)
TODAY_JAPANESE = (CR_JA_FULL, VIEWER_509, VIEWER_510, WIKI_QUOTE, LEGACY_55)

_tmp = Path(tempfile.mkdtemp(prefix="rulekb-versions-"))
atexit.register(shutil.rmtree, _tmp, True)


def write_manifest(dest: Path, keep) -> Path:
    """A corpus directory ``dest`` whose manifest lists the bundled documents ``keep(entry)`` accepts
    (by absolute path: the files stay where they are). Returns ``dest``."""
    from kb.build import BUNDLED_CORPUS, read_manifest

    dest.mkdir(parents=True, exist_ok=True)
    blocks = []
    for e in read_manifest(BUNDLED_CORPUS):
        if keep(e):
            fields = {**e.__dict__, "path": str(e.path)}
            blocks.append(
                "[[document]]\n"
                + "".join(f"{k} = {json.dumps(v, ensure_ascii=False)}\n" for k, v in fields.items() if v)
            )
    (dest / "manifest.toml").write_text("\n".join(blocks), encoding="utf-8")
    return dest


def is_seed(entry) -> bool:
    """The five texts the project was created from (bundled at the top of corpus/)."""
    from kb.build import BUNDLED_CORPUS

    return entry.path.parent == BUNDLED_CORPUS


def seed_corpus(dest: Path) -> Path:
    """A corpus of the seeds alone: the small KB most CLI and web tests run on."""
    return write_manifest(dest, is_seed)


def english(*dates: str) -> list[Path]:
    """English edition files by date (``2024-06-07``); all 120 when none given."""
    if not dates:
        return sorted(CR_EN.glob("MagicCompRules_*.txt"))
    return [CR_EN / f"MagicCompRules_{d}.txt" for d in dates]


def build_store(paths: Iterable[Path], dest: Path):
    """A writable store holding the parsed files (then dates placed and lineage built, as a build does)."""
    from ingest import parse_file
    from kb.build import derive
    from kb.store import Store

    if dest.exists():
        dest.unlink()
    store = Store.create(str(dest))
    for p in paths:
        result = parse_file(str(p))
        store.add(result, path=str(p), sha256=hashlib.sha256(p.read_bytes()).hexdigest())
    derive(store)
    store.commit()
    return store


@functools.cache
def store_of(*dates: str, japanese: bool = False, today: bool = False):
    """A cached store of the given English editions (all when none), optionally with the Japanese texts
    (``today``: the whole 和訳 20260116.0 instead of its head piece)."""
    paths = english(*dates) + (list(TODAY_JAPANESE if today else JAPANESE) if japanese else [])
    name = hashlib.sha1(repr((dates, japanese, today)).encode()).hexdigest()[:10]
    return build_store(paths, _tmp / f"{name}.sqlite")


def full_store():
    """All 120 English editions plus the Japanese texts, lineage built: the shared heavy fixture."""
    return store_of(japanese=True)


def today_store():
    """Every English edition, the whole 和訳 20260116.0 and the Japanese seeds: today's rules in both
    languages and every old text beside them."""
    return store_of(japanese=True, today=True)


def home_of(store, dest: Path) -> Path:
    """A data home serving a copy of ``store`` (no search index: the web app falls back to substrings)."""
    import os

    gen = dest / "gen-test"
    gen.mkdir(parents=True)
    store.backup(gen / "kb.sqlite")
    os.symlink(gen.name, dest / "current")
    return dest


def search_kb(root: Path, progress=None):
    """Store + search index from the seeds, the newest English edition and the Duel Masters rules, in ``root``
    (no lineage: the index and search tests need texts only). Returns (store, index dir, build stats)."""
    from ingest.common import Hints
    from kb.build import BUNDLED_CORPUS, ingest_into, read_manifest
    from kb.search.index import build_index
    from kb.store import Store
    from kb.versions import order

    store = Store.create(str(root / "kb.sqlite"))
    for e in filter(is_seed, read_manifest(BUNDLED_CORPUS)):
        ingest_into(store, str(e.path), Hints(format=e.format, game=e.game, lang=e.lang, version=e.version))
    ingest_into(store, str(CR_EN / "MagicCompRules_2026-01-16.txt"), Hints())
    for p in sorted(DM_RULES.glob("*")):
        ingest_into(store, str(p), Hints())
    order.place_undated(store)
    store.commit()
    stats = build_index(store, root / "index", progress)
    return store, root / "index", stats
