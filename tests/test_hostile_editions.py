"""Damaged editions: refused whether or not the KB holds their version (exit 1, one line naming the file
and line, the KB byte-identical), while every real edition, with its real faults, still goes in. Each
damaged file is made here from a real text."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests._hostile import EN, JA, copy_home, hostile_home, refused
from tests.helpers import CR_EN

EN_NEW = CR_EN / "MagicCompRules_2026-01-16.txt"  # not in the home: the checks may not lean on the KB
JA_NEW_NAME = "JP_CR_20251114.0.txt"  # the Japanese text under a label the home does not hold
DAMAGED = "a damaged text (repeated, joined or reordered lines); not stored"


@pytest.fixture(scope="module")
def kb_home(tmp_path_factory) -> Path:
    """English 2018-06-08 and 和訳 20260116.0 whole (and DM, the legacy translation); not 2026-01-16."""
    return hostile_home(tmp_path_factory.mktemp("editions-home"))


def text_lines(path: Path) -> list[str]:
    """A real text's lines as the parsers count them (LF, CR and CRLF made LF, no BOM)."""
    from kb.textio import read_text

    return read_text(str(path)).text.split("\n")


def write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def index(lines: list[str], prefix: str, after: int = 0) -> int:
    return next(i for i, s in enumerate(lines) if i >= after and s.startswith(prefix))


SOURCES = {  # (real text, name for a version the home holds, name for one it does not)
    "en": (EN, EN.name, EN_NEW.name),
    "ja": (JA, JA.name, JA_NEW_NAME),
}


def damaged_variants(lang: str) -> dict[str, tuple[list[str], int, str]]:
    """name -> (lines, the 1-based line the refusal must name, what it must say)."""
    lines = text_lines(SOURCES[lang][0])
    body = index(lines, "100.1.", 50)  # past the contents
    head = lines[: index(lines, "100.4", body)]  # header, contents and 100.1-100.3
    a, b = index(lines, "702.19b", body), index(lines, "702.19c", body)
    # The text begins again at its title (en) or もくじ (ja); joined copies: where the rules go on (en), or
    # at the second もくじ (ja), which comes before them.
    opening = 0 if lang == "en" else index(lines, "もくじ")
    again = "the text starts again"
    twice = (len(lines) + body + 1, "the rules go on ('100.1. ") if lang == "en" else (len(lines) + opening + 1, again)
    return {
        "header repeated at the top": (head + lines, len(head) + opening + 1, again),
        "two clause lines swapped": (
            lines[:a] + [lines[b], lines[a]] + lines[b + 1 :],
            a + 2,
            f"clause 702.19b stands after 702.19c, but its place is after 702.19a (line {index(lines, '702.19a', body) + 1})",
        ),
        "the same edition twice": (lines + lines, *twice),
    }


VARIANTS = ("header repeated at the top", "two clause lines swapped", "the same edition twice")


@pytest.mark.parametrize("held", [True, False], ids=["version-held", "version-new"])
@pytest.mark.parametrize("case", VARIANTS)
@pytest.mark.parametrize("lang", list(SOURCES))
def test_a_damaged_edition_is_refused_held_or_not(cli, kb_home, tmp_path, lang, case, held):
    lines, line, says = damaged_variants(lang)[case]
    _, held_name, new_name = SOURCES[lang]
    path = write(tmp_path, held_name if held else new_name, lines)
    message = refused(cli, kb_home, "ingest", path)
    assert message.startswith(f"rulekb: {path}:{line}: {says}"), message
    assert DAMAGED in message


def test_thirty_copies_of_an_edition_are_refused_where_the_second_begins(cli, kb_home, tmp_path):
    lines = text_lines(EN_NEW)
    path = write(tmp_path, EN_NEW.name, (lines[:-1] if not lines[-1] else lines) * 30)
    second = len(lines) - (0 if lines[-1] else 1) + index(lines, "100.1.", 50) + 1
    message = refused(cli, kb_home, "ingest", path)
    assert message.startswith(f"rulekb: {path}:{second}: the rules go on ('100.1. These Magic rules apply"), message
    assert "after the Glossary heading of line" in message


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_rule_the_contents_list_but_the_rules_lack_keeps_the_text_partial(cli, kb_home, tmp_path, lang):
    """Rules 300-399 gone from the middle: never stored as whole (partial when new), never over a whole text."""
    from ingest import parse_text
    from ingest.common import Hints

    source, held_name, new_name = SOURCES[lang]
    lines = text_lines(source)
    body = index(lines, "100.1.", 50)
    cut_from, cut_to = index(lines, "300. ", body), index(lines, "400. ", body)
    gap = lines[:cut_from] + lines[cut_to:]
    last_before = max(i for i in range(cut_from) if lines[i][:1].isdigit() and "." in lines[i][:5]) + 1
    why = (
        f"the contents (line {index(lines, '300. ') + 1}) list rule 300, which the rules lack"
        if lang == "en"
        else "もくじ lists 300, which the rules lack"
    )
    (v,) = parse_text("\n".join(gap), Hints(format=f"cr-{lang}", path=new_name)).versions
    assert (v.partial, v.truncated_at, v.truncated_why) == (True, last_before, why)
    path = write(tmp_path, held_name, gap)
    message = refused(cli, kb_home, "ingest", path)
    assert message.startswith(f"rulekb: {path}:{last_before}: the text ends early ({why}; "), message
    assert "not replacing it (--replace to do so)" in message


