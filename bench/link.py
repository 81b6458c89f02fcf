"""Benchmark the citation scanner on real trees (or a generated one): files/s, citations, median of runs.

    python bench/link.py [PATH...] [--runs N] [--git] [--files N]

With no PATH it scans a generated tree of ``--files`` test files (Python, Java, TypeScript). For each
tree it prints files, tests, citations, embedded rules copies, the median wall and CPU seconds of
``--runs`` scans, files/s, and the ratio to a baseline measured in the same process just before: one
pass that reads and decodes the same files and finds every ``NNN.N`` in them (the floor any scanner
pays), so the ratio says what the scan costs beyond reading, whatever the machine. ``--git`` also
times one scan followed by git dating (``git blame`` of each file holding an undated citation; the tree
must be a git work tree). Targets: >= 1,000 files/s without git dating; under 5 s for the generated tree.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kb.links.extract import scan_tree  # noqa: E402
from kb.links.scanner import read_text, walk  # noqa: E402

_RULES = ["509.1c", "702.19b", "104.3a", "601.2e–g", "614.1cd", "702.90a", "613.7", "800.4a/800.4d"]

_PY = '''"""Generated tests {n}."""
import pytest


class TestCase{n}:
    """CR {r0}: class level."""

    def test_{n}_a(self):
        """CR {r1} & {r2}: several in one."""
        assert 290.2 * {n} > 0

    @pytest.mark.rule("{r3}")
    def test_104_3b_case_{n}(self):
        x = {{"k": 601.2}}  # 20200417 - {r4}
        assert x
'''
_PY_TAIL = "".join(f"\n    def test_filler_{i}(self):\n        assert {i} + 1 > {i}\n" for i in range(12))

_JAVA = """package gen;

import org.junit.Test;

/**
 * Rule {r0}
 */
public class Gen{n}Test extends Base {{
    /** rule {r1} */
    @Test
    public void testOne() {{
        // {r2}
        assertEquals(290.2, life(), 0.0);
    }}
"""
_JAVA_TAIL = (
    "".join(
        f"\n    @Test\n    public void filler{i}() {{\n        assertEquals({i}, {i});\n    }}\n" for i in range(12)
    )
    + "}\n"
)

_TS = """import {{ describe, it, expect }} from "vitest";

describe("generated {n} (CR {r0})", () => {{
  it("applies (CR {r1})", () => {{
    // 総合ルール {r2}
    expect(290.2).toBe(290.2);
  }});
"""
_TS_TAIL = "".join(f'  it("filler {i}", () => {{ expect({i}).toBe({i}); }});\n' for i in range(12)) + "});\n"

_TEMPLATES = [("py", _PY, _PY_TAIL), ("java", _JAVA, _JAVA_TAIL), ("test.ts", _TS, _TS_TAIL)]


def generate(root: str, count: int) -> None:
    """Write ``count`` test files, cycling through Python, Java and TypeScript."""
    rnd = random.Random(7)
    for n in range(count):
        ext, template, tail = _TEMPLATES[n % len(_TEMPLATES)]
        folder = os.path.join(root, f"pkg{n // 250}")
        os.makedirs(folder, exist_ok=True)
        name = f"test_gen_{n}.{ext}" if ext == "py" else (f"Gen{n}Test.java" if ext == "java" else f"gen{n}.{ext}")
        rules = {f"r{i}": rnd.choice(_RULES) for i in range(5)}
        with open(os.path.join(folder, name), "w", encoding="utf-8") as fh:
            fh.write(template.format(n=n, **rules) + tail)


def measure(path: str) -> tuple[int, int, int, int, float, float]:
    """(files, citations, tests, embedded copies, wall seconds, CPU seconds) of one scan."""
    t, cpu = time.perf_counter(), time.process_time()
    found = scan_tree([path])
    wall, cpu = time.perf_counter() - t, time.process_time() - cpu
    return found.files, len(found.citations), len(found.tests), len(found.embedded), wall, cpu


_ANY_ID = re.compile(r"\d{3}\.\d")


def baseline(path: str) -> float:
    """Wall seconds to read and decode every scanned file and find every NNN.N in it (no lexing, no tests)."""
    t = time.perf_counter()
    for full, _rel in walk([path]):
        text = read_text(full)
        if text is not None:
            _ANY_ID.findall(text)
    return time.perf_counter() - t


def with_git(path: str) -> tuple[float, int, int]:
    """(wall seconds, files blamed, citations dated by git) of one scan followed by git dating."""
    from kb.links.run import _date_by_git

    t = time.perf_counter()
    found = scan_tree([path])
    blamed = len({c.path for c in found.citations if not c.written and c.path})
    _date_by_git(found.citations)
    return time.perf_counter() - t, blamed, sum(1 for c in found.citations if c.written_from == "git")


def report(label: str, path: str, runs: int, git: bool) -> float:
    """Print one tree's figures; returns its median wall seconds."""
    base = statistics.median(baseline(path) for _ in range(runs))
    results = [measure(path) for _ in range(runs)]
    files, cites, tests, embedded, _, _ = results[0]
    wall = statistics.median(r[4] for r in results)
    cpu = statistics.median(r[5] for r in results)
    print(
        f"{label}: {files} files, {tests} tests, {cites} citations, {embedded} embedded copies;"
        f" median of {runs}: {wall:.2f} s (CPU {cpu:.2f} s) = {files / wall:,.0f} files/s;"
        f" baseline (read + decode + grep) {base:.2f} s, ratio {wall / base:.1f}x"
    )
    if git:
        secs, blamed, dated = with_git(path)
        print(
            f"{label} with git dating: {secs:.2f} s = {files / secs:,.0f} files/s"
            f" ({blamed} files blamed, {dated} citations dated by git)"
        )
    return wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", help="source trees to scan (default: a generated tree)")
    ap.add_argument("--files", type=int, default=5000, help="size of the generated tree")
    ap.add_argument("--runs", type=int, default=3, help="scans per tree (the median is reported)")
    ap.add_argument("--git", action="store_true", help="also time git dating (needs a git work tree)")
    args = ap.parse_args(argv)
    if args.paths:
        for path in args.paths:
            wall = report(path, path, args.runs, args.git)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp, args.files)
        wall = report(f"generated ({args.files} files)", tmp, args.runs, False)
    print(f"target < 5 s for the generated tree: {'met' if wall < 5 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
