"""Score the search on a frozen blind set (bench/blind/queries.tsv): MRR@10 and S@1 per kind.

    python bench/blind.py [--home DIR] [--set bench/blind2/queries.tsv] [--show]

Run it once per change worth reporting, never to tune: the set was written by a helper that saw only
the rule texts, and nothing in the code may be fitted to it (bench/queries.tsv is the tuning set).
On the full bundled KB (``--home`` a built data home, else the bundled corpus is built into a
temporary one). Each query is asked as the search page asks it (default scope, ten hits).

Targets: ``mtg:ID`` a clause of today's MTG rules in either language, ``dm:ID`` a clause of the Duel
Masters rules, ``mtg@VERSION:ID`` that clause of that version (the 2008 private translation's old
numbering), ``none`` nothing should be found: the page must say so (no hits, or confidence ``low``).
Groups: plain (term, notation, inflection, number, english, dm, legacy), hard (paraphrase, slang,
multi), questions, and all answerable queries together. ``--show`` lists each query's rank.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))

from relevance import progress, searcher_of  # noqa: E402

from kb.errors import RulekbError  # noqa: E402

BLIND = ROOT / "bench" / "blind" / "queries.tsv"
BLIND_SETS = tuple([BLIND] + [ROOT / "bench" / f"blind{n}" / "queries.tsv" for n in (2, 3, 4, 5, 6, 7, 8, 9)])
# every frozen set above: never tuned on
GROUPS = {
    "plain": ("term", "notation", "inflection", "number", "english", "dm", "legacy"),
    "hard": ("paraphrase", "slang", "multi"),
    "questions": ("question",),
}


def load(path: Path = BLIND) -> list[tuple[str, str, list[str]]]:
    out = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 3:
            raise SystemExit(f"{path}:{lineno}: expected KIND<TAB>QUERY<TAB>EXPECTED")
        out.append((cols[0], cols[1], cols[2].split()))
    return out


def matches(hit: dict, target: str) -> bool:
    where, _, rule = target.rpartition(":")
    game, _, version = where.partition("@")
    if hit.get("game") != game or hit.get("rule") != rule:
        return False
    if version:
        return hit.get("version") == version
    return game != "mtg" or hit.get("version") != "5.5.0.0"  # today's rules, not the 2008 numbering


def rank(hits: list[dict], targets: list[str]) -> int | None:
    for i, h in enumerate(hits[:10], 1):
        if any(matches(h, t) for t in targets):
            return i
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", help="a built data home (default: build the bundled corpus into a temporary one)")
    ap.add_argument("--set", type=Path, default=BLIND, help="the frozen set to score (default %(default)s)")
    ap.add_argument("--show", action="store_true", help="print each query's rank")
    args = ap.parse_args()

    queries = load(args.set)
    digest = hashlib.sha256(args.set.read_bytes()).hexdigest()[:16]
    print(f"blind set {args.set}: {len(queries)} queries, sha256 {digest}")
    with tempfile.TemporaryDirectory() as tmp:
        store, searcher = searcher_of(args.home, tmp)
        rr: dict[str, list[float]] = defaultdict(list)
        s1: dict[str, list[int]] = defaultdict(list)
        said_none = []
        for i, (kind, q, targets) in enumerate(queries, 1):
            try:
                page = searcher.search_page(q, limit=10)
            except RulekbError:
                page = {"hits": [], "confidence": "low"}
            if targets == ["none"]:
                ok = not page["hits"] or page.get("confidence") == "low"
                said_none.append(ok)
                if args.show:
                    print(f"  {kind:10} {'not found' if ok else 'FOUND':9}  {q}")
            else:
                r = rank(page["hits"], targets)
                rr[kind].append(1 / r if r else 0.0)
                s1[kind].append(r == 1)
                if args.show:
                    print(f"  {kind:10} {r or '-':>9}  {q}")
            progress(i, len(queries), "queries")
        print(file=sys.stderr)
        store.close()

    def line(name: str, kinds) -> None:
        xs = [x for k in kinds for x in rr[k]]
        ones = [x for k in kinds for x in s1[k]]
        if xs:
            print(f"  {name:12} n {len(xs):4}  MRR@10 {sum(xs) / len(xs):.3f}  S@1 {sum(ones) / len(ones):.3f}")

    print("per kind:")
    for kind in sorted(rr):
        line(kind, [kind])
    print("groups:")
    for name, kinds in GROUPS.items():
        line(name, kinds)
    line("ALL", list(rr))
    print(f"  nonsense     n {len(said_none):4}  said not found: {sum(said_none)}/{len(said_none)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
