"""Hostile inputs to ``rulekb ingest``: each is refused with exit 1 and one line naming the file and
line, and the KB stays byte-identical. Inputs are generated here from real texts (cut, doctored,
re-encoded) with fixed seeds, like a fuzzer's corpus; none is stored in the repository.
"""

from __future__ import annotations

import codecs
import random
import re
from pathlib import Path

import pytest

from tests import helpers
from tests._hostile import refused
from tests.helpers import CR_EN, CR_JA, DM_RULES

EN = CR_EN / "MagicCompRules_2018-06-08.txt"  # UTF-8 without BOM, LF
DM = DM_RULES / "DM_SogoGameRule_Ver1.48_20251217_dm_rule.md"
JA = CR_JA / "JP_CR_20260116.0.txt"
LEGACY = helpers.CORPUS / "004_141578bca00711b0.txt"
_NEWLINES = re.compile(r"\r\r\n|\r\n|\r")


@pytest.fixture(scope="module")
def kb_home(tmp_path_factory) -> Path:
    """A home holding the whole English 2018-06-08 edition, DM 1.48, 和訳 20260116.0 and the legacy translation.

    Built without the search index: refused ingests never reach it, and building it would cost a
    minute for nothing these tests look at.
    """
    from kb.build import ingest_into
    from kb.home import STORE_FILE, Home
    from kb.store import Store
    from kb.versions import order

    home = Home(tmp_path_factory.mktemp("hostile-home"))
    with home.new_generation() as gen:
        store = Store.create(str(gen / STORE_FILE))
        for f in (EN, DM, JA, LEGACY):
            ingest_into(store, str(f))
        order.place_undated(store)
        store.commit()
        store.close()
    return home.path


def last_line(data: bytes, encoding: str = "utf-8-sig") -> int:
    """1-based number of the last line with text, counted as a reader counts lines."""
    text = _NEWLINES.sub("\n", data.decode(encoding))
    return len(text.rstrip().split("\n"))


def line_of(data: bytes, needle: bytes, start: int = 0) -> int:
    """1-based line of the first ``needle`` (from ``start``) in LF-separated bytes."""
    return data[: data.index(needle, start)].count(b"\n") + 1


def line_starting(data: bytes, prefix: bytes) -> int:
    """1-based number of the first line that starts with ``prefix``."""
    return line_of(data, b"\n" + prefix) + 1


# --- truncation: the stored whole text stays as it is unless --replace ------------------------------


def _char_boundary(data: bytes, at: int) -> int:
    while at < len(data) and (data[at] & 0xC0) == 0x80:
        at += 1
    return at


