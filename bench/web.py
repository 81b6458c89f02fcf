"""The web app on loopback: each page kind cold and warm with its bytes on the wire, or under load.

    python bench/web.py [--home DIR] [--rounds 3]                 # page kinds (default)
    python bench/web.py --load [--clients 50] [--duration 30] [--home DIR] [--threads 8]
    python bench/web.py --load --kinds clause,diff,contents,align --unique-pages --baseline
    python bench/web.py --hits --home DIR          # CPU of one repeated page in the app, page cache on/off

Page kinds (``bench/webpages.py``): the server runs in its own process on the full KB (``--home``,
else ``$RULEKB_HOME``, else the bundled corpus built into a temporary home); each round starts a new
process, waits for its warm-up, then asks every URL once (cold: nothing of that page computed yet)
and ten times more (warm). Prints medians over the rounds, the cold/warm ratio, the bytes sent plain,
gzip and brotli, and what the first requests cost without the warm-up. Targets: every page kind
under 300 ms cold, diffs across more than 10 years under 600 ms.

Load: each client keeps one HTTP/1.1 connection and sends requests back to back (a closed loop, no
think time); without ``--home`` it serves the bundled corpus built into a temporary home (a given home
is copied: the server's page cache goes to a temporary directory). ``--kinds`` picks the page kinds
(search, clause, diff, contents, align); ``--unique-pages`` makes (almost) every clause page a new
one (any clause of any version); ``--baseline`` runs the same load first with the page cache off
(web/pagecache.py: each worker computes and renders its own pages), then on, and prints the ratio.
Prints requests/s, p50/p95 latency per page kind, and errors. Targets: 0 errors, search p95 under
150 ms.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUERIES = [
    "ブロッククリーチャー",
    "ブロック・クリーチャー",
    "戦闘ダメージ",
    "防御プレイヤー",
    "ブロック強制",
    "攻撃クリーチャー",
    "マナ能力",
    "不正な処理",
    "誘発型能力",
    "ダメージ割り振り順",
    "先制攻撃",
    "トランプル",
    "ブロックされていない",
    "blocking creature",
    "declare blockers",
    "combat damage",
    "first strike",
    "ブロッカー",
    "シールド",
    "509.1c",
]
CLAUSES = ["509.1", "509.1a", "509.1c", "509.1h", "509.2", "510.1", "510.1c", "510.2", "509", "5"]


def prepare_home() -> Path:
    """Build the bundled corpus (every English edition, the Japanese texts, the DM rules) into a fresh home."""
    from kb.build import build_kb

    home = Path(tempfile.mkdtemp(prefix="rulekb-bench-web-"))
    t0 = time.perf_counter()
    build_kb(home)
    print(f"built {home} in {time.perf_counter() - t0:.1f} s", flush=True)
    return home


def page_urls(home: Path) -> dict[str, list[str]]:
    """Search, clause, diff, contents and alignment URLs that exist in this KB."""
    from kb.home import Home

    store = Home(home).open_store()
    clauses, diffs, contents, aligns = [], [], [], []
    for game, lang in {(v.game, v.lang) for v in store.versions()}:
        vs = store.versions(game, lang)
        for v in vs:
            clauses += [f"/{game}/{lang}/{v.label}/{r}" for r in CLAUSES if store.node(v, r) is not None]
            contents.append(f"/{game}/{lang}/{v.label}/")
            if lang == "ja" and (v.meta.get("renders") or {}).get("label"):
                page = f"/align/{game}/ja/{v.label}/en/{v.meta['renders']['label']}"
                aligns += [page] + [f"{page}?section={s}" for s in "1579"]
        diffs += [f"/diff/{game}/{lang}/{a.label}/{b.label}" for a, b in itertools.pairwise(vs)]
    searches = ["/search?" + urllib.parse.urlencode({"q": q, "jump": "0"}) for q in QUERIES]
    searches += ["/search?" + urllib.parse.urlencode({"q": q, "jump": "0", "page": 2}) for q in QUERIES[:5]]
    store.close()
    return {"search": searches, "clause": clauses, "diff": diffs, "contents": contents, "align": aligns}


def every_clause(home: Path) -> list[str]:
    """The URL of every clause of every version (for pages the server has most likely not seen)."""
    from kb.home import Home

    store = Home(home).open_store()
    urls = [f"/{v.game}/{v.lang}/{v.label}/{rule}" for v in store.versions() for rule in store.rules(v)]
    store.close()
    return urls


def tree_cpu(pid: int) -> float:
    """CPU seconds used so far by a process and its descendants (Linux /proc; 0 elsewhere)."""
    total, todo = 0.0, [pid]
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    while todo:
        p = todo.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError, IndexError):
            continue
    return total


def wait_idle(pid: int, most: float = 120.0) -> float:
    """Wait until the server's processes use under a tenth of a core for a second (each worker warms
    its generation in the background at start: web.warmup); the seconds waited."""
    t0 = time.perf_counter()
    before = tree_cpu(pid)
    while time.perf_counter() - t0 < most:
        time.sleep(1.0)
        now = tree_cpu(pid)
        if now - before < 0.1:
            break
        before = now
    return time.perf_counter() - t0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(home: Path, port: int, threads: int, workers: int, config: dict | None = None) -> subprocess.Popen:
    code = (
        "import logging; logging.getLogger('waitress.queue').setLevel(logging.ERROR)\n"  # expected under load
        f"import web; web.DEFAULTS.update({config or {}!r})\n"
        f"from web.server import serve; serve({str(home)!r}, port={port}, threads={threads}, workers={workers})"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.DEVNULL)
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def glossary_words(home: Path) -> list[str]:
    """The KB's Japanese glossary terms (some 1,800: three million ordered pairs)."""
    from kb.home import Home

    store = Home(home).open_store()
    try:
        sql = "SELECT term FROM terms WHERE lang='ja' AND length(term) <= 12"
        return sorted({t for (t,) in store.conn.execute(sql)})
    finally:
        store.close()


