"""Page kinds cold and warm, and their bytes on the wire (run through ``python bench/web.py``).

Cold: the first request of a page to a server process that warmed up (web/warmup.py), with the CPU the
server spent on it (read from /proc: the figure the machine's load does not inflate); 2nd worker: the
first request of the same page to a second server process sharing the first one's page cache
directory, as the workers of `rulekb serve` do; warm: the same page again.
"""

from __future__ import annotations

import http.client
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COLD_MS, LONG_DIFF_MS, MAX_BYTES = 300, 600, 300_000  # targets: pages and diffs cold; pages over 300 KB in parts
WARM_REPEAT = 10

# (kind, URL): one URL per page kind, none of them asked by the warm-up (web/warmup.py)
PAGES = [
    ("front page", "/"),
    ("search ja", "/search?" + urllib.parse.urlencode({"q": "攻撃クリーチャー", "jump": "0"})),
    ("search en", "/search?" + urllib.parse.urlencode({"q": "first strike damage", "jump": "0"})),
    ("suggest (JSON)", "/api/search?" + urllib.parse.urlencode({"q": "トランプル", "per_page": "6"})),
    ("clause", "/mtg/en/20260116/509.1c"),
    ("clause ja", "/mtg/ja/20260116.0/702.19b"),
    ("rule page 509", "/mtg/en/20260116/509"),
    ("rule page 702", "/mtg/en/20260116/702"),
    ("clause JSON", "/api/mtg/en/20260116/702.19b"),
    ("moved-rule 404", "/mtg/en/20260116/509.7"),
    ("contents", "/mtg/en/20251114/"),
    ("versions", "/versions"),
    ("glossary (en)", "/glossary?lang=en"),
    ("history", "/history/mtg/en/509.1"),
    ("diff 2024→2025", "/diff/mtg/en/20240607/20250207"),
    ("diff 2008→2026", "/diff/mtg/en/20081001/20260116"),
    ("diff 1999→2026", "/diff/mtg/en/19990423/20260116"),
    ("diff part (702, 1st run)", "/diff/mtg/en/20081001/20260116?part=702-1"),
    ("align ja↔en", "/align/mtg/ja/20260116.0/en/20260116"),
    ("align section 7", "/align/mtg/ja/20260116.0/en/20260116?section=7"),
    ("contents ja", "/mtg/ja/20260116.0/"),
    ("diff ja 5.5.0.0→2026", "/diff/mtg/ja/5.5.0.0/20260116.0"),
    ("… its whole (part=all)", "/diff/mtg/ja/5.5.0.0/20260116.0?part=all"),
    ("diff 1999→2026 whole", "/diff/mtg/en/19990423/20260116?part=all"),
    ("article", "/articles"),
    # issue 24: Japanese rule pages (each clause beside its English, terms linked), its pages and history
    ("rule page ja 509", "/mtg/ja/20260116.0/509"),
    ("rule page ja 702", "/mtg/ja/20260116.0/702"),
    ("history ja (English lineage)", "/history/mtg/ja/300.3?version=5.5.0.0"),
    ("stale references", "/mtg/ja/20260116.0/references"),
    ("glossary term", "/glossary/mtg/ja/%E6%8E%A5%E6%AD%BB"),
    ("releases", "/releases"),
    ("diff side by side", "/diff/mtg/en/20250725/20250919?view=side"),
    # the longest pages in parts (issue 20: none over 300 KB but part=all): two-column rule pages, contents and
    # alignment parts, and their wholes
    ("rule page 701 (290 clauses)", "/mtg/en/20260116/701"),
    ("rule page ja 701", "/mtg/ja/20260116.0/701"),
    ("rule page ja 702, part 4", "/mtg/ja/20260116.0/702?part=4"),
    ("rule page 702 whole", "/mtg/en/20260116/702?part=all"),
    ("contents ja, rule 702", "/mtg/ja/20260116.0/?part=702"),
    ("contents ja whole", "/mtg/ja/20260116.0/?part=all"),
    ("align section 1", "/align/mtg/ja/20260116.0/en/20260116?section=1"),
    ("align section 7 whole", "/align/mtg/ja/20260116.0/en/20260116?section=7&part=all"),
    ("clause JSON 701", "/api/mtg/en/20260116/701"),
]
DIFFS = {k for k, url in PAGES if url.startswith("/diff/")}  # 600 ms
WHOLE = {k for k, url in PAGES if url.endswith("part=all")}  # the whole of a long page, asked for: any size

SERVER = """
import sys
from waitress.server import create_server
from web import create_app
app = create_app({home!r}, {{"WARMUP": {warm}, "PAGE_CACHE_DIR": {pages!r}}})
if {warm}:
    app.extensions["rulekb"].warmed.wait(600)
server = create_server(app, host="127.0.0.1", port=0, threads=8)
print(server.effective_port, flush=True)
server.run()
"""


def _home(given: str | None) -> tuple[Path, bool]:
    """A built home: --home, $RULEKB_HOME, else the bundled corpus built now (True: remove it after)."""
    for candidate in (given, os.environ.get("RULEKB_HOME")):
        if candidate and (Path(candidate) / "current").exists():
            return Path(candidate), False
    from kb.build import build_kb

    home = Path(tempfile.mkdtemp(prefix="rulekb-bench-pages-"))
    t0 = time.perf_counter()
    build_kb(home)
    print(f"built the full KB into {home} in {time.perf_counter() - t0:.0f} s", flush=True)
    return home, True


