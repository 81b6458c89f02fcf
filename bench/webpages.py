"""Page kinds cold and warm, and their bytes on the wire (run through ``python bench/web.py``)."""

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
COLD_MS, LONG_DIFF_MS = 300, 600  # targets: every page kind cold; a diff across more than 10 years
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
    ("diff 2008→2026 *", "/diff/mtg/en/20081001/20260116"),
    ("diff 1999→2026 *", "/diff/mtg/en/19990423/20260116"),
    ("diff part (rule 702)", "/diff/mtg/en/20081001/20260116?part=702"),
    ("align ja↔en", "/align/mtg/ja/20260116.0/en/20260116"),
    ("article", "/articles"),
    # issue 24: Japanese rule pages (each clause beside its English, terms linked), its pages and history
    ("rule page ja 509", "/mtg/ja/20260116.0/509"),
    ("rule page ja 702", "/mtg/ja/20260116.0/702"),
    ("history ja (English lineage)", "/history/mtg/ja/300.3?version=5.5.0.0"),
    ("stale references", "/mtg/ja/20260116.0/references"),
    ("glossary term", "/glossary/mtg/ja/%E6%8E%A5%E6%AD%BB"),
    ("releases", "/releases"),
    ("diff side by side", "/diff/mtg/en/20250725/20250919?view=side"),
]
LONG = {"diff 2008→2026 *", "diff 1999→2026 *", "diff part (rule 702)"}  # across more than 10 years

SERVER = """
import sys
from waitress.server import create_server
from web import create_app
app = create_app({home!r}, {{"WARMUP": {warm}}})
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


def _serve(home: Path, warm: bool) -> tuple[subprocess.Popen, int, float]:
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER.format(home=str(home), warm=warm)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    port = int(proc.stdout.readline())
    return proc, port, time.perf_counter() - t0


def _get(port: int, url: str, coding: str = "br") -> tuple[float, int, int]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    t0 = time.perf_counter()
    conn.request("GET", url, headers={"Accept-Encoding": coding})
    resp = conn.getresponse()
    body = resp.read()
    elapsed = time.perf_counter() - t0
    conn.close()
    return elapsed * 1000, resp.status, len(body)


def run_pages(home_arg: str | None, rounds: int) -> None:
    home, temporary = _home(home_arg)
    try:
        _measure(home, rounds)
    finally:
        if temporary:
            shutil.rmtree(home, ignore_errors=True)


def _measure(home: Path, rounds: int) -> None:
    cold: dict[str, list[float]] = {k: [] for k, _ in PAGES}
    warm: dict[str, list[float]] = {k: [] for k, _ in PAGES}
    sizes: dict[str, dict[str, int]] = {}
    status: dict[str, int] = {}
    starts = []
    print(f"{home}; {rounds} rounds; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f}", flush=True)
    for r in range(rounds):
        proc, port, started = _serve(home, warm=True)
        starts.append(started)
        try:
            for kind, url in PAGES:
                ms, code, _ = _get(port, url)
                cold[kind].append(ms)
                status[kind] = code
            for kind, url in PAGES:
                warm[kind] += [_get(port, url)[0] for _ in range(WARM_REPEAT)]
            if r == 0:
                for kind, url in PAGES:
                    sizes[kind] = {c: _get(port, url, c)[2] for c in ("identity", "gzip", "br")}
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        print(f"round {r + 1}: server ready (warm-up done) in {started:.1f} s", flush=True)
    # what the warm-up saves: the same first requests to a server that did not warm up
    proc, port, _ = _serve(home, warm=False)
    try:
        unwarmed = {
            k: _get(port, u)[0] for k, u in PAGES[:3] + [p for p in PAGES if p[0] in ("versions", "glossary (en)")]
        }
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    _report(cold, warm, sizes, status, unwarmed, starts)


def _report(cold, warm, sizes, status, unwarmed, starts) -> None:
    med = statistics.median
    print(
        f"\n{'page kind':20} {'status':>6} {'cold ms':>8} {'warm ms':>8} {'cold/warm':>9} "
        f"{'plain B':>9} {'gzip B':>8} {'br B':>8} {'br/plain':>8}"
    )
    missed = []
    for kind, _ in PAGES:
        c, w, sz = med(cold[kind]), med(warm[kind]), sizes[kind]
        print(
            f"{kind:20} {status[kind]:6d} {c:8.1f} {w:8.1f} {c / w:9.1f} {sz['identity']:9d} {sz['gzip']:8d} "
            f"{sz['br']:8d} {sz['br'] / sz['identity']:8.2f}"
        )
        if c > (LONG_DIFF_MS if kind in LONG else COLD_MS):
            missed.append(f"{kind} {c:.0f} ms")
    total = {c: sum(s[c] for s in sizes.values()) for c in ("identity", "gzip", "br")}
    print(
        f"{'all pages':20} {'':6} {'':8} {'':8} {'':9} {total['identity']:9d} {total['gzip']:8d} {total['br']:8d} "
        f"{total['br'] / total['identity']:8.2f}"
    )
    print("\nfirst requests without the warm-up (ms):", ", ".join(f"{k} {v:.0f}" for k, v in unwarmed.items()))
    print("with the warm-up, cold (ms):            ", ", ".join(f"{k} {med(cold[k]):.0f}" for k in unwarmed))
    print(f"server start to ready (warm-up included): median {med(starts):.1f} s")
    print(
        f"\ntargets (cold < {COLD_MS} ms; * diffs across > 10 years < {LONG_DIFF_MS} ms): "
        + ("met" if not missed else "NOT met: " + ", ".join(missed))
    )
