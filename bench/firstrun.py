"""The first `make run` of a fresh clone: how long until it answers a search, and until the whole KB is live.

    python bench/firstrun.py [--runs 3] [--port 5077]

Clones this repository's committed HEAD into a temporary directory and runs `make run` there (the
install into a new venv included: the packages come from the machine's caches). Then, in the same
clone with its venv and each time into a new data home, alternating:
- baseline: `rulekb build`, then `rulekb serve` (what `make run` did before `serve --build`);
- `rulekb serve --build` (what `make run` runs): today's editions first, the whole KB behind them.
Each is timed to its first answered search (``/search?q=トランプル``) and to the whole KB being live
(the page without the "still being built" banner). Prints every run, the medians and their ratios.
Target (issue 20): a fresh clone's `make run` answers in under 60 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEARCH = "/search?q=%E3%83%88%E3%83%A9%E3%83%B3%E3%83%97%E3%83%AB"  # トランプル
TARGET_S = 60


def _get(port: int, path: str) -> str | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as resp:
            return resp.read().decode()
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def _timed(argv: list[str], port: int, cwd: Path, env: dict, log: Path) -> tuple[float, float]:
    """Start ``argv`` (a shell command line that ends up serving on ``port``): seconds to the first
    answered search, and to a page without the building banner. Stops it (its process group) after."""
    t0 = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen(
            argv, shell=True, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        first = whole = None
        while whole is None:
            if proc.poll() is not None:
                raise SystemExit(f"{argv}: exit {proc.returncode}; see {log}")
            if first is None and _get(port, SEARCH) is not None:
                first = time.perf_counter() - t0
            if first is not None and 'class="building"' not in (_get(port, "/versions") or 'class="building"'):
                whole = time.perf_counter() - t0
            time.sleep(0.25)
        return first, whole
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--port", type=int, default=5077)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="rulekb-firstrun-"))
    try:
        clone = work / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        env = {**os.environ, "RULEKB_HOME": str(work / "home-make")}
        env.pop("VIRTUAL_ENV", None)
        first, whole = _timed(f"make run PORT={args.port}", args.port, clone, env, work / "make.log")
        print(f"fresh clone, make run (install included): first search {first:.1f} s, whole KB {whole:.1f} s")
        rulekb = clone / ".venv" / "bin" / "rulekb"
        ways = {
            "baseline: rulekb build; rulekb serve": f"{rulekb} build -q && {rulekb} serve --port {args.port}",
            "rulekb serve --build": f"{rulekb} serve --build --port {args.port}",
        }
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
        for run in range(args.runs):
            for name, command in ways.items():
                home = work / f"home-{run}"
                shutil.rmtree(home, ignore_errors=True)
                got = _timed(command, args.port, clone, {**env, "RULEKB_HOME": str(home)}, work / "run.log")
                times[name].append(got)
                print(f"run {run + 1}  {name:<40} first search {got[0]:6.1f} s  whole KB {got[1]:6.1f} s", flush=True)
                shutil.rmtree(home, ignore_errors=True)
        base = [statistics.median(t[i] for t in times["baseline: rulekb build; rulekb serve"]) for i in (0, 1)]
        print(f"\n{'median (install not included)':<48} {'first search':>12} {'ratio':>6} {'whole KB':>9} {'ratio':>6}")
        for name, got in times.items():
            med = [statistics.median(t[i] for t in got) for i in (0, 1)]
            print(f"{name:<48} {med[0]:11.1f}s {med[0] / base[0]:6.2f} {med[1]:8.1f}s {med[1] / base[1]:6.2f}")
        print(
            f"target: a fresh clone's make run answers a search in < {TARGET_S} s: {'met' if first < TARGET_S else 'NOT met'}"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