def _serve(home: Path, warm: bool, pages: str) -> tuple[subprocess.Popen, int, float]:
    """A server process on ``home`` whose page cache is the directory ``pages`` (shared by the processes
    of one round, as by the workers of `rulekb serve`)."""
    t0 = time.perf_counter()
    code = SERVER.format(home=str(home), warm=warm, pages=pages)
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline())
    return proc, port, time.perf_counter() - t0


def _cpu(pid: int) -> float:
    """CPU seconds a process has used (user + system), from /proc: what a request cost, whatever the load."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _get(port: int, url: str, coding: str = "br", pid: int = 0) -> tuple[float, int, int, float]:
    """(wall ms, status, bytes, server CPU ms) of one request."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    cpu = _cpu(pid) if pid else 0.0
    t0 = time.perf_counter()
    conn.request("GET", url, headers={"Accept-Encoding": coding})
    resp = conn.getresponse()
    body = resp.read()
    elapsed = time.perf_counter() - t0
    conn.close()
    return elapsed * 1000, resp.status, len(body), ((_cpu(pid) - cpu) * 1000 if pid else 0.0)


def run_pages(home_arg: str | None, rounds: int) -> None:
    home, temporary = _home(home_arg)
    try:
        _measure(home, rounds)
    finally:
        if temporary:
            shutil.rmtree(home, ignore_errors=True)


def _measure(home: Path, rounds: int) -> None:
    cold: dict[str, list[float]] = {k: [] for k, _ in PAGES}
    cpu: dict[str, list[float]] = {k: [] for k, _ in PAGES}
    other: dict[str, list[float]] = {k: [] for k, _ in PAGES}
    warm: dict[str, list[float]] = {k: [] for k, _ in PAGES}
    sizes: dict[str, dict[str, int]] = {}
    status: dict[str, int] = {}
    starts = []
    print(f"{home}; {rounds} rounds; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f}", flush=True)
    for r in range(rounds):
        with tempfile.TemporaryDirectory(prefix="rulekb-bench-pages-") as pages:  # each round starts cold
            proc, port, started = _serve(home, True, pages)
            starts.append(started)
            try:
                for kind, url in PAGES:
                    ms, code, _, used = _get(port, url, pid=proc.pid)
                    cold[kind].append(ms)
                    cpu[kind].append(used)
                    status[kind] = code
                for kind, url in PAGES:
                    warm[kind] += [_get(port, url)[0] for _ in range(WARM_REPEAT)]
                if r == 0:
                    for kind, url in PAGES:
                        sizes[kind] = {c: _get(port, url, c)[2] for c in ("identity", "gzip", "br")}
            finally:
                proc.terminate()
                proc.wait(timeout=30)
            # a second worker process (warmed up too, as every worker of `rulekb serve` is): its first request
            # of each page, which the first one computed
            proc, port, _ = _serve(home, True, pages)
            try:
                for kind, url in PAGES:
                    other[kind].append(_get(port, url)[0])
            finally:
                proc.terminate()
                proc.wait(timeout=30)
        print(f"round {r + 1}: server ready (warm-up done) in {started:.1f} s", flush=True)
    # what the warm-up saves: the same first requests to a server that did not warm up
    with tempfile.TemporaryDirectory(prefix="rulekb-bench-pages-") as pages:
        proc, port, _ = _serve(home, False, pages)
        try:
            firsts = PAGES[:3] + [p for p in PAGES if p[0] in ("versions", "glossary (en)")]
            unwarmed = {k: _get(port, u)[0] for k, u in firsts}
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    _report(cold, cpu, other, warm, sizes, status, unwarmed, starts)


def _report(cold, cpu, other, warm, sizes, status, unwarmed, starts) -> None:
    med = statistics.median
    print(
        f"\n{'page kind':20} {'status':>6} {'cold ms':>8} {'cpu ms':>7} {'2nd worker':>10} {'warm ms':>8} "
        f"{'cold/warm':>9} {'plain B':>9} {'gzip B':>8} {'br B':>8} {'br/plain':>8}"
    )
    missed = []
    for kind, _ in PAGES:
        c, w, sz = med(cold[kind]), med(warm[kind]), sizes[kind]
        print(
            f"{kind:20} {status[kind]:6d} {c:8.1f} {med(cpu[kind]):7.0f} {med(other[kind]):10.1f} {w:8.1f} "
            f"{c / w:9.1f} {sz['identity']:9d} {sz['gzip']:8d} {sz['br']:8d} {sz['br'] / sz['identity']:8.2f}"
        )
        if c > (LONG_DIFF_MS if kind in DIFFS else COLD_MS):
            missed.append(f"{kind} {c:.0f} ms")
        if sz["identity"] > MAX_BYTES and kind not in WHOLE:
            missed.append(f"{kind} {sz['identity'] // 1000} KB")
    total = {c: sum(s[c] for s in sizes.values()) for c in ("identity", "gzip", "br")}
    print(
        f"{'all pages':20} {'':6} {'':8} {'':7} {'':10} {'':8} {'':9} {total['identity']:9d} {total['gzip']:8d} "
        f"{total['br']:8d} {total['br'] / total['identity']:8.2f}"
    )
    print("\nfirst requests without the warm-up (ms):", ", ".join(f"{k} {v:.0f}" for k, v in unwarmed.items()))
    print("with the warm-up, cold (ms):            ", ", ".join(f"{k} {med(cold[k]):.0f}" for k in unwarmed))
    print(f"server start to ready (warm-up included): median {med(starts):.1f} s")
    print(
        f"\ntargets (cold < {COLD_MS} ms, diffs < {LONG_DIFF_MS} ms; pages but part=all under {MAX_BYTES // 1000} KB): "
        + ("met" if not missed else "NOT met: " + ", ".join(missed))
    )
