"""Time ingest and the citation scanner on pathological inputs that double in size: 1×, 2×, 4×, 8×.

    python bench/adversarial.py [--repeat R] [--only SUBSTRING] [--scale K]

Each case generates its input at four sizes and prints the median time of R runs at each, then the
ratio of each size's time to the one before. Linear work doubles (ratio near 2); a ratio near 4
is quadratic. Ingest cases time decode + parse + store (into an in-memory SQLite store); link
cases time ``kb.links.scan`` on a generated tree. Times are CPU seconds of this process (on a
shared machine wall time mostly measures the neighbours). Nothing here asserts a time: it reports.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ingest.common import Hints  # noqa: E402
from kb.build import ingest_into  # noqa: E402
from kb.store import Store  # noqa: E402

SIZES = (1, 2, 4, 8)
CR_EN_HEAD = "Magic: The Gathering Comprehensive Rules\n\nThese rules are effective as of May 1, 2020.\n\n1. Game Concepts\n\n100. General\n\n"
CR_EN_TAIL = "\n\nGlossary\n\nAbility\nText on an object.\n\nCredits\n\nThanks.\n"


# --- ingest inputs (each: n -> (format, file name, bytes)) -----------------------------------------


def legacy_one_line(n: int) -> tuple[str, str, bytes]:
    """A private translation on one line with many headings and clauses (rest-of-text copies)."""
    rules = [100 + i for i in range(800)]
    per = 4 * n
    contents = " ".join(f"{r}. 見出し{r}" for r in rules)
    body = " ".join(
        f"{r}. 見出し{r} " + " ".join(f"{r}.{k}. 条文{r}の{k}番目です。rule 100.1 も参照。" for k in range(1, per + 1))
        for r in rules
    )
    text = (
        f"======== マジック総合ルール(私訳第 5.5.0.0 版) ======== 　私訳です。 -------- もくじ -------- 0. はじめに "
        f"1. ゲーム {contents} -------- マジック・ザ・ギャザリング　総合ルール -------- 0. はじめに　本文。 1. ゲーム {body}"
    )
    return "legacy-ja", "legacy.txt", text.encode("utf-8")


def cr_en_long_clause(n: int) -> tuple[str, str, bytes]:
    """One clause followed by thousands of paragraph lines (joined into one text)."""
    lines = "\n".join(f"Paragraph {i} of the same clause, which goes on and on." for i in range(n * 10000))
    return "cr-en", "rules_2020-05-01.txt", (CR_EN_HEAD + "100.1. First.\n" + lines + CR_EN_TAIL).encode()


def cr_en_many_references(n: int) -> tuple[str, str, bytes]:
    """One clause citing thousands of rules (reference harvesting)."""
    refs = ", ".join(f"rule {100 + i % 800}.{1 + i % 9}" for i in range(n * 2000))
    dotted = " ".join(f"{100 + i % 800}.{1 + i % 9}a" for i in range(n * 2000))
    return "cr-en", "rules_2020-05-01.txt", (CR_EN_HEAD + f"100.1. See {refs}. Also {dotted}." + CR_EN_TAIL).encode()


def cr_en_many_clauses(n: int) -> tuple[str, str, bytes]:
    """Tens of thousands of clauses with repeated (typo'd) ids to repair."""
    out = []
    for r in range(100, 100 + n * 40):
        out.append(f"{r}. Rule {r}\n")
        for k in range(1, 11):
            out.append(f"{r}.{k}. Clause {k} of rule {r}.\n{r}.{k}a Sub-clause.\n{r}.{k}a Sub-clause.\n")
    return "cr-en", "rules_2020-05-01.txt", (CR_EN_HEAD + "".join(out) + CR_EN_TAIL).encode()


def dm_long_paragraph(n: int) -> tuple[str, str, bytes]:
    """A Duel Masters clause whose paragraph the PDF wrapped over thousands of lines."""
    wrapped = "\n".join("このルールはとても長く続く段落の一部であり、行の途中で改行され" for _ in range(n * 20000))
    text = (
        f"デュエル・マスターズ 総合ゲームルール\nVer.1.48\n2025年12月17日 更新\n\nもくじ\n100. 総則\n\n"
        f"100. 総則\n100.1. {wrapped}ます。\n"
    )
    return "dm-rules", "dm.txt", text.encode()


def wiki_nested(n: int) -> tuple[str, str, bytes]:
    """An MTG Wiki page nested thousands of elements deep (recursion)."""
    depth = n * 1000
    inner = (
        "<div>" * depth
        + "<p>本文 509.1</p><ul><li>項目"
        + "<ul><li>入れ子" * (depth // 4)
        + "</li></ul>" * (depth // 4)
    )
    html = (
        f"<html><head><title>T - MTG Wiki</title></head><body><h1 id='firstHeading'>T</h1>"
        f"<div class='mw-parser-output'>{inner}{'</div>' * depth}</div></body></html>"
    )
    return "mtgwiki", "page.html", html.encode()


def viewer_inline_run(n: int) -> tuple[str, str, bytes]:
    """A viewer page with thousands of inline elements on one line."""
    run = "".join(f"<b>語{i}</b>" for i in range(n * 3000))
    html = (
        f"<!doctype html><html><head><title>総合ルールビューア</title></head><body><main>"
        f"<h2>5. ターンの構造</h2><h3>509. ブロック</h3><p id='509.1'>509.1 {run}</p></main></body></html>"
    )
    return "viewer", "viewer.html", html.encode()


def pukiwiki_unclosed_markup(n: int) -> tuple[str, str, bytes]:
    """A wiki line full of markup openers that never close: ((, [[, &x{, '''."""
    line = "".join(f"(( [[ &x{{ &y( ''' 語{i} " for i in range(n * 20000))
    return "pukiwiki", "page.txt", f"*見出し\n{line}\n".encode()


def pukiwiki_long_section(n: int) -> tuple[str, str, bytes]:
    """One section of thousands of lines, each with a bilingual term pair."""
    lines = "\n".join(f"「用語{i}／Term{i}」の説明です。" for i in range(n * 4000))
    return "pukiwiki", "page.txt", f"*見出し\n{lines}\n".encode()


INGEST: dict[str, Callable[[int], tuple[str, str, bytes]]] = {
    "ingest legacy-ja one line": legacy_one_line,
    "ingest cr-en one long clause": cr_en_long_clause,
    "ingest cr-en many references": cr_en_many_references,
    "ingest cr-en repeated ids": cr_en_many_clauses,
    "ingest dm-rules long paragraph": dm_long_paragraph,
    "ingest mtgwiki nested": wiki_nested,
    "ingest viewer inline run": viewer_inline_run,
    "ingest pukiwiki unclosed markup": pukiwiki_unclosed_markup,
    "ingest pukiwiki long section": pukiwiki_long_section,
}


def time_ingest(make: Callable[[int], tuple[str, str, bytes]], n: int, tmp: Path) -> float:
    fmt, name, data = make(n)
    path = tmp / name
    path.write_bytes(data)
    store = Store.create(":memory:")
    try:
        t0 = time.process_time()
        ingest_into(store, str(path), Hints(format=fmt, version="" if fmt != "legacy-ja" else "5.5.0.0"))
        return time.process_time() - t0
    finally:
        store.close()


# --- link trees (each: (root, n) -> None) -------------------------------------------------------


def link_long_line(root: Path, n: int) -> None:
    """One line of a test file holding thousands of citations (per-citation rescans of the line)."""
    cites = " ".join(f"CR {100 + i % 800}.{1 + i % 9}{'abc'[i % 3]}" for i in range(n * 500))
    (root / "test_line.py").write_text(f"def test_all():\n    # {cites}\n    assert True\n")


def link_python_tests(root: Path, n: int) -> None:
    """One Python file with thousands of test functions (line numbers counted from the start)."""
    body = "".join(f"def test_{i}():\n    # CR 509.1c\n    assert {i}\n\n" for i in range(n * 1500))
    (root / "test_many.py").write_text(body)


def link_java_tests(root: Path, n: int) -> None:
    """One Java class with thousands of tests (the owner of each line looked up linearly)."""
    tests = "".join(f"    @Test\n    public void t{i}() {{\n        // rule 509.1c\n    }}\n" for i in range(n * 1500))
    (root / "ManyTest.java").write_text(f"public class ManyTest {{\n{tests}}}\n")


def link_unterminated_comments(root: Path, n: int) -> None:
    """A C-like file with thousands of '/*' that never close (the comment lexer rescans)."""
    (root / "Weird.java").write_text("".join(f"int x{i} = 1; /* rule 509.1c\n" for i in range(n * 600)))


def link_escaped_quotes_python(root: Path, n: int) -> None:
    """A Python string with thousands of escaped quotes that never closes (retried from every quote)."""
    (root / "test_quotes.py").write_text('x = "CR 702.19b ' + '\\"' * (n * 100000) + "\n")


def link_escaped_quotes_typescript(root: Path, n: int) -> None:
    """The same in TypeScript, with single quotes."""
    (root / "quotes.test.ts").write_text("const s = 'CR 702.19b " + "\\'" * (n * 100000) + ";\n")


def link_escaped_backticks(root: Path, n: int) -> None:
    """A TypeScript template string of escaped backticks cut by a backslash before a newline."""
    (root / "template.test.ts").write_text("const s = `CR 702.19b " + "\\`" * (n * 100000) + "\\\n")


def link_unclosed_quote_lines(root: Path, n: int) -> None:
    """Thousands of Java lines that each open a string with escaped quotes and never close it."""
    line = 'String s = "rule 509.1c ' + '\\"' * 20 + "\n"
    (root / "QuotesTest.java").write_text(line * (n * 2000))


def link_nested_describes(root: Path, n: int) -> None:
    """TypeScript describe blocks nested thousands deep, each citing a rule (owners walked from the root)."""
    (root / "nested.test.ts").write_text('describe("a", () => { // CR 702.19b\n' * (n * 1000))


def link_nested_classes(root: Path, n: int) -> None:
    """Java classes nested thousands deep with a test in each (test ids built up the parent chain)."""
    (root / "NestedTest.java").write_text("class A { // rule 509.1c\n @Test void t() {}\n" * (n * 1000))


def link_python_defs_never_dedent(root: Path, n: int) -> None:
    """Python classes each one level deeper (to 64, then again): every block's end searched to the end."""
    body = "".join(" " * (i % 64) + f"class T{i}:\n" + " " * (i % 64 + 1) + "# CR 702.19b\n" for i in range(n * 1000))
    (root / "test_deep.py").write_text(body)


LINK: dict[str, Callable[[Path, int], None]] = {
    "link one long line": link_long_line,
    "link python tests": link_python_tests,
    "link java tests": link_java_tests,
    "link unterminated /*": link_unterminated_comments,
    "link escaped quotes python": link_escaped_quotes_python,
    "link escaped quotes typescript": link_escaped_quotes_typescript,
    "link escaped backticks": link_escaped_backticks,
    "link unclosed quote lines": link_unclosed_quote_lines,
    "link nested describes": link_nested_describes,
    "link nested classes": link_nested_classes,
    "link python never dedents": link_python_defs_never_dedent,
}


def time_link(make: Callable[[Path, int], None], n: int, tmp: Path) -> float:
    from kb.links import scan

    root = tmp / f"tree-{n}"
    root.mkdir()
    make(root, n)
    t0 = time.process_time()
    scan([str(root)])
    return time.process_time() - t0


# --- report -------------------------------------------------------------------------------------


def measure(name: str, run: Callable[[int, Path], float], repeat: int, scale: int) -> list[float]:
    medians = []
    for size in SIZES:
        runs = []
        for _ in range(repeat):
            with tempfile.TemporaryDirectory(prefix="rulekb-adv-") as tmp:
                runs.append(run(size * scale, Path(tmp)))
        medians.append(statistics.median(runs))
        print(f"  {name}: {size}x {medians[-1]:.3f} s", file=sys.stderr, flush=True)
    return medians


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per size (median reported)")
    ap.add_argument("--only", default="", help="run the cases whose name contains this")
    ap.add_argument("--scale", type=int, default=1, help="multiply every size (a larger 1x)")
    args = ap.parse_args(argv)
    cases = [(k, lambda n, t, f=f: time_ingest(f, n, t)) for k, f in INGEST.items()]
    cases += [(k, lambda n, t, f=f: time_link(f, n, t)) for k, f in LINK.items()]
    rows = []
    for name, run in cases:
        if args.only in name:
            rows.append((name, measure(name, run, args.repeat, args.scale)))
    print(f"{'case':<34}" + "".join(f"{f'{s}x (s)':>10}" for s in SIZES) + "   ratio per doubling   verdict")
    for name, times in rows:
        ratios = [b / a if a > 0 else float("inf") for a, b in zip(times, times[1:], strict=False)]
        worst = max(ratios)
        verdict = "linear" if worst < 2.8 else "SUPERLINEAR" if worst < 3.5 else "QUADRATIC"
        print(
            f"{name:<34}"
            + "".join(f"{t:>10.3f}" for t in times)
            + "   "
            + " ".join(f"{r:4.2f}" for r in ratios)
            + f"   {verdict}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