def unique_search(rng: random.Random, words: list[str] | None = None) -> str:
    """A search the server has most likely not seen: two query words, a random page size and page.
    From the bench's 19 words (342 pairs: in a long run a pair comes back with another page), or from
    ``words`` (the glossary: every search new)."""
    q = " ".join(rng.sample(words or QUERIES[:-1], 2))
    params = {"q": q, "jump": "0", "per_page": rng.randint(5, 20), "page": rng.randint(1, 2)}
    return "/search?" + urllib.parse.urlencode(params)


def client(port: int, urls: list[tuple[str, str]], stop: float, out: list, seed: int, unique=(False, [])) -> None:
    rng = random.Random(seed)
    unique_searches, pool = unique
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while time.perf_counter() < stop:
        kind, url = rng.choice(urls)
        if unique_searches and kind == "search":
            url = unique_search(rng, unique_searches if isinstance(unique_searches, list) else None)
        elif pool and kind == "clause":
            url = rng.choice(pool)
        t0 = time.perf_counter()
        try:
            conn.request("GET", url)
            resp = conn.getresponse()
            resp.read()
            ok = resp.status == 200
        except (OSError, http.client.HTTPException):
            ok = False
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        out.append((kind, time.perf_counter() - t0, ok, url))
    conn.close()


