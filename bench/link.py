"""Benchmark the citation scanner: a generated tree of 5,000 test files, and any real trees given.

    python bench/link.py [--files N] [PATH...]

Prints files, citations, seconds and files/s for each tree; the target is under 5 s for 5,000 files.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kb.links.extract import scan_tree  # noqa: E402

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


def measure(path: str) -> tuple[int, int, int, float, float]:
    """(files, citations, tests, wall seconds, CPU seconds) of one scan."""
    t, cpu = time.perf_counter(), time.process_time()
    found = scan_tree([path])
    return found.files, len(found.citations), len(found.tests), time.perf_counter() - t, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", help="real source trees to scan as well")
    ap.add_argument("--files", type=int, default=5000)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp, args.files)
        trees = [(f"generated ({args.files} files)", tmp)] + [(p, p) for p in args.paths]
        worst = 0.0
        for label, path in trees:
            files, cites, tests, secs, cpu = measure(path)
            worst = max(worst, secs) if label.startswith("generated") else worst
            print(
                f"{label}: {files} files, {tests} tests, {cites} citations in {secs:.2f} s"
                f" (CPU {cpu:.2f} s) = {files / secs:,.0f} files/s"
            )
    print(f"target < 5 s for the generated tree: {'met' if worst < 5 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
