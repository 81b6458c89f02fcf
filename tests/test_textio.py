"""Decoding at the boundary: encodings, BOMs, newlines and refusals with file and line."""

import codecs

import pytest

from kb.errors import InputError
from kb.textio import decode
from tests.helpers import CR_EN, english_notes

JA = "509.1 まず、防御プレイヤーはブロック・クリーチャーを指定する。\n例：攻撃クリーチャー\n"


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (JA.encode("utf-8"), "utf-8"),
        (codecs.BOM_UTF8 + JA.encode("utf-8"), "utf-8-sig"),
        (codecs.BOM_UTF16_LE + JA.encode("utf-16-le"), "utf-16-le"),
        (codecs.BOM_UTF16_BE + JA.encode("utf-16-be"), "utf-16-be"),
        (JA.encode("cp932"), "cp932"),
        (JA.encode("euc_jp"), "euc_jp"),
    ],
)
def test_japanese_encodings_round_trip(data, encoding):
    out = decode(data, "f.txt")
    assert out.text == JA
    assert out.encoding == encoding


def test_cp1252_is_read_when_not_utf8():
    data = "Kongming, \u201cSleeping Dragon\u201d \u2014 Æther".encode("cp1252")
    out = decode(data)
    assert out.encoding == "cp1252"
    assert out.text == "Kongming, \u201cSleeping Dragon\u201d \u2014 Æther"


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        (b"a\r\nb\r\n", "CRLF"),
        (b"a\rb\r", "CR"),
        (b"a\nb\n", "LF"),
        (b"a\r\r\nb\r\n", "CRLF+CR"),
    ],
)
def test_newlines_become_lf(raw, kind):
    out = decode(raw)
    assert out.text == "a\nb\n"
    assert out.newline == kind


def test_empty_file_is_refused():
    with pytest.raises(InputError, match="empty file") as exc:
        decode(b"  \n\n", "empty.txt")
    assert str(exc.value).startswith("empty.txt:")


def test_binary_file_is_refused_with_its_line():
    with pytest.raises(InputError, match="binary") as exc:
        decode(b"line one\nline two\x00\x01\x02", "blob.bin")
    assert str(exc.value).startswith("blob.bin:2:")


def test_truncated_utf16_names_the_line():
    data = codecs.BOM_UTF16_LE + "100.1 one\n100.2 two\n".encode("utf-16-le") + b"\x41"
    with pytest.raises(InputError, match="truncated UTF-16") as exc:
        decode(data, "cut.txt")
    assert str(exc.value).startswith("cut.txt:3:")


@pytest.mark.heavy
def test_every_real_english_edition_decodes():
    files = sorted((CR_EN).glob("*.txt"))
    assert len(files) == 120
    notes = english_notes()
    for f in files:
        out = decode(f.read_bytes(), str(f))
        assert "\r" not in out.text
        assert "\ufeff" not in out.text
        expected = notes[f.name]["encoding"]
        assert out.encoding.split("-")[0].replace("ascii", "utf") in expected.replace("ascii", "utf") or (
            expected.startswith("cp1252") and out.encoding == "cp1252"
        ), (f.name, out.encoding, expected)
        effective_line = notes[f.name]["effective_line"]
        assert " ".join(effective_line.split()) in " ".join(out.text.split()), f.name
