"""Time the versions services on the 120 English editions (plus the Japanese texts).

    python bench/versions.py [--repeat N] [--store PATH]

Prints medians of N runs: a diff of two whole editions (target under 1 s), lineage for all editions
(target under 60 s), and history query latency. Without --store it first ingests every English
edition and the Japanese seeds into a temporary store (not timed).
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ingest import parse_file  # noqa: E402
from kb.store import Store  # noqa: E402
from kb.versions import diffparts, history, lineage, order  # noqa: E402
from kb.versions.compare import diff_versions  # noqa: E402

CORPUS = ROOT / "corpus"  # the bundled texts
JAPANESE = [
    CORPUS / n
    for n in (
        "000_69c867f839c48ea8.txt",
        "003_1192bed475bff8cb.txt",
        "002_52ff311794a719e8.txt",
        "004_141578bca00711b0.txt",
    )
]
DIFF_PAIRS = [("20240607", "20250207"), ("20250725", "20260116"), ("20090501", "20090708")]
HISTORY_RULES = ["732", "732.1", "509.3a", "702.91a", "100.1", "704.5a"]


def make_store(path: Path) -> Store:
    store = Store.create(str(path))
    files = sorted((CORPUS / "cr-en").glob("*.txt")) + JAPANESE
    for p in files:
        store.add(parse_file(str(p)), path=str(p), sha256=hashlib.sha256(p.read_bytes()).hexdigest())
    order.place_undated(store)
    store.commit()
    return store


def median_time(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--store", help="an existing kb.sqlite holding the English editions (copied, not changed)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-versions-"))
    try:
        path = tmp / "kb.sqlite"
        if args.store:
            shutil.copy(args.store, path)
            store = Store.open(str(path), write=True)
        else:
            t = time.perf_counter()
            store = make_store(path)
            print(f"setup: ingested {len(store.versions())} versions in {time.perf_counter() - t:.1f} s (not timed)")
        editions = len(store.versions("mtg", "en"))

        for old, new in DIFF_PAIRS:
            diffparts._feature_cache.clear()  # cold: no features cached from an earlier run
            cold, _ = median_time(lambda o=old, n=new: diff_versions(store, "mtg", "en", o, n), 1)
            warm, d = median_time(lambda o=old, n=new: diff_versions(store, "mtg", "en", o, n), args.repeat)
            print(
                f"diff {old} -> {new}: cold {cold:.3f} s, median {warm:.3f} s "
                f"({len(d['changes'])} changes)  [target < 1 s]"
            )

        def build_lineage():
            diffparts._feature_cache.clear()
            out = lineage.build(store)
            store.commit()
            return out

        secs, info = median_time(build_lineage, max(1, min(args.repeat, 2)))
        print(
            f"lineage: {editions} English editions (+ Japanese), {info['pairs']} adjacent pairs, "
            f"{info['links']} links: median {secs:.2f} s  [target < 60 s]"
        )

        lat = []
        for rule in HISTORY_RULES:
            for _ in range(args.repeat):
                t = time.perf_counter()
                history.history(store, "mtg", "en", rule)
                lat.append(time.perf_counter() - t)
        lat.sort()
        print(
            f"history query: median {statistics.median(lat) * 1000:.1f} ms, "
            f"max {lat[-1] * 1000:.1f} ms over {len(lat)} queries of {len(HISTORY_RULES)} clauses"
        )
        store.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
