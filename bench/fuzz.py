"""Every query returns: random short queries and the suggestion box's prefixes, timed one by one.

    python bench/fuzz.py [--home DIR] [--n 10000] [--seed 1] [--baseline 300] [--watchdog 10]

On the full bundled KB (``--home`` a built data home, else the bundled corpus is built into a
temporary one). Asks the searcher what the search page asks (``search_page``: one page of hits and
the count of all matches), with the query vector computed as on the site, for:

- ``--n`` random queries of 1 to 6 characters drawn from hiragana, katakana, the kanji and the ASCII
  letters and digits of the rule texts, and mixtures of them (a space now and then);
- every prefix of two characters or more of the glossary's names and of bench/queries.tsv, as the
  suggestion box asks while one types (it waits for two characters);
- the queries that hung once (``カキ``).

Prints p50/p95/p99/max, how many took over 1 s, how many hung (no answer within ``--watchdog``
seconds: the search is interrupted and the next one runs), the slowest, and how many were cut short by
the per-query budget (kb.search.bounded). The baseline, in the same process: the same searcher with
Whoosh's default block-quality skipping, on the first ``--baseline`` queries of each kind (the loop
it falls into on ``カキ`` is what kb.search.bounded removes), and the latency of ordinary queries
(bench/queries.tsv) to compare the fuzz figures to. Exit status 1 when any query hung.
"""

from __future__ import annotations

import argparse
import random
import signal
import statistics
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))

from relevance import load_queries, progress, searcher_of  # noqa: E402

from kb.errors import RulekbError  # noqa: E402
from kb.search import bounded  # noqa: E402
from kb.search.searcher import Searcher  # noqa: E402
from kb.store import Store  # noqa: E402

HIRAGANA = [chr(c) for c in range(0x3041, 0x3097)]
KATAKANA = [chr(c) for c in range(0x30A1, 0x30F7)] + ["ー"]
ASCII = list("abcdefghijklmnopqrstuvwxyz0123456789")
REGRESSIONS = ["カキ", "カキ 2", "かき", "ア", "ダメ", "xq"]
SUGGEST_LIMIT = 7  # the suggestion box shows six and asks for one more (web/static/app.js)


class Hung(Exception):
    pass


def _alarm(*_):
    raise Hung


def kanji_of(store: Store, cap: int = 3000) -> list[str]:
    """The kanji of the rule texts, most frequent first (a query types the words the rules use)."""
    counts: dict[str, int] = {}
    for (text,) in store.conn.execute("SELECT text FROM contents"):
        for ch in text or "":
            if "CJK UNIFIED" in unicodedata.name(ch, ""):
                counts[ch] = counts.get(ch, 0) + 1
    return sorted(counts, key=lambda c: -counts[c])[:cap]


def random_queries(n: int, rng: random.Random, kanji: list[str]) -> list[str]:
    pools = {"hiragana": HIRAGANA, "katakana": KATAKANA, "kanji": kanji, "ascii": ASCII}
    out = []
    for _ in range(n):
        length = rng.randint(1, 6)
        kind = rng.choice([*pools, "mixed"])
        chars = []
        for _ in range(length):
            pool = pools[rng.choice(list(pools))] if kind == "mixed" else pools[kind]
            chars.append(rng.choice(pool))
        if length >= 3 and rng.random() < 0.1:
            chars.insert(rng.randint(1, length - 1), " ")
        out.append("".join(chars))
    return out


def suggestion_prefixes(store: Store) -> list[str]:
    """What the suggestion box asks while a glossary name or a benchmark query is typed."""
    names = [r[0] for r in store.conn.execute("SELECT DISTINCT term FROM terms") if r[0]]
    typed = names + [q["query"] for q in load_queries()]
    prefixes = {w[:i] for w in typed for i in range(2, len(w) + 1)}
    return sorted(p for p in prefixes if p.strip())


