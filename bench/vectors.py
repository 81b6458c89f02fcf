"""Make or verify the shipped vector cache (kb/data/vectors-<model>.npz).

    python bench/vectors.py seed-index DIR           # the tests' seed index, built as their ``kb`` fixture builds it
    python bench/vectors.py make HOME [HOME ...]     # union of these built homes' vectors -> the cache
                                                     # (a HOME may be an index directory: DIR/index)
    python bench/vectors.py verify HOME [--sample N] # the cache against a built home, re-embedding a sample

The cache bounds the first build of the bundled corpus: it holds the vectors of every default-scope
passage of the bundled corpus (``rulekb build``) and of the seed corpus the tests build, keyed by the
BLAKE2b-128 hash of the passage text, and the query vectors of their searched names (the glossaries'
terms and the headings' names, keyed apart: kb.search.semantic.query_key), for one model, int8 with a
scale per row. It is generated data:
regenerate it whenever passages or the model change (``make`` after building the homes with the
semantic extra installed; a build reuses what the old cache still covers). ``verify`` prints the
file's sha256, how much of the home's default scope it covers, and the cosine between cached and
freshly embedded vectors for a random sample (expected > 0.99: int8 rounding only).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kb.home import Home  # noqa: E402
from kb.search import semantic  # noqa: E402


def home_vectors(path: str, texts: bool = False) -> semantic.VectorSet:
    """The vectors of a built home, or of an index directory (the tests' seed index: ``seed-index DIR``)."""
    where = Path(path) if (Path(path) / semantic.VECTORS_FILE).is_file() else Home(path).index_dir()
    vs = semantic.VectorSet.load(where / semantic.VECTORS_FILE, texts=texts)
    if vs is None:
        raise SystemExit(f"{path}: no vectors in its index (build it with the semantic extra installed)")
    return vs


def home_names(path: str) -> list[semantic.VectorSet]:
    """The query vectors of a built home's searched names (kb.search.index.searched_names), if it has them."""
    where = Path(path) if (Path(path) / semantic.VECTORS_FILE).is_file() else Home(path).index_dir()
    vs = semantic.VectorSet.load(where / semantic.QUERY_VECTORS_FILE)
    return [vs] if vs is not None and len(vs) else []


def make(homes: list[str]) -> None:
    sets = [home_vectors(h) for h in homes] + [n for h in homes for n in home_names(h)]
    models = {s.model for s in sets}
    if len(models) != 1:
        raise SystemExit(f"the homes were embedded by different models: {sorted(models)}")
    merged = semantic.VectorSet.concat(sets)
    keys = list(dict.fromkeys(merged.key_list()))
    cache = merged.subset(keys)
    out = semantic.SHIPPED_DIR / f"vectors-{cache.model.replace('/', '_')}.npz"
    for old in semantic.shipped_caches(cache.model):
        old.unlink()
    cache.save(out)
    print(f"{out.relative_to(ROOT)}: {len(cache)} vectors of {cache.model}, {out.stat().st_size / 2**20:.2f} MiB")


def seed_index(out: str) -> None:
    """Build the index the tests' ``kb`` fixture builds (seeds, the newest English edition, Duel Masters) into ``out``."""
    from tests._kbfixtures import search_kb

    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    store, index_dir, _ = search_kb(root)
    store.close()
    print(f"{index_dir}: the tests' seed index (give it to make)")


def verify(home: str, sample: int) -> None:
    embedder = semantic.load_embedder()
    if embedder is None:
        raise SystemExit(semantic.unavailable_reason())
    paths = semantic.shipped_caches(embedder.name)
    if not paths:
        raise SystemExit(f"no shipped cache for {embedder.name}")
    cache = semantic.VectorSet.load(paths[0], embedder.name)
    live = home_vectors(home, texts=True)
    print(
        f"{paths[0].relative_to(ROOT)}: sha256 {hashlib.sha256(paths[0].read_bytes()).hexdigest()}, {len(cache)} vectors"
    )
    texts = {k: str(t) for k, t in zip(live.key_list(), live.extra["texts"], strict=True)}
    held = [k for k in texts if cache.row_of(k) is not None]
    print(f"covers {len(held)} of the {len(texts)} default-scope passages of {home}")
    bad = [k for k in texts if semantic.passage_key(texts[k]) != k]
    print(f"passage hashes that do not match their text: {len(bad)}")
    keys = random.Random(0).sample(held, min(sample, len(held)))
    fresh = embedder.passages([texts[k] for k in keys])
    cached = cache.subset(keys).floats()
    cos = (fresh * cached).sum(axis=1)
    print(f"re-embedded {len(keys)}: cosine with the cache min {cos.min():.4f}, mean {cos.mean():.4f}")
    if bad or (len(keys) and cos.min() < 0.98):
        raise SystemExit("the cache does not match this model's vectors")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("homes", nargs="+")
    v = sub.add_parser("verify")
    v.add_argument("home")
    v.add_argument("--sample", type=int, default=40)
    t = sub.add_parser("seed-index")
    t.add_argument("out")
    args = ap.parse_args()
    if args.cmd == "make":
        make(args.homes)
    elif args.cmd == "seed-index":
        seed_index(args.out)
    else:
        verify(args.home, args.sample)


if __name__ == "__main__":
    main()
