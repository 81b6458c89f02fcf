"""CPU time of each page's first request, in-process, for this tree against another (a baseline).

    python bench/pagecpu.py --home HOME [--base DIR --base-home HOME] [--rounds 3] [URL ...]

Wall-clock page times swing with the machine's load (other jobs share its two cores); the CPU time a
request takes in its own process does not. Each round runs a fresh process per tree, builds the
app without its background warm-up, does what the warm-up does for these pages (the term matchers,
kb.versions.editorial's word counts, the front page), then asks every URL once and reports the CPU
milliseconds and bytes. Prints medians over the rounds and the ratio to the baseline (``--base``: a
checkout of another commit, e.g. ``git archive main | tar -x -C /tmp/base``, served from ``--base-home``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
URLS = [
    "/mtg/ja/20260116.0/702",
    "/mtg/en/20260116/702",
    "/mtg/ja/20260116.0/509",
    "/mtg/en/20260116/509",
    "/mtg/ja/20260116.0/702.19b",
    "/mtg/en/20260116/509.1c",
    "/mtg/ja/5.5.0.0/300.3",
    "/history/mtg/ja/702.2c",
    "/versions",
    "/mtg/ja/20260116.0/",
]

CHILD = """
import json, sys, time
from web import create_app, services
app = create_app({home!r}, {{"WARMUP": False, "COMPRESS": False}})
client = app.test_client()
with app.test_request_context("/"):
    from web.pages import store
    s = store()
    for v in s.versions():
        if v.label in ("20260116", "20260116.0"):
            getattr(services, "prime_terms", lambda *a: None)(s, v)  # as the warm-up does
    services.editorial_vocabulary(s)
client.get("/")
out = {{}}
for url in {urls!r}:
    t0 = time.process_time()
    r = client.get(url)
    out[url] = [1000 * (time.process_time() - t0), r.status_code, len(r.data)]
print(json.dumps(out))
"""


def run(tree: Path, home: str, urls: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.run(
        [sys.executable, "-c", CHILD.format(home=home, urls=urls)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", required=True)
    ap.add_argument("--base", type=Path)
    ap.add_argument("--base-home")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("urls", nargs="*")
    args = ap.parse_args()
    urls = args.urls or URLS
    trees = [("this", ROOT, args.home)] + ([("base", args.base, args.base_home or args.home)] if args.base else [])
    got: dict[str, dict[str, list]] = {name: {u: [] for u in urls} for name, _, _ in trees}
    for _ in range(args.rounds):
        for name, tree, home in trees:  # alternate, so that load changes touch both alike
            for url, row in run(tree, home, urls).items():
                got[name][url].append(row)
    print(f"load average {os.getloadavg()[0]:.1f}; {args.rounds} rounds; CPU ms of the first request (median)")
    head = f"{'page':32} {'this ms':>8} {'bytes':>8}"
    print(head + (f" {'base ms':>8} {'bytes':>8} {'ratio':>6}" if args.base else ""))
    for url in urls:
        mine = got["this"][url]
        line = f"{url:32} {statistics.median(r[0] for r in mine):8.0f} {mine[0][2]:8d}"
        if args.base:
            base = got["base"][url]
            b, m = statistics.median(r[0] for r in base), statistics.median(r[0] for r in mine)
            line += f" {b:8.0f} {base[0][2]:8d} {m / b if b else 0:6.2f}"
        print(line)


if __name__ == "__main__":
    main()