def run(searcher: Searcher, queries: list[str], watchdog: float, what: str) -> dict:
    times, hung, cut = [], [], 0
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for i, q in enumerate(queries, 1):
            signal.setitimer(signal.ITIMER_REAL, watchdog)
            t = time.perf_counter()
            try:
                cut += bool(searcher.search_page(q, limit=SUGGEST_LIMIT).get("partial"))
            except RulekbError:
                pass
            except Hung:
                hung.append(q)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            times.append((time.perf_counter() - t, q))
            if i % 100 == 0 or i == len(queries):
                progress(i, len(queries), what)
    finally:
        signal.signal(signal.SIGALRM, old)
    print(file=sys.stderr)
    return {"times": times, "hung": hung, "cut": cut}


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def report(name: str, got: dict) -> None:
    ms = [t * 1000 for t, _ in got["times"]]
    slow = sorted(got["times"], reverse=True)[:5]
    print(
        f"  {name:28} n {len(ms):6}  p50 {pct(ms, 50):6.1f}  p95 {pct(ms, 95):6.1f}  p99 {pct(ms, 99):7.1f}"
        f"  max {max(ms):7.1f} ms  >1 s: {sum(m > 1000 for m in ms)}  hung: {len(got['hung'])}"
        f"  cut by budget: {got['cut']}"
    )
    print("      slowest: " + "; ".join(f"{q!r} {t * 1000:.0f} ms" for t, q in slow))
    if got["hung"]:
        print("      hung: " + ", ".join(repr(q) for q in got["hung"][:10]))


class _Default:
    """Whoosh's own ``search`` (block-quality skipping on): the baseline."""

    def __enter__(self):
        self.saved = bounded.whoosh_search
        import kb.search.results as results_mod
        import kb.search.searcher as searcher_mod

        self.mods = (searcher_mod, results_mod)
        for m in self.mods:
            m.whoosh_search = lambda s, q, **kw: s.search(q, **kw)

    def __exit__(self, *exc):
        for m in self.mods:
            m.whoosh_search = self.saved


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", help="a built data home (default: build the bundled corpus into a temporary one)")
    ap.add_argument("--n", type=int, default=10_000, help="random queries")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--baseline", type=int, default=300, help="queries of each kind run with Whoosh's default")
    ap.add_argument("--watchdog", type=float, default=10.0, help="seconds before a query counts as hung")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        store, searcher = searcher_of(args.home, tmp)
        rng = random.Random(args.seed)
        fuzz = random_queries(args.n, rng, kanji_of(store))
        prefixes = suggestion_prefixes(store)
        ordinary = list(dict.fromkeys(q["query"] for q in load_queries()))
        print(f"{len(fuzz)} random queries (seed {args.seed}), {len(prefixes)} suggestion-box prefixes")
        run(searcher, ordinary[:20], args.watchdog, "warm-up")
        results = {
            "ordinary (bench/queries.tsv)": run(searcher, ordinary, args.watchdog, "ordinary"),
            "regressions": run(searcher, REGRESSIONS, args.watchdog, "regressions"),
            "random 1-6 chars": run(searcher, fuzz, args.watchdog, "random"),
            "suggestion prefixes": run(searcher, prefixes, args.watchdog, "prefixes"),
        }
        base = {}
        if args.baseline:
            with _Default():
                for name, qs in (
                    ("regressions", REGRESSIONS),
                    ("random 1-6 chars", fuzz),
                    ("suggestion prefixes", prefixes),
                ):
                    base[name] = run(searcher, qs[: args.baseline], args.watchdog, f"baseline {name}")
        print(f"search_page(q, limit={SUGGEST_LIMIT}), bounded (kb.search.bounded, budget {bounded.BUDGET_S:g} CPU s):")
        for name, got in results.items():
            report(name, got)
        if base:
            print(f"baseline, Whoosh's default block-quality skipping (first {args.baseline} of each):")
            for name, got in base.items():
                report(name, got)
        ordinary_p50 = pct([t for t, _ in results["ordinary (bench/queries.tsv)"]["times"]], 50)
        for name in ("random 1-6 chars", "suggestion prefixes"):
            xs = [t for t, _ in results[name]["times"]]
            print(
                f"ratio {name}: p95 / ordinary p50 {pct(xs, 95) / ordinary_p50:.2f}x,"
                f" max / ordinary p50 {max(xs) / ordinary_p50:.1f}x; median {statistics.median(xs) * 1000:.1f} ms"
            )
        store.close()
        return 1 if any(got["hung"] for got in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
