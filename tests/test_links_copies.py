"""An engine's curated copies of rules text: a table of excerpts is scanned and checked, a vendored whole CR
is set aside; a literal is a copy only when every sentence of it is a sentence the rules say themselves.

The tables are built from the real 2026-01-16 text (the shapes are a Python combat engine's keyword table).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.links import copies, link, scanner
from kb.links.extract import scan_tree
from tests._kbfixtures import store_of
from tests.helpers import CR_EN

RULES = CR_EN / "MagicCompRules_2026-01-16.txt"
KEYWORDS = ("702.2", "702.3", "702.4", "702.7", "702.9", "702.15", "702.19", "702.20")


def clause_lines(*rules: str) -> dict[str, list[str]]:
    """Each rule's heading and clause lines as the 2026-01-16 text prints them."""
    lines = [ln.strip() for ln in RULES.read_text(encoding="utf-8-sig").splitlines() if ln.strip()]
    return {r: [ln for ln in lines if ln.startswith((r + ". ", r + "a ", r + "b ", r + "c ", r + "d "))] for r in rules}


def table(path: Path) -> Path:
    """A dict of keyword -> excerpt (one string literal per keyword), as an engine keeps it for its players."""
    entries = "".join(f'    "k{r}": """{chr(10).join(ls)}""",\n' for r, ls in clause_lines(*KEYWORDS).items())
    path.write_text(f'"""Rules excerpts."""\n\nRULES_TEXT = {{\n{entries}}}\n', encoding="utf-8")
    return path


def test_a_table_of_excerpts_is_scanned_and_a_vendored_text_is_not(tmp_path):
    excerpts = table(tmp_path / "rules_text.py")
    lines = "\n".join(ln for ls in clause_lines(*KEYWORDS).values() for ln in ls)
    vendored = tmp_path / "comprehensive_rules.py"
    vendored.write_text(f'CR = """These rules are effective as of January 16, 2026.\n{lines}\n"""\n', encoding="utf-8")
    found = scan_tree([str(tmp_path)])
    assert [e["file"] for e in found.embedded] == ["comprehensive_rules.py"]  # the whole text: set aside
    cited = {c.rule for c in found.citations if c.file == "rules_text.py"}
    assert {"702.2", "702.2c", "702.9b", "702.19b", "702.20c"} <= cited  # every excerpt's clause lines
    src = scanner.read_source(str(excerpts), "rules_text.py")
    assert src.embedded is not None and copies.curated(src)  # the scanner alone would have set it aside


def test_two_literals_or_one_holding_a_whole_section_are_a_copy_not_a_table(tmp_path):
    lines = "\n".join(ln for ls in clause_lines(*KEYWORDS).values() for ln in ls)
    path = tmp_path / "rules.py"
    path.write_text(f'A = """{lines}"""\nB = """{lines}"""\n', encoding="utf-8")
    src = scanner.read_source(str(path), "rules.py")
    assert src.embedded is not None and not copies.curated(src)  # two literals: not a table of excerpts
    big = "\n".join([lines] * 2)
    path.write_text(f'A = """{big}"""\nB = """{lines}"""\nC = """{lines}"""\n', encoding="utf-8")
    assert not copies.curated(scanner.read_source(str(path), "rules.py"))  # 74 lines in one: a section pasted
    path.write_text(f'A = """{lines}"""\nB = """{lines}"""\nC = """{lines}"""\n', encoding="utf-8")
    assert copies.curated(scanner.read_source(str(path), "rules.py"))  # three excerpts of 37 lines: a table


@pytest.mark.parametrize(
    ("text", "copy"),
    [
        ("A creature with flying can’t be blocked except by creatures with flying and/or reach.", True),
        # card wording the rules quote or give as an example is not the rules' own sentence
        ("Put the rest on the bottom of your library in any order.", False),
        ("Whenever this creature attacks, each other attacking creature gets +1/+0 until end of turn.", False),
        # a sentence of the rules and one of the engine's own: not a copy
        ("A creature with flying can’t be blocked except by creatures with flying and/or reach. Nice.", False),
        ("Flying is an evasion ability.", False),  # too short to be only the rules' words
        ("702.9b A creature with flying can’t be blocked except by creatures with flying and/or reach.", False),
    ],
)
def test_a_literal_is_a_copy_only_when_every_sentence_is_the_rules_own(text, copy):
    store = store_of("2026-01-16")
    index = copies.Sentences(store, store.versions("mtg", "en"))
    found = index.holder(copies.sentences(text), 0) if copies.may_copy(text) else None
    assert (found is not None) == copy
    if copy:
        assert found[1] == "702.9b"


def test_copies_in_a_table_are_checked_against_the_edition(tmp_path):
    path = table(tmp_path / "rules_text.py")
    old = (  # 702.2c as it read until 2025
        "for the purposes of determining if a proposed combat damage assignment is valid, regardless of that"
        " creature’s toughness. See rules 510.1c–d."
    )
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("for the purposes of determining if excess damage is being dealt.", old), "utf-8")
    data = link(store_of("2024-06-07", "2026-01-16"), [str(tmp_path)], git=False)
    by = {(c["line"], c["rule"]): c for c in data["citations"]}
    statuses = {c["status"] for c in data["citations"]} - {"ok"}
    assert statuses == {"stale"}
    stale = next(c for c in data["citations"] if c["rule"] == "702.2c")
    assert (stale["suggest"][0], stale["written_version"]) == ("702.2c", "20240607")
    assert "excess damage is being dealt" in stale["new_text"]
    assert by[(stale["line"] - 1, "702.2b")]["status"] == "ok"  # the excerpt above it is today's text
