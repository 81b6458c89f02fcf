"""Every glossary term of today's Japanese rules, asked as a query: is the rule its entry cites found first?

    python bench/terms.py [--home DIR] [--show]

A set made from the corpus itself, with no one's judgement in it: each entry of the 用語集 of
corpus/cr-ja/JP_CR_20260116.0.txt that cites exactly one rule ("…。rule 702.19〔トランプル〕参照。") is a
query (the term, トランプル) and its answer (that rule, or its first clause: 702.19, 702.19a, 702.19b,
702.19.1). Prints MRR@10 and Success@1; ``--show`` lists the terms not answered first. The glossary's own
references lag behind the rules in a few places (イニシアチブ cites 724, the rules hold it at 725), so 1.0 is
not the ceiling's name for right.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))

from blind import rank  # noqa: E402
from relevance import searcher_of  # noqa: E402

TEXT = ROOT / "corpus" / "cr-ja" / "JP_CR_20260116.0.txt"
_ENTRY = re.compile(r"^([^\s　（(／]+)（[^）]*）／")
_CITED = re.compile(r"rule (\d{3}(?:\.\d+[a-z]?)?)")


def entries(path: Path = TEXT) -> list[tuple[str, str]]:
    """(term, the one rule its definition cites) for each glossary entry citing exactly one rule."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = max(i for i, line in enumerate(lines) if line.strip() == "用語集")  # the glossary, not the contents
    out = []
    for head, definition in zip(lines[start + 1 :], lines[start + 2 :], strict=False):
        m = _ENTRY.match(head)
        cited = set(_CITED.findall(definition)) if m else set()
        if len(cited) == 1:
            out.append((m.group(1), cited.pop()))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", help="a built data home (default: build the bundled corpus into a temporary one)")
    ap.add_argument("--show", action="store_true", help="list the terms not answered first")
    args = ap.parse_args()
    items = entries()
    with tempfile.TemporaryDirectory() as tmp:
        store, searcher = searcher_of(args.home, tmp)
        rr = []
        for term, rule in items:
            hits = searcher.search_page(term, limit=10)["hits"]
            r = rank(hits, [f"mtg:{rule}"] + [f"mtg:{rule}{x}" for x in ("a", "b", ".1")])
            rr.append(1 / r if r else 0.0)
            if args.show and r != 1:
                print(f"  {r or '-':>2}  {term} → {rule}; first: {hits[0]['rule'] if hits else None}")
        store.close()
    print(f"{len(items)} glossary terms: MRR@10 {sum(rr) / len(rr):.3f}  S@1 {sum(x == 1 for x in rr) / len(rr):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
