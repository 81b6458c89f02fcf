"""Wall time of `rulekb` commands from the shell, as a user types them (a new interpreter each time).

    python bench/cli.py [--home DIR] [--runs 15] [--search [--daemon]]

Each command runs ``--runs`` times in turn with the others (round-robin, so a burst of load on the
shared machine hits every command alike); prints the median and the fastest wall time, and the
ratio of the median to a baseline measured in the same run: the bare interpreter starting and
exiting (``python -c pass``), the floor of any command; and the median CPU time (user + system) each
took, which the load of a shared machine does not inflate as it does the wall time. Bytecode is written once before timing (a
first run), as an installed rulekb has it. ``--search`` adds the searches, each twice: searched in the
command's own process (``--local``), and answered by a ``rulekb serve`` of the home that the benchmark
starts first (kb.remote). With ``--daemon``, no server: the searches without ``--local`` are answered by
the daemon that a first ``rulekb search`` starts (web.clidaemon), and the first search itself, with no
daemon up, is timed too (``--runs`` times, each after the daemon is stopped).
Targets: ``show`` under 150 ms; ``versions``, ``history`` and a small ``diff`` snappy (under 300 ms);
a Japanese search under 400 ms.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULEKB = str(Path(sys.executable).with_name("rulekb"))

COMMANDS = {
    "baseline: python -c pass": [sys.executable, "-c", "pass"],
    "rulekb --help": [RULEKB, "--help"],
    "show 509.1c": [RULEKB, "show", "509.1c"],
    "show 702.19b --lang en --json": [RULEKB, "show", "702.19b", "--lang", "en", "--json"],
    "versions": [RULEKB, "versions"],
    "history 509.1c": [RULEKB, "history", "509.1c"],
    "diff 20250919 20251114": [RULEKB, "diff", "20250919", "20251114"],
}
SEARCHES = {
    "search 509.1c --local": [RULEKB, "search", "509.1c", "--local"],
    "search 統率者ダメージ 21点 --local": [RULEKB, "search", "統率者ダメージ 21点", "--local"],
    # the same, answered by a `rulekb serve` of the home that this benchmark starts (kb.remote)
    "search 509.1c (server)": [RULEKB, "search", "509.1c"],
    "search 統率者ダメージ 21点 (server)": [RULEKB, "search", "統率者ダメージ 21点"],
}
SEARCH_TARGET_MS = 400  # a Japanese query (issue 20)
TARGETS_MS = {"show 509.1c": 150, "show 702.19b --lang en --json": 150}
SNAPPY_MS = 300


def run_once(argv: list[str], env: dict) -> tuple[float, float]:
    """(wall ms, CPU ms) of one command; the CPU time (user + system) is what the machine's load does not inflate."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    elapsed = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[1:])}: exit {proc.returncode}: {proc.stderr.decode()[:300]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed * 1000, cpu * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--home", default=os.environ.get("RULEKB_HOME"), help="a built data home (default: $RULEKB_HOME)")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--search", action="store_true", help="time the searches too")
    ap.add_argument("--daemon", action="store_true", help="with --search: the daemon answers, not a server")
    args = ap.parse_args()
    if not args.home or not (Path(args.home) / "current").exists():
        raise SystemExit("give a built data home: --home DIR or RULEKB_HOME (rulekb build makes one)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["RULEKB_HOME"] = args.home
    commands = {**COMMANDS, **(SEARCHES if args.search else {})}
    if args.daemon:
        import tempfile

        runtime = tempfile.mkdtemp(prefix="rulekb-bench-")  # its own socket directory: no server of the home answers
        env.update(XDG_RUNTIME_DIR=runtime, RULEKB_DAEMON="1")
        commands = {k.replace("(server)", "(daemon)"): v for k, v in commands.items()}
        try:
            first_searches(args, env)
            start_daemon(env)
            timed(args, env, commands)
        finally:
            stop_daemons(env)
        return
    server = start_server(env) if args.search else None
    try:
        timed(args, env, commands)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=60)


