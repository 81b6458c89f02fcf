"""Index and vector build times, sizes, and query latency with and without dense fusion, vs FTS5.

    python bench/search.py [--home DIR] [--repeat N] [--cold N]

On the full bundled KB (``--home`` a built data home, else the bundled corpus is built into a
temporary one). Prints:

- index build with embeddings, *first* (the vectors come from the shipped cache, as on a fresh
  clone) and *incremental* (a rebuild that reuses the previous generation's vectors, shipped cache
  off), with how many passages each embedded; the cold embedding rate measured on ``--cold``
  passages and the cold first build it implies;
- index and vector sizes;
- query latency p50/p95 over bench/queries.tsv, words only, with dense fusion, and with everything
  on (dense fusion and the learned ranker; query vectors not cached: each query is embedded every
  time, but for the names the build embedded: kb.search.semantic.query_parts), against SQLite FTS5
  (trigram) in the same process; and everything on with the word tiers scored by Whoosh's matchers
  instead of on arrays (kb.search.scores), taking turns query by query.
Targets: p50 < 30 ms, p95 < 100 ms with everything on.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))  # after ROOT: bench/ingest.py must not shadow the ingest package

from relevance import load_queries, progress  # noqa: E402

from kb.errors import RulekbError  # noqa: E402
from kb.search import semantic  # noqa: E402
from kb.search.index import build_index  # noqa: E402
from kb.search.query import ALL_LAYERS  # noqa: E402
from kb.search.searcher import Searcher  # noqa: E402
from kb.store import Store  # noqa: E402


def fts5(store: Store) -> sqlite3.Connection:
    """An in-memory FTS5 trigram index over the same distinct texts (the baseline)."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(hash UNINDEXED, body, tokenize='trigram')")
    rows = store.conn.execute("SELECT hash, title || char(10) || text FROM contents")
    db.executemany("INSERT INTO t VALUES(?, ?)", rows)
    db.commit()
    return db


def fts5_query(db: sqlite3.Connection, q: str) -> list:
    phrase = '"' + q.replace('"', '""') + '"'
    try:
        return db.execute("SELECT hash FROM t WHERE t MATCH ? ORDER BY rank LIMIT 10", (phrase,)).fetchall()
    except sqlite3.Error:
        return []


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size


def timed_build(store: Store, where: Path, sources: list[Path], shipped: bool) -> tuple[float, dict]:
    old = os.environ.get("RULEKB_SHIPPED_VECTORS")
    os.environ["RULEKB_SHIPPED_VECTORS"] = "on" if shipped else "off"
    try:
        t0 = time.perf_counter()
        stats = build_index(store, where, progress, vector_sources=sources)
        return time.perf_counter() - t0, stats
    finally:
        print(file=sys.stderr)
        if old is None:
            del os.environ["RULEKB_SHIPPED_VECTORS"]
        else:
            os.environ["RULEKB_SHIPPED_VECTORS"] = old


def latency(searchers: dict[str, Searcher], queries: list[str], repeat: int, embedder) -> dict[str, list[float]]:
    """Median wall ms per query of each searcher; the searchers take turns on each query, so a burst of
    load on the shared machine hits them alike."""
    out: dict[str, list[float]] = {name: [] for name in searchers}
    for q in queries:
        runs: dict[str, list[float]] = {name: [] for name in searchers}
        for _ in range(repeat):
            for name, searcher in searchers.items():
                if embedder is not None:
                    embedder.forget_queries()
                searcher.forget_ranked()  # a repeat would otherwise be cut from the kept ranking
                t = time.perf_counter()
                with contextlib.suppress(RulekbError):
                    searcher.search(q, limit=10)
                runs[name].append((time.perf_counter() - t) * 1000)
        for name in searchers:
            out[name].append(statistics.median(runs[name]))
    return out