def _cuts(data: bytes, seed: int, n: int, end: int) -> list[int]:
    """``n`` cut points at character boundaries between the first 5 % of the text and ``end``."""
    rng = random.Random(seed)
    return [_char_boundary(data, rng.randrange(len(data) // 20, end)) for _ in range(n)]


EN_CUTS = _cuts(EN.read_bytes(), 13, 6, EN.read_bytes().rindex(b"\nCredits\n"))
DM_CUTS = _cuts(DM.read_bytes(), 48, 4, len(DM.read_bytes()) - 200)
JA_CUTS = _cuts(JA.read_bytes(), 9, 4, len(JA.read_bytes()) - 60)  # the effective-date line is the last


@pytest.mark.parametrize("cut", EN_CUTS)
def test_english_cut_at_a_random_byte_is_refused(cli, kb_home, tmp_path, cut):
    data = EN.read_bytes()[:cut]
    path = tmp_path / EN.name  # the file name carries the edition date: the same version
    path.write_bytes(data)
    line = refused(cli, kb_home, "ingest", path)
    assert line.startswith(f"rulekb: {path}:{last_line(data)}: the text ends early (no ")
    assert "the KB holds a whole text of mtg/en/20180608 (" in line and "--replace" in line


def test_english_cut_inside_the_glossary_is_refused(cli, kb_home, tmp_path):
    full = EN.read_bytes()
    data = full[: full.rindex(b"\nCredits\n")]
    path = tmp_path / EN.name
    path.write_bytes(data)
    line = refused(cli, kb_home, "ingest", path)
    assert line.startswith(f"rulekb: {path}:{last_line(data)}: the text ends early (no Credits heading")


def test_english_cut_mid_character_is_refused_as_truncated_utf8(cli, kb_home, tmp_path):
    full = EN.read_bytes()
    body = full.index(b"\n509.1c ")
    at = full.index("’".encode(), body) + 1  # inside a three-byte character, after many whole ones
    path = tmp_path / EN.name
    path.write_bytes(full[:at])
    line = refused(cli, kb_home, "ingest", path)
    assert line.startswith(f"rulekb: {path}:{line_of(full, '’'.encode(), body)}:")
    assert "truncated UTF-8 text" in line


@pytest.mark.parametrize("odd", [False, True], ids=["even", "odd-byte"])
def test_utf16_english_cut_is_refused(cli, kb_home, tmp_path, odd):
    text = EN.read_bytes()[: EN_CUTS[0]].decode("utf-8")
    data = codecs.BOM_UTF16_LE + text.encode("utf-16-le") + (b"\x41" if odd else b"")
    path = tmp_path / EN.name
    path.write_bytes(data)
    line = refused(cli, kb_home, "ingest", path)
    # an odd last byte is on the line after the text's last newline; an early end, on the last line with text
    expected = _NEWLINES.sub("\n", text).count("\n") + 1 if odd else last_line(data, "utf-16")
    assert line.startswith(f"rulekb: {path}:{expected}")
    assert ("truncated UTF-16" if odd else "the text ends early") in line


def test_a_complete_english_text_with_fewer_clauses_is_refused_where_one_goes_missing(cli, kb_home, tmp_path):
    full = EN.read_bytes()
    start = full.index(b"\n702.19b ") + 1
    data = full[:start] + full[full.index(b"\n", start) + 1 :]  # drop one clause line; glossary and credits stay
    path = tmp_path / EN.name
    path.write_bytes(data)
    line = refused(cli, kb_home, "ingest", path)
    assert line.startswith(f"rulekb: {path}:{line_starting(data, b'702.19a ')}: ")
    assert "where the KB's mtg/en/20180608 has" in line and "(702.19b is missing here)" in line


@pytest.mark.parametrize("cut", DM_CUTS)
def test_duel_masters_rules_cut_is_refused(cli, kb_home, tmp_path, cut):
    data = DM.read_bytes()[:cut]
    path = tmp_path / DM.name
    path.write_bytes(data)
    line = refused(cli, kb_home, "ingest", path)
    assert line.startswith(f"rulekb: {path}:{last_line(data)}: the text ends early (")
    assert "whole text of dm/ja/1.48 (749 clauses)" in line


@pytest.mark.parametrize("cut", JA_CUTS)
def test_japanese_cr_cut_is_refused(cli, kb_home, tmp_path, cut):
    data = JA.read_bytes()[:cut]
    path = tmp_path / JA.name
    path.write_bytes(data)
    line = refused(cli, kb_home, "ingest", path)
    assert line.startswith(f"rulekb: {path}:{last_line(data)}: the text ends early (")
    assert "whole text of mtg/ja/20260116.0 (3114 clauses)" in line


@pytest.mark.heavy
def test_replace_stores_a_cut_text_as_partial(cli, tmp_path):
    """With --replace the truncated text goes in, kept as partial; without it, it is refused."""
    from kb.build import build_kb
    from tests._kbfixtures import write_manifest

    home = tmp_path / "home"
    build_kb(home, write_manifest(tmp_path / "corpus", lambda e: e.path.name == DM.name))
    data = DM.read_bytes()[: DM_CUTS[0]]
    path = tmp_path / DM.name
    path.write_bytes(data)
    refused(cli, home, "ingest", path)
    code, out, err = cli("--home", home, "ingest", path, "--replace")
    assert code == 0, err
    assert re.search(
        rf"partial \(ends early in rule \d+, (inside|after) [0-9.a-z]+ \(line {last_line(data)}\)\)", out
    ), out
    assert "replaced it with this truncated one" in err
    code, out, _ = cli("--home", home, "versions", "--json")
    import json

    [row] = json.loads(out)
    assert row["partial"] is True and 0 < row["clauses"] < 749


def test_a_cut_legacy_translation_reports_where_it_ends():
    """legacy-ja detects its own truncation (the store then keeps it partial, as for every format)."""
    from ingest import parse_data
    from ingest.common import Hints

    full = LEGACY.read_bytes()
    data = full[: _char_boundary(full, len(full) // 2)]
    (v,) = parse_data(data, Hints(path="legacy.txt")).versions
    assert (v.partial, v.truncated_at) == (True, 1)  # the translation is one line
    assert v.truncated_why.startswith("cut off mid-clause in ") and v.nodes[-1].truncated


# --- encoding -------------------------------------------------------------------------------------


def test_three_stray_bytes_in_a_utf8_edition_are_refused_at_the_first(cli, kb_home, tmp_path):
    full = EN.read_bytes()
    first = full.index(b"\n509.1c ") + 1 + 10  # the 11th byte of the line
    data = full[:first] + b"\x92" + full[first:]
    for extra in (full.index(b"\n702.19b ") + 5, len(full) - 500):
        data = data[:extra] + b"\xe9" + data[extra:]
    path = tmp_path / EN.name
    path.write_bytes(data)
    line = refused(cli, kb_home, "ingest", path)
    assert line.startswith(
        f"rulekb: {path}:{line_starting(data, b'509.1c ')}:11: invalid UTF-8 byte 0x92 at file offset {first}"
    )


@pytest.mark.parametrize(
    ("bom", "encoding"),
    [(codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")],
    ids=["utf-8-bom", "utf-16le-bom", "utf-16be-bom"],
)
def test_nul_after_a_byte_order_mark_is_binary(cli, kb_home, tmp_path, bom, encoding):
    text = EN.read_text(encoding="utf-8")
    at = text.index("\n509.1c ") + 4
    path = tmp_path / EN.name
    path.write_bytes(bom + (text[:at] + "\x00" + text[at:]).encode(encoding))
    line = refused(cli, kb_home, "ingest", path)
    row = text[:at].count("\n") + 1
    column = len(text[text.rfind("\n", 0, at) + 1 : at].encode(encoding)) + 1
    assert line.startswith(f"rulekb: {path}:{row}:{column}: binary file (NUL character")


def test_positions_in_a_utf8_bom_file_are_counted_after_the_bom(cli, kb_home, tmp_path):
    body = EN.read_bytes()
    bad = body.index(b"\n100.1. ") + 1 + 4  # "100.";  the bad byte replaces "1"
    data = codecs.BOM_UTF8 + body[:bad] + b"\xff" + body[bad + 1 :]
    path = tmp_path / EN.name
    path.write_bytes(data)
    line = refused(cli, kb_home, "ingest", path)
    assert line.startswith(
        f"rulekb: {path}:{line_starting(body, b'100.1. ')}:5: invalid UTF-8 text: bytes FF at file offset {bad + 3}"
    )


def test_real_cp1252_editions_still_decode_and_utf8_japanese_legacy_encodings_too():
    from kb.textio import decode

    cp1252 = CR_EN / "MagicCompRules_2015-01-23.txt"
    out = decode(cp1252.read_bytes(), str(cp1252))
    assert out.encoding == "cp1252" and "â€" not in out.text and "’" in out.text
    text = LEGACY.read_text(encoding="utf-8")
    for enc in ("cp932", "euc_jp"):  # a whole Japanese text in a legacy encoding is not "damaged UTF-8"
        assert decode(text.encode(enc, errors="replace"), "legacy.txt").encoding == enc


# --- overrides and sizes --------------------------------------------------------------------------


@pytest.mark.parametrize("label", ["20991231\n", "2099 1231", "../x", "x" * 41])
def test_a_version_label_must_match_whole(cli, kb_home, label):
    line = refused(cli, kb_home, "ingest", DM, "--version", label)
    assert line.startswith(f"rulekb: {DM}: bad --version {label!r}: letters, digits")


def test_an_oversized_file_is_refused_before_it_is_read(cli, kb_home, tmp_path):
    from kb.textio import MAX_INPUT_BYTES

    path = tmp_path / "huge.txt"
    with open(path, "wb") as fh:
        fh.truncate(MAX_INPUT_BYTES + 1)  # sparse: nothing is written, nothing may be read
    line = refused(cli, kb_home, "ingest", path)
    assert line.startswith(f"rulekb: {path}: 32.0 MiB: larger than the 32 MiB a rules text may be")


# --- repairs never move genuine ids ----------------------------------------------------------------


@pytest.mark.parametrize("clause", ["509.1c", "509.1i", "702.19b", "100.1a"])
def test_a_repeated_clause_line_moves_no_id(clause):
    from ingest import parse_text
    from ingest.common import Hints
    from kb.textio import read_text

    text = read_text(str(EN)).text
    lines = text.split("\n")
    i = next(k for k, s in enumerate(lines) if s.startswith(clause + " "))
    doctored = "\n".join(lines[: i + 1] + [lines[i]] + lines[i + 1 :])
    hints = dict(format="cr-en", path=EN.name)
    original = {n.rule: n for n in parse_text(text, Hints(**hints)).versions[0].nodes}
    result = parse_text(doctored, Hints(**hints))
    nodes = {n.rule: n for n in result.versions[0].nodes}
    assert list(nodes) == list(original)  # no id shifted, none invented (no 509.1j)
    assert all(nodes[r].text == original[r].text for r in nodes if r != clause)
    assert nodes[clause].text == original[clause].text + "\n" + lines[i]  # the repeat kept as text, not lost
    [warning] = [d for d in result.warnings if "word for word" in d.message]
    assert (warning.line, warning.message) == (
        i + 2,
        f"clause id {clause} repeats line {i + 1} word for word (after {clause}); kept as text of the clause before it",
    )