def daemon_pids(env: dict) -> list[int]:
    out = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"web.clidaemon" in argv and os.fsencode(str(Path(env["RULEKB_HOME"]).absolute())) in argv:
            out.append(int(cmdline.parent.name))
    return out


def stop_daemons(env: dict) -> None:
    import signal

    for pid in daemon_pids(env):
        os.kill(pid, signal.SIGTERM)
    deadline = time.time() + 30
    while daemon_pids(env) and time.time() < deadline:
        time.sleep(0.1)


def start_daemon(env: dict) -> None:
    """A first search starts the daemon; returns once the daemon answers."""
    from kb import remote

    run_once(SEARCHES["search 統率者ダメージ 21点 (server)"], env)
    os.environ["XDG_RUNTIME_DIR"] = env["XDG_RUNTIME_DIR"]
    question = {"op": "search", "query": "統率者ダメージ", "game": None, "lang": None, "version": None, "limit": 1}
    deadline = time.time() + 120
    while remote.ask(env["RULEKB_HOME"], question) is None:
        if time.time() > deadline:
            raise SystemExit("the daemon did not answer the command line's searches")
        time.sleep(0.2)


def first_searches(args, env: dict) -> None:
    """The search that finds no daemon up: it searches by itself and starts one (median of ``--runs``)."""
    argv = SEARCHES["search 統率者ダメージ 21点 (server)"]
    walls = []
    for _ in range(args.runs):
        stop_daemons(env)
        walls.append(run_once(argv, env)[0])
        start_daemon(env)  # wait for it to load before the next round: it would take a core meanwhile
    print(
        f"first search, no daemon up (it starts one): median {statistics.median(walls):.0f} ms, min {min(walls):.0f} ms"
    )


def start_server(env: dict) -> subprocess.Popen:
    """`rulekb serve` of the home on a free port, once its socket answers a search (the model loaded)."""
    proc = subprocess.Popen([RULEKB, "serve", "--port", "0"], env=env, stdout=subprocess.PIPE, cwd=ROOT)
    proc.stdout.readline()  # "serving http://…"
    from kb import remote

    deadline = time.time() + 120
    question = {"op": "search", "query": "統率者ダメージ", "game": None, "lang": None, "version": None, "limit": 1}
    while remote.ask(env["RULEKB_HOME"], question) is None:
        if time.time() > deadline or proc.poll() is not None:
            proc.kill()
            raise SystemExit("the server did not answer the command line's searches")
        time.sleep(0.2)
    for _ in range(4):  # both workers warm (the kernel hands each question to either)
        remote.ask(env["RULEKB_HOME"], question)
    return proc


def timed(args, env: dict, commands: dict) -> None:
    for argv in commands.values():  # writes the bytecode, opens the files once: not timed
        run_once(argv, env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, argv in commands.items():
            wall, cpu = run_once(argv, env)
            times[name].append(wall)
            cpus[name].append(cpu)
    base = statistics.median(times["baseline: python -c pass"])
    print(f"{args.home}; {args.runs} runs each; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f}")
    print(f"\n{'command':34} {'median ms':>10} {'min ms':>8} {'cpu ms':>7} {'x baseline':>10}")
    missed = []
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:34} {med:10.0f} {min(ts):8.0f} {statistics.median(cpus[name]):7.0f} {med / base:10.1f}")
        limit = TARGETS_MS.get(name, SNAPPY_MS if not name.startswith(("baseline", "search")) else None)
        if name.startswith("search 統率者"):
            limit = SEARCH_TARGET_MS
        if limit and med > limit:
            missed.append(f"{name} {med:.0f} ms > {limit}")
    print(
        f"\ntargets (show < 150 ms; versions, history, small diff < {SNAPPY_MS} ms; a Japanese search"
        f" < {SEARCH_TARGET_MS} ms): " + ("met" if not missed else "NOT met: " + "; ".join(missed))
    )


if __name__ == "__main__":
    main()
