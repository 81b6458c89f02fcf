"""The build of the bundled corpus stage by stage: one process against every core, and a rebuild's reuse.

    python bench/build.py [--workers N] [--skip-index]

Runs the stages of `rulekb build` in this process, each timed (wall and CPU seconds, worker processes
included) and compared with a baseline run of the same stage in the same process:
- parse the 127 documents: one process (the baseline), N worker processes, then N workers reading
  back what the first pass kept in the parse cache (a rebuild);
- add them to a fresh store; derive (dates, pairings, word counts, lineage of 119 edition pairs):
  lineage diffed in one process (the baseline), then in N workers;
- the alignment precompute and the search index (kb/search, built as `rulekb build` builds it), and
  the share of the whole each stage takes.
Prints a table; the machine's load average is printed too (the figures scale with it).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import ingest  # noqa: E402
from kb.build import BUNDLED_CORPUS, _jobs, add_parsed, read_manifest  # noqa: E402
from kb.parsecache import default_workers, parse_corpus  # noqa: E402
from kb.store import Store  # noqa: E402
from kb.versions import align, editions, editorial, lineage, order  # noqa: E402


class Clock:
    """Wall and CPU seconds (this process and its finished children) of a block."""

    def __enter__(self):
        self.t, self.c = time.perf_counter(), self._cpu()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.t, self._cpu() - self.c

    @staticmethod
    def _cpu() -> float:
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=default_workers())
    ap.add_argument("--skip-index", action="store_true", help="stop before the search index (kb/search)")
    args = ap.parse_args()
    n = args.workers
    entries = read_manifest(BUNDLED_CORPUS)
    rows: list[tuple[str, Clock, Clock | None]] = []
    print(f"{len(entries)} documents; {n} workers; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="rulekb-bench-build-") as tmp:
        cache = Path(tmp) / "cache"
        with Clock() as one:
            list(parse_corpus(_jobs(entries), ingest.parse_data, None, workers=1))
        with Clock() as many:
            list(parse_corpus(_jobs(entries), ingest.parse_data, cache, workers=n))
        rows.append(("parse (one process | workers)", one, many))
        with Clock() as reread:
            parsed = list(parse_corpus(_jobs(entries), ingest.parse_data, cache, workers=n))
        rows.append(("parse, rebuild: cache read back", one, reread))
        store = Store.create(str(Path(tmp) / "kb.sqlite"))
        with Clock() as add:
            for p in parsed:
                add_parsed(store, p)
            store.commit()
        del parsed
        rows.append(("add to the store", add, None))
        with Clock() as prep:
            order.place_undated(store)
            editions.pair_translations(store)
            editorial.keep_vocabulary(store)
            store.commit()
        rows.append(("dates, pairings, word counts", prep, None))
        with Clock() as lin1:
            lineage.build(store, workers=1)
        with Clock() as linn:
            lineage.build(store, workers=n)
        store.commit()
        rows.append(("lineage (one process | workers)", lin1, linn))
        with Clock() as al:
            align.precompute(store)
            store.commit()
        rows.append(("alignment precompute", al, None))
        if not args.skip_index:
            from kb.search import index

            with Clock() as ix:
                index.build_index(store, Path(tmp) / "index")
            rows.append(("search index (kb/search)", ix, None))
        store.close()
    report(rows)


def report(rows: list[tuple[str, Clock, Clock | None]]) -> None:
    print(f"\n{'stage':34} {'wall s':>8} {'cpu s':>8} {'workers wall s':>15} {'cpu s':>8} {'wall ratio':>10}")
    for name, base, other in rows:
        extra = f"{other.wall:15.1f} {other.cpu:8.1f} {other.wall / base.wall:10.2f}" if other else ""
        print(f"{name:34} {base.wall:8.1f} {base.cpu:8.1f} {extra}")
    # a build as `rulekb build` runs it now: workers where they help, a fresh parse (no cache)
    build = [other if other and "rebuild" not in name else base for name, base, other in rows if "rebuild" not in name]
    alone = [base for name, base, _ in rows if "rebuild" not in name]
    total, before = sum(c.wall for c in build), sum(c.wall for c in alone)
    print(f"\nbuild, every stage in one process: {before:.1f} s; with workers: {total:.1f} s ({total / before:.2f})")
    for (name, _, _), c in zip([r for r in rows if "rebuild" not in r[0]], build, strict=True):
        print(f"  {name:34} {100 * c.wall / total:5.1f} % of the build")


if __name__ == "__main__":
    main()
