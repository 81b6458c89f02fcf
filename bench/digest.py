"""A digest of whole search pages, to show that a change to how search runs left what it finds alone.

    python bench/digest.py --home DIR [--out FILE]

Asks the tuning queries (bench/queries.tsv), 300 pairs of glossary words (a fixed seed), the first 80
again in one English edition and the first 40 in Duel Masters: 644 pages of twenty hits. Each page,
with every hit's keys, scores, snippet and confidence, is hashed; the digest of all of them and the CPU
per page are printed, and ``--out`` writes one line per page (its hash and query) to compare two trees
with ``diff``. Run it in a worktree of the commit before the change and in this one, on the same data
home (the digest of the eighth pass: 369f9be6bee3c962 before and after kb.search.scores).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))

from relevance import load_queries, searcher_of  # noqa: E402


def cases(store) -> list[tuple[str, dict]]:
    queries = [q["query"] for q in load_queries()]
    rng = random.Random(7)
    # the glossary's Japanese terms, as bench/web.py's unique searches pair them
    words = sorted({t for (t,) in store.conn.execute("SELECT term FROM terms WHERE lang='ja' AND length(term) <= 12")})
    queries += [" ".join(rng.sample(words, 2)) for _ in range(300)]
    narrowed = {"version": "20260116", "lang": "en", "game": "mtg"}
    return (
        [(q, {}) for q in queries] + [(q, narrowed) for q in queries[:80]] + [(q, {"game": "dm"}) for q in queries[:40]]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", required=True, help="a built data home")
    ap.add_argument("--out", type=Path, help="write each page's hash and query here")
    args = ap.parse_args()
    store, searcher = searcher_of(args.home, "")
    todo = cases(store)
    whole, lines = hashlib.sha256(), []
    t = time.process_time()
    for q, scope in todo:
        page = json.dumps(searcher.search_page(q, limit=20, **scope), sort_keys=True, ensure_ascii=False, default=str)
        whole.update(page.encode())
        lines.append(f"{hashlib.sha1(page.encode()).hexdigest()[:10]}\t{q}\t{scope}")
    cpu = (time.process_time() - t) / len(todo) * 1000
    print(
        f"{len(todo)} pages, CPU {cpu:.1f} ms a page (query vectors cached within the run), digest {whole.hexdigest()[:16]}"
    )
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    store.close()


if __name__ == "__main__":
    main()