def report_latency(store: Store, ix: Path, queries: list[str], repeat: int, embedder, db) -> None:
    """Query latency, words only, with dense fusion, and with everything on (dense and the learned
    ranker), against FTS5 in the same process; and everything on with Whoosh scoring the word tiers
    (kb.search.scores off: the baseline of that change)."""
    words = latency({"w": Searcher(store, ix, layers=ALL_LAYERS - {"dense", "learned"})}, queries, repeat, None)["w"]
    dense = latency({"d": Searcher(store, ix, layers=ALL_LAYERS - {"learned"})}, queries, repeat, embedder)["d"]
    pair = latency(
        {"arrays": Searcher(store, ix), "whoosh": Searcher(store, ix, arrays=False)}, queries, repeat, embedder
    )
    everything, whoosh_tiers = pair["arrays"], pair["whoosh"]
    base = []
    for q in queries:
        runs = []
        for _ in range(repeat):
            t = time.perf_counter()
            fts5_query(db, q)
            runs.append((time.perf_counter() - t) * 1000)
        base.append(statistics.median(runs))
    print(
        f"query latency over {len(queries)} distinct queries (median of {repeat} runs each,"
        " query vectors not cached but the build's names):"
    )
    rows = (
        ("words only", words),
        ("with dense", dense),
        ("everything", everything),
        ("  tiers by Whoosh", whoosh_tiers),
    )
    for name, xs in rows:
        print(f"  rulekb {name:16}  p50 {pct(xs, 50):6.1f} ms  p95 {pct(xs, 95):6.1f} ms  max {max(xs):6.1f} ms")
    print(f"  FTS5 trigram             p50 {pct(base, 50):6.2f} ms  p95 {pct(base, 95):6.2f} ms")
    print(
        f"  ratios: dense/words p50 {pct(dense, 50) / pct(words, 50):.2f}x; everything/dense p50"
        f" {pct(everything, 50) / pct(dense, 50):.2f}x p95 {pct(everything, 95) / pct(dense, 95):.2f}x;"
        f" everything/(tiers by Whoosh) p50 {pct(everything, 50) / pct(whoosh_tiers, 50):.2f}x"
        f" p95 {pct(everything, 95) / pct(whoosh_tiers, 95):.2f}x;"
        f" rulekb (everything)/FTS5 p50 {pct(everything, 50) / max(pct(base, 50), 1e-3):.0f}x"
        "  [targets with everything on: p50 < 30, p95 < 100]"
    )
    slow = sorted(zip(everything, queries, strict=True), reverse=True)[:5]
    print("  slowest (everything): " + "; ".join(f"{q} {ms:.0f} ms" for ms, q in slow))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", help="a built data home (default: build the bundled corpus into a temporary one)")
    ap.add_argument("--repeat", type=int, default=3, help="query passes (median per query)")
    ap.add_argument("--cold", type=int, default=64, help="passages embedded from scratch to measure the rate")
    ap.add_argument("--store", help="with --index: time queries on this store and index, no builds")
    ap.add_argument("--index", help="with --store: an index built from it")
    args = ap.parse_args()
    from kb.build import build_kb
    from kb.home import Home

    embedder = semantic.load_embedder()
    if args.store and args.index:
        store = Store.open(args.store)
        queries = list(dict.fromkeys(q["query"] for q in load_queries()))
        report_latency(store, Path(args.index), queries, args.repeat, embedder, fts5(store))
        return
    with tempfile.TemporaryDirectory() as tmp:
        home = Home(args.home or Path(tmp) / "home")
        if not home.exists():
            build_kb(home, progress=progress)
        store = home.open_store()
        nodes = store.conn.execute("SELECT COUNT(*) FROM nodes").fetchone()[0]
        distinct = store.conn.execute("SELECT COUNT(*) FROM contents").fetchone()[0]
        print(
            f"store: {len(store.versions())} versions, {nodes} nodes, {distinct} distinct texts;"
            f" embedder: {embedder.name if embedder else semantic.unavailable_reason()}"
        )
        first_s, first = timed_build(store, Path(tmp) / "first", [], shipped=True)
        vec = Path(tmp) / "first" / semantic.VECTORS_FILE
        print(f"index build, first (shipped cache): {first_s:.1f} s for {first['docs']} docs; dense: {first['dense']}")
        inc_s, inc = timed_build(store, Path(tmp) / "again", [vec], shipped=False)
        print(f"index build, incremental (previous generation's vectors): {inc_s:.1f} s; dense: {inc['dense']}")
        print(
            f"index size {size(Path(tmp) / 'first') / 2**20:.1f} MiB, of which vectors"
            f" {size(vec) / 2**20 if vec.exists() else 0:.1f} MiB"
        )
        if embedder is not None and vec.exists():
            texts = [str(t) for t in semantic.VectorSet.load(vec, texts=True).extra["texts"]]
            sample = texts[:: max(1, len(texts) // args.cold)][: args.cold]
            t0 = time.perf_counter()
            embedder.passages(sample)
            rate = len(sample) / (time.perf_counter() - t0)
            print(
                f"cold embedding: {rate:.1f} passages/s over {len(sample)} (mean {statistics.mean(map(len, sample)):.0f}"
                f" chars) -> {len(texts) / rate / 60:.0f} min to embed the default scope without any cache"
            )
        t1 = time.perf_counter()
        db = fts5(store)
        print(f"FTS5 trigram build {time.perf_counter() - t1:.1f} s")
        queries = list(dict.fromkeys(q["query"] for q in load_queries()))
        report_latency(store, Path(tmp) / "first", queries, args.repeat, embedder, db)
        store.close()


if __name__ == "__main__":
    main()
