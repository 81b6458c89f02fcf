"""Score `rulekb link` against the hand-judged citations of real engines (bench/links-judged/judged*.tsv).

    python bench/links_judged.py [NAME=PATH ...] [--home DIR] [--split dev|dev-pawl|heldout|heldout2|heldout3|heldout4|heldout5|heldout6|heldout7] [--errors]

Each NAME=PATH is an engine tree (a checkout of the commit named in bench/links-judged/README.md); an engine
left out is looked for under ``--engines`` (default /tmp/engines/NAME), and skipped with a warning when it is
not there. Link runs without git dating (``git=False``), against the newest edition, on the KB of ``--home``
(default $RULEKB_HOME). Prints, per split (dev, held-out) and pooled:

- first suggestion: rows judged stale/orphan/mismatch with a judged first suggestion (``?`` rows left out)
  whose first suggestion is right (``-``: none offered; ``a|b``: either);
- verdict: rows judged a citation, found, whose status is the judged one;
- recall: rows judged a citation that link reports (at that file, line and id);
- precision: rows link reports that are judged a citation (``none`` rows are reported text that is no
  citation: a version string, an example in a tool's comment).

``--errors`` lists each miss, to work on the dev split's; do not tune on the held-out rows. ``heldout2``
(judged2.tsv, other engines) was judged blind, without link's output, and was scored once at the end of the
session that added it (tuning data since). ``heldout3`` (judged3.tsv, four more engines) was
scored once at the end of the ninth pass and read in the eleventh (tuning data since). ``heldout4``
(judged4.tsv) was scored once at the end of the eleventh pass and read then (tuning data since).
``heldout5`` (judged5.tsv) was scored once at the end of the twelfth pass (tuning data since).
``heldout6`` (judged6.tsv) was scored once at the end of the thirteenth pass (tuning data since).
``heldout7`` (judged7.tsv; sha256 in links-judged/README.md) is the current blind set: scored once.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kb.home import Home  # noqa: E402
from kb.links import link  # noqa: E402

JUDGED = sorted((Path(__file__).resolve().parent / "links-judged").glob("judged*.tsv"))
SPLITS = ("dev", "dev-pawl", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7")
BROKEN = ("stale", "orphan", "mismatch")


def load(paths: list[Path] = JUDGED) -> list[dict]:
    """The judged rows of every file (line as an int)."""
    rows = []
    for path in paths:
        with open(path, encoding="utf-8", newline="") as fh:
            rows += list(csv.DictReader(fh, delimiter="\t"))
    for r in rows:
        r["line"] = int(r["line"])
    return rows


def found(result: dict) -> dict[tuple[str, int, str], dict]:
    """Link's citations keyed by (file, line, id); the first of a class-level citation's copies."""
    out: dict[tuple[str, int, str], dict] = {}
    for c in result["citations"]:
        out.setdefault((c["file"], c["line"], c["rule"]), c)
    return out


def judge(row: dict, got: dict | None) -> dict[str, bool | None]:
    """Which measures this row counts in, and whether link got each right (None: not counted)."""
    cited = row["expected_status"] != "none"
    marks: dict[str, bool | None] = {"recall": None, "precision": None, "verdict": None, "first": None}
    if cited:
        marks["recall"] = got is not None
    if got is not None:
        marks["precision"] = cited
    if cited and got is not None:
        marks["verdict"] = got["status"] == row["expected_status"]
    if row["expected_status"] in BROKEN and row["expected_first"] != "?":
        first = (got or {}).get("suggest", [])[:1]
        want = row["expected_first"].split("|")
        marks["first"] = (first == [] and want == ["-"]) or (bool(first) and first[0] in want)
    return marks


def score(rows: list[dict], results: dict[str, dict]) -> tuple[dict, list[tuple[dict, dict | None, dict]]]:
    """Per split {measure: (right, counted)} and the rows with their citation and marks."""
    table: dict[str, dict[str, list[int]]] = {}
    detail = []
    for row in rows:
        if row["engine"] not in results:
            continue
        got = results[row["engine"]].get((row["file"], row["line"], row["cited"]))
        marks = judge(row, got)
        detail.append((row, got, marks))
        for split in (row["split"], "pooled"):
            for name, ok in marks.items():
                if ok is not None:
                    cell = table.setdefault(split, {}).setdefault(name, [0, 0])
                    cell[0] += ok
                    cell[1] += 1
    return {s: {k: tuple(v) for k, v in m.items()} for s, m in table.items()}, detail


def engine_paths(args_paths: list[str], engines_dir: str, names: set[str]) -> dict[str, str]:
    paths = {}
    for item in args_paths:
        name, _, path = item.partition("=")
        paths[name] = path
    for name in sorted(names - paths.keys()):
        guess = os.path.join(engines_dir, name)
        if os.path.isdir(guess):
            paths[name] = guess
        else:
            print(f"links_judged: warning: no tree for {name} (give {name}=PATH)", file=sys.stderr)
    return paths


def judged_copies(paths: dict[str, str], rows: list[dict], into: str) -> dict[str, str]:
    """Copy each engine's judged files, at their paths, under ``into`` (a file is linked on its own words)."""
    out = {}
    for name, root in paths.items():
        for f in {r["file"] for r in rows if r["engine"] == name}:
            dest = os.path.join(into, name, f)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copyfile(os.path.join(root, f), dest)
        out[name] = os.path.join(into, name)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("engines", nargs="*", metavar="NAME=PATH")
    ap.add_argument("--engines", dest="engines_dir", default="/tmp/engines")
    ap.add_argument("--home", default=os.environ.get("RULEKB_HOME"))
    ap.add_argument("--split", choices=SPLITS)
    ap.add_argument("--errors", action="store_true", help="list the misses (of --split, default dev)")
    ap.add_argument(
        "--judged-files",
        action="store_true",
        help="link only the judged files (fast; the same verdicts unless the whole tree's era differs: kb.links.era)",
    )
    args = ap.parse_args()
    rows = load()
    if args.split:
        rows = [r for r in rows if r["split"] == args.split]  # and only their engines are linked
    paths = engine_paths(args.engines, args.engines_dir, {r["engine"] for r in rows})
    if args.judged_files:
        paths = judged_copies(paths, rows, tempfile.mkdtemp(prefix="links-judged-"))
    store = Home(args.home).open_store()
    results = {}
    for name, path in paths.items():
        t0 = time.perf_counter()
        results[name] = found(link(store, [path], git=False))
        print(f"{name}: {len(results[name])} citations in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    table, detail = score(rows, results)
    print(f"{'split':9} {'first suggestion':>18} {'verdict':>16} {'recall':>16} {'precision':>16}")
    for split in (*SPLITS, "pooled"):
        if split not in table or (args.split and split not in (args.split, "pooled")):
            continue
        m = table[split]
        cells = [
            f"{r}/{n} = {r / n:.2f}" if n else "-"
            for r, n in (m.get(k, (0, 0)) for k in ("first", "verdict", "recall", "precision"))
        ]
        print(f"{split:9} " + " ".join(f"{c:>16}" for c in cells))
    if args.errors:
        which = args.split or "dev"
        for row, got, marks in detail:
            if row["split"] == which and False in marks.values():
                bad = ",".join(k for k, v in marks.items() if v is False)
                status = got["status"] if got else "not found"
                first = (got or {}).get("suggest", [])[:1]
                print(
                    f"{bad:16} {row['engine']} {row['file']}:{row['line']} {row['cited']}: want "
                    f"{row['expected_status']} {row['expected_first']}, got {status} {first}"
                )


if __name__ == "__main__":
    main()
