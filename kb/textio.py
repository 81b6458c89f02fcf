"""Decode input bytes once, at the boundary: encodings, BOMs and newline conventions."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from kb.errors import InputError

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_NEWLINES = re.compile(r"\r\r\n|\r\n|\r")
_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]")


@dataclass
class Decoded:
    """Text with LF newlines, plus what it was decoded from."""

    text: str
    encoding: str
    newline: str  # "LF", "CRLF", "CR", "CRLF+CR", or "none"


def _newline_kind(raw: str) -> str:
    crlf = raw.count("\r\n")
    cr = raw.count("\r") - crlf
    lf = raw.count("\n") - crlf
    kinds = [k for k, n in (("CRLF", crlf), ("CR", cr), ("LF", lf)) if n]
    return "+".join(kinds) if kinds else "none"


def _line_of(data: bytes, offset: int, unit: int = 1) -> int:
    """1-based line number of a byte offset (``unit`` = 2 for UTF-16)."""
    head = data[:offset]
    if unit == 2:
        newlines = sum(1 for i in range(0, len(head) - 1, 2) if head[i : i + 2] in (b"\n\x00", b"\x00\n"))
    else:
        newlines = head.count(b"\n") or head.count(b"\r")
    return newlines + 1


def _decode_strict(data: bytes, encoding: str, path: str, unit: int = 1) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        what = "truncated" if exc.start >= len(data) - unit else "invalid"
        raise InputError(
            f"{what} {encoding.upper().replace('-SIG', '')} text (byte {exc.start})",
            path=path,
            line=_line_of(data, exc.start, unit),
        ) from None


def _japanese_score(text: str) -> float:
    if not text:
        return 0.0
    return len(_JAPANESE.findall(text)) / len(text)


def _decode_legacy(data: bytes) -> tuple[str, str]:
    """Pick among CP932, EUC-JP and cp1252 for bytes that are not UTF-8."""
    candidates = []
    for enc in ("cp932", "euc_jp"):
        try:
            text = data.decode(enc)
        except UnicodeDecodeError:
            continue
        candidates.append((_japanese_score(text), enc, text))
    if candidates:
        score, enc, text = max(candidates)
        if score > 0.05:
            return text, enc
    return data.decode("cp1252", errors="replace"), "cp1252"


def decode(data: bytes, path: str = "<input>") -> Decoded:
    """Decode a rules file; refuse empty, binary or truncated input with a located error."""
    if not data.strip():
        raise InputError("empty file", path=path)
    for bom, enc in _BOMS:
        if data.startswith(bom):
            unit = 2 if "16" in enc else 1
            if unit == 2 and len(data) % 2:
                raise InputError(
                    "truncated UTF-16 text (odd number of bytes)", path=path, line=_line_of(data, len(data) - 1, 2)
                )
            raw = _decode_strict(data, enc, path, unit)
            break
    else:
        if b"\x00" in data:
            raise InputError("binary file (NUL bytes, no UTF-16 byte-order mark)", path=path, line=_line_of(data, data.index(b"\x00")))
        try:
            raw, enc = data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            raw, enc = _decode_legacy(data)
        if _control_ratio(raw) > 0.05:
            raise InputError("binary file (control characters)", path=path)
    raw = raw.lstrip("\ufeff")
    return Decoded(text=_NEWLINES.sub("\n", raw), encoding=enc, newline=_newline_kind(raw))


def _control_ratio(text: str) -> float:
    sample = text[:4096]
    bad = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\n\r\f\v")
    return bad / max(1, len(sample))


def read_text(path: str) -> Decoded:
    """Read and decode a file from disk."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=path) from None
    return decode(data, path)
