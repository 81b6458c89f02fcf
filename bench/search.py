"""Index every English edition plus all Japanese texts, then time queries against FTS5 trigram.

    python bench/search.py [--store PATH] [--procs N] [--repeat N]

Prints index build time (target < 120 s), index size, query latency p50/p95 over bench/queries.tsv
(targets p50 < 20 ms, p95 < 60 ms), and SQLite FTS5 (trigram tokenizer) over the same distinct
texts in the same process, as a ratio. ``--store`` keeps the ingested store between runs (the
ingestion itself is bench/ingest.py's subject, not timed here).
"""

from __future__ import annotations

import argparse
import contextlib
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))  # after ROOT: bench/ingest.py must not shadow the ingest package

from relevance import load_queries, make_store  # noqa: E402

from kb.errors import RulekbError  # noqa: E402
from kb.index import build_index  # noqa: E402
from kb.search import Searcher  # noqa: E402
from kb.store import Store  # noqa: E402


def progress(done: int, total: int, what: str) -> None:
    print(f"\r  {what}: {done}/{total}", end="", file=sys.stderr, flush=True)


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", help="reuse (or create) the ingested store at this path")
    ap.add_argument("--procs", type=int, default=1, help="Whoosh writer processes")
    ap.add_argument("--repeat", type=int, default=3, help="query passes (median per query)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        spath = Path(args.store) if args.store else Path(tmp) / "kb.sqlite"
        store = Store.open(str(spath)) if spath.exists() else make_store(spath)
        nodes = store.conn.execute("SELECT COUNT(*) FROM nodes").fetchone()[0]
        distinct = store.conn.execute("SELECT COUNT(*) FROM contents").fetchone()[0]
        print(f"store: {len(store.versions())} versions, {nodes} nodes, {distinct} distinct texts")
        t0 = time.perf_counter()
        stats = build_index(store, Path(tmp) / "index", progress, procs=args.procs)
        build_s = time.perf_counter() - t0
        print(file=sys.stderr)
        t1 = time.perf_counter()
        db = fts5(store)
        fts_build = time.perf_counter() - t1
        print(f"index build: {build_s:.1f} s for {stats['docs']} docs ({stats['rules']} distinct clauses), "
              f"size {stats['size'] / 2**20:.1f} MiB  [target < 120 s]; FTS5 trigram build {fts_build:.1f} s")  # fmt: skip
        searcher = Searcher(store, Path(tmp) / "index")
        queries = [q["query"] for q in load_queries()]
        ours: list[float] = []
        base: list[float] = []
        for q in queries:
            a, b = [], []
            for _ in range(args.repeat):
                t = time.perf_counter()
                with contextlib.suppress(RulekbError):
                    searcher.search(q, limit=10)
                a.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                fts5_query(db, q)
                b.append((time.perf_counter() - t) * 1000)
            ours.append(statistics.median(a))
            base.append(statistics.median(b))
        p50, p95 = pct(ours, 50), pct(ours, 95)
        b50, b95 = pct(base, 50), pct(base, 95)
        print(f"query latency over {len(queries)} queries (median of {args.repeat} runs each):")
        print(f"  rulekb  p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  max {max(ours):6.1f} ms  [targets p50 < 20, p95 < 60]")
        print(f"  FTS5    p50 {b50:6.2f} ms  p95 {b95:6.2f} ms")
        print(f"  ratio rulekb/FTS5: p50 {p50 / max(b50, 1e-3):.0f}x, p95 {p95 / max(b95, 1e-3):.0f}x")
        slow = sorted(zip(ours, queries, strict=True), reverse=True)[:5]
        print("  slowest: " + "; ".join(f"{q} {ms:.0f} ms" for ms, q in slow))
        store.close()


if __name__ == "__main__":
    main()