def test_a_text_cut_inside_its_credits_does_not_replace_the_whole_one(cli, kb_home, tmp_path):
    lines = text_lines(EN)
    credits = index(lines, "Credits", index(lines, "Glossary", 500))
    cut = lines[: credits + 3]  # the heading and the first lines of the credits
    path = write(tmp_path, EN.name, cut)
    message = refused(cli, kb_home, "ingest", path)
    last = max(i for i, s in enumerate(cut) if s.strip()) + 1
    assert message.startswith(f"rulekb: {path}:{last}: the text ends early (cut inside its Credits: "), message
    assert "not replacing it (--replace to do so)" in message
    # --replace stores it, as partial (in the store itself: no need to index a copy of the KB here)
    from kb.build import ingest_into
    from kb.home import STORE_FILE
    from kb.store import Store

    home = copy_home(kb_home, tmp_path / "home")
    store = Store.open(str(home / "current" / STORE_FILE), write=True)
    try:
        report = ingest_into(store, str(path), replace=True)
        [v] = [v for v in store.versions("mtg", "en") if v.label == "20180608"]
    finally:
        store.close()
    clause = next(m[1] for s in reversed(cut) if (m := re.match(r"(\d{3}\.\d+[a-z]*)\.? ", s)))  # the last one
    assert report.versions == [
        f"mtg/en/20180608, effective 2018-06-08, partial (ends early in rule {clause[:3]}, after {clause} (line {last}))"
    ]
    assert v.partial


def test_a_file_name_that_is_not_utf8(cli, kb_home, tmp_path):
    """A damaged edition under such a name is refused naming the file (bytes as \\xNN); a valid one goes in."""
    raw = os.fsdecode(b"Magic\xffRules_2026-01-16.txt")
    lines = text_lines(EN_NEW)
    a, b = index(lines, "702.19b", 500), index(lines, "702.19c", 500)
    bad = write(tmp_path, raw, lines[:a] + [lines[b], lines[a]] + lines[b + 1 :])
    message = refused(cli, kb_home, "ingest", bad)
    assert message.startswith(f"rulekb: {tmp_path}/Magic\\xffRules_2026-01-16.txt:{a + 2}: clause 702.19b stands")
    good = write(tmp_path, raw, lines)
    code, out, err = cli("--home", tmp_path / "new-home", "ingest", good)
    assert code == 0, err
    assert out.startswith(f"{tmp_path}/Magic\\xffRules_2026-01-16.txt: format cr-en -> mtg/en/20260116")


def test_a_text_missing_clauses_both_editions_beside_it_hold_is_not_whole(tmp_path):
    """Sub-clause lines deleted all through rule 702 leave every rule and id order intact: the text alone
    cannot tell. With the editions before and after it in the KB, it is kept partial, never whole."""
    from kb.build import ingest_into
    from kb.home import STORE_FILE
    from kb.store import Store
    from tests._kbfixtures import home_of, store_of

    lines = text_lines(EN)
    body = index(lines, "100.1.", 50)
    start, end = index(lines, "702.1.", body), index(lines, "703.", body)
    dropped = [i for i in range(start, end) if lines[i][:4] == "702." and lines[i].split(" ")[0][-1].isalpha()]
    kept = [s for i, s in enumerate(lines) if i not in set(dropped)]
    path = write(tmp_path, EN.name, kept)
    home = home_of(store_of("2018-04-27", "2018-07-13"), tmp_path / "home")
    store = Store.open(str(home / "current" / STORE_FILE), write=True)
    try:
        report = ingest_into(store, str(path))
    finally:
        store.close()
    first = lines[dropped[0]].split(" ")[0]
    before = max(k for k in range(dropped[0]) if lines[k][:1].isdigit()) + 1
    assert len(dropped) > 100
    clause = lines[before - 1].split(" ")[0].rstrip(".")  # where the gap begins, though the text goes on
    assert report.versions == [
        f"mtg/en/20180608, effective 2018-06-08, partial (ends early in rule 702, after {clause} (line {before}))"
    ]
    m = re.fullmatch(
        rf"{re.escape(str(path))}:{before}: (\d+) clauses the editions 20180427 and 20180713 both hold are missing "
        rf"\({first} first\); kept as a partial text",
        report.warnings[-1],
    )
    assert m and len(dropped) - 5 < int(m.group(1)) <= len(dropped), report.warnings[-1]
