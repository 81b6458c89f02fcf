"""Ingest the bundled corpus — 120 English editions, the whole 和訳 20260116.0, the DM rules and the seeds —
into a fresh store (no search index, no lineage).

    python bench/ingest.py [--repeat N]

Prints wall time (median of N runs), peak memory, clause counts, and the ratio against a baseline
run in the same process: decoding and splitting the same files into lines (the floor any parser pays).
Targets: under 60 s and under 1 GiB on a 2-core machine.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ingest.common import Hints  # noqa: E402
from kb.build import BUNDLED_CORPUS, ingest_into, read_manifest  # noqa: E402
from kb.store import Store  # noqa: E402
from kb.textio import read_text  # noqa: E402


def inputs() -> list[tuple[str, Hints]]:
    """Every document of the bundled corpus, as `rulekb build` reads them."""
    return [
        (str(e.path), Hints(format=e.format, game=e.game, lang=e.lang, version=e.version, provenance=e.provenance))
        for e in read_manifest(BUNDLED_CORPUS)
    ]


def run_ingest(files) -> tuple[float, int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.create(str(Path(tmp) / "kb.sqlite"))
        t0 = time.perf_counter()
        clauses = 0
        for i, (path, hints) in enumerate(files, 1):
            clauses += ingest_into(store, path, Hints(**hints.__dict__)).clauses
            if i % 20 == 0 or i == len(files):
                print(f"\r  ingested {i}/{len(files)}", end="", file=sys.stderr, flush=True)
        store.commit()
        elapsed = time.perf_counter() - t0
        print(file=sys.stderr)
        versions = len(store.versions())
        store.close()
    return elapsed, clauses, versions


def run_baseline(files) -> float:
    t0 = time.perf_counter()
    for path, _ in files:
        read_text(path).text.splitlines()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    files = inputs()
    print(f"inputs: {len(files)} files, {sum(Path(p).stat().st_size for p, _ in files) / 1e6:.1f} MB")
    runs, bases = [], []
    for _ in range(args.repeat):
        bases.append(run_baseline(files))
        elapsed, clauses, versions = run_ingest(files)
        runs.append(elapsed)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    med, base = statistics.median(runs), statistics.median(bases)
    print(f"versions: {versions}  clauses: {clauses}")
    print(
        f"ingest wall time: median {med:.2f} s over {len(runs)} runs (min {min(runs):.2f}, max {max(runs):.2f}); target < 60 s"
    )
    print(f"baseline (decode + split lines): median {base:.2f} s; ingest/baseline ratio {med / base:.1f}x")
    print(f"peak RSS: {peak_mb:.0f} MB; target < 1024 MB")


if __name__ == "__main__":
    main()