def pct(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100)[p - 1] if len(values) >= 2 else (values[0] if values else 0.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--home", help="a built data home (default: build one in a temporary directory)")
    ap.add_argument("--load", action="store_true", help="concurrent clients instead of page kinds cold and warm")
    ap.add_argument("--rounds", type=int, default=3, help="page kinds: fresh server processes to take medians over")
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--duration", type=float, default=30.0, help="seconds of load (after a warm-up pass)")
    ap.add_argument("--threads", type=int, default=8, help="waitress worker threads (per process)")
    ap.add_argument("--workers", type=int, default=0, help="server processes (default: one per core, as rulekb serve)")
    ap.add_argument(
        "--unique-searches",
        action="store_true",
        help="make (almost) every search new, so the per-generation result cache rarely helps",
    )
    ap.add_argument(
        "--search-words",
        choices=("bench", "glossary"),
        default="bench",
        help="unique searches pair the bench's 19 words (the figures before and after) or the glossary's terms",
    )
    ap.add_argument("--unique-pages", action="store_true", help="clause pages drawn from every clause of every version")
    ap.add_argument("--kinds", default="search,clause,diff", help="page kinds to ask for (comma-separated)")
    ap.add_argument("--baseline", action="store_true", help="first the same load with the page cache off")
    ap.add_argument("--no-warm", action="store_true", help="skip the pass that asks every URL once before the load")
    ap.add_argument("--hits", action="store_true", help="CPU per repeated page in this process, page cache on and off")
    args = ap.parse_args()
    if args.hits:
        home = Path(args.home or os.environ.get("RULEKB_HOME", ""))
        if not (home / "current").exists():
            raise SystemExit("--hits needs a built home: --home DIR or RULEKB_HOME")
        hits(home)
        return
    if not args.load:
        from webpages import run_pages  # bench/webpages.py, beside this script

        run_pages(args.home, args.rounds)
        return
    home = Path(args.home) if args.home else prepare_home()
    try:
        runs = [("page cache off (baseline)", {"PAGE_CACHE": False}), ("page cache on", {})] if args.baseline else []
        results = []
        for name, config in runs or [("", {})]:
            if name:
                print(f"\n== {name}")
            with tempfile.TemporaryDirectory(prefix="rulekb-bench-pages-") as pages_dir:
                results.append(run(home, args, {**config, "PAGE_CACHE_DIR": pages_dir}))
        if len(results) == 2:
            (r0, e0), (r1, e1) = results
            print(f"\npage cache on / off: {r1:.0f} / {r0:.0f} requests/s = {r1 / r0:.2f}; errors {e1} / {e0}")
    finally:
        if not args.home:
            shutil.rmtree(home, ignore_errors=True)


HIT_PAGES = ["/mtg/en/20260116/509.1c", "/mtg/ja/20260116.0/", "/diff/mtg/en/20240607/20250207", "/versions"]


def hits(home: Path, repeat: int = 500) -> None:
    """The CPU one repeated page costs the app (WSGI, brotli accepted), the page cache off (the baseline:
    Flask answers from its per-generation caches) and on; medians of 5 runs of ``repeat`` requests."""
    import io

    from web import create_app

    def call(app, url: str) -> None:
        path, _, query = url.partition("?")
        env = {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "SERVER_NAME": "bench",
            "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(),
            "HTTP_ACCEPT_ENCODING": "br",
        }
        b"".join(app.wsgi_app(env, lambda status, headers, exc_info=None: None))

    print(f"{home}; {repeat} requests x 5 per page; load average {os.getloadavg()[0]:.1f}")
    print(f"\n{'page':34} {'cache off us':>12} {'on us':>8} {'off/on':>7}")
    with tempfile.TemporaryDirectory(prefix="rulekb-bench-hits-") as pages_dir:
        apps = [create_app(home, {"WARMUP": False, "PAGE_CACHE": on, "PAGE_CACHE_DIR": pages_dir}) for on in (0, 1)]
        for url in HIT_PAGES:
            per = []
            for app in apps:
                call(app, url)  # computed once: what follows are hits
                runs = []
                for _ in range(5):
                    t = time.process_time()
                    for _ in range(repeat):
                        call(app, url)
                    runs.append((time.process_time() - t) / repeat * 1e6)
                per.append(statistics.median(runs))
            print(f"{url:34} {per[0]:12.0f} {per[1]:8.0f} {per[0] / per[1]:7.1f}")


def run(home: Path, args: argparse.Namespace, config: dict) -> tuple[float, int]:
    """Serve ``home`` in a child process, warm it, load it, print the figures; (requests/s, errors)."""
    kinds = [k for k in args.kinds.split(",") if k]
    pages = {k: v for k, v in page_urls(home).items() if k in kinds}
    urls = [(kind, u) for kind, us in pages.items() for u in us]
    pool = every_clause(home) if args.unique_pages else []
    searches = args.unique_searches and (glossary_words(home) if args.search_words == "glossary" else True)
    print(
        ", ".join(f"{len(us)} {kind}" for kind, us in pages.items())
        + f" URLs; {args.clients} clients, {args.duration:.0f} s, {args.threads} server threads; {os.cpu_count()} CPUs;"
        f" load average {os.getloadavg()[0]:.1f}"
        + (f"; unique searches ({args.search_words} words)" if args.unique_searches else "")
        + (f"; unique clause pages (of {len(pool)})" if pool else "")
    )
    port = free_port()
    from web.server import default_workers

    workers = args.workers or default_workers()
    print(f"{workers} server processes")
    server = start_server(home, port, args.threads, workers, config)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        for _kind, u in [] if args.no_warm else urls:  # one pass first: opens the stores, computes each diff once
            conn.request("GET", u)
            conn.getresponse().read()
        conn.close()
        if not args.no_warm:
            print(f"waited {wait_idle(server.pid):.1f} s for the workers' warm-up to finish")
        results: list = []
        stop = time.perf_counter() + args.duration
        clients_ = [
            threading.Thread(target=client, args=(port, urls, stop, results, i, (searches, pool)))
            for i in range(args.clients)
        ]
        t0 = time.perf_counter()
        for w in clients_:
            w.start()
        for w in clients_:
            w.join()
        elapsed = time.perf_counter() - t0
    finally:
        server.terminate()
        server.wait(timeout=10)
    errors = [r for r in results if not r[2]]
    print(
        f"\n{len(results)} requests in {elapsed:.1f} s: {len(results) / elapsed:.0f} requests/s, {len(errors)} errors"
    )
    print(f"{'page':8} {'count':>7} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for kind in [*pages, "all"]:
        lat = [r[1] * 1000 for r in results if kind in ("all", r[0])]
        if lat:
            print(f"{kind:8} {len(lat):7d} {pct(lat, 50):8.1f} {pct(lat, 95):8.1f} {max(lat):8.1f}")
    for r in errors[:5]:
        print("error:", r[3])
    if "search" in pages:
        search_p95 = pct([r[1] * 1000 for r in results if r[0] == "search"], 95)
        verdict = "met" if not errors and search_p95 < 150 else "NOT met"
        print(f"\ntarget (0 errors, search p95 < 150 ms): {verdict}")
    return len(results) / elapsed, len(errors)


if __name__ == "__main__":
    main()
