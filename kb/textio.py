"""Decode input bytes once, at the boundary: encodings, BOMs and newline conventions.

Order of trials: a BOM (UTF-8, UTF-16 LE/BE) decides; else strict UTF-8; else, when most of the
non-ASCII bytes already form valid UTF-8 sequences, the file is damaged UTF-8 and is refused at its
first bad byte (three stray bytes must not turn a whole edition into cp1252 mojibake); else the
better of CP932 / EUC-JP by the share of Japanese characters; else strict cp1252 (the real
2003–2022 English editions that are not UTF-8 are cp1252 and hold no UTF-8 sequence at all).
Positions in errors are lines and byte columns of the text after its BOM, with the file offset.
"""

from __future__ import annotations

import codecs
import errno
import os
import re
import stat
from dataclasses import dataclass

from kb.errors import InputError

# The largest real rules text is 2.3 MB (a UTF-16 English edition); a rules file 14 times that is
# not one, and parsing it would only spend time and memory.
MAX_INPUT_BYTES = 32 * 1024 * 1024

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig", "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "utf-16-be"),
)
_NEWLINES = re.compile(r"\r\r\n|\r\n|\r")
_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]")
# One well-formed multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates).
_UTF8_SEQUENCE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}|\xed[\x80-\x9f][\x80-\xbf]"
    rb"|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)
_HIGH_BYTE = re.compile(rb"[\x80-\xff]")
# Share of non-ASCII bytes inside valid UTF-8 sequences above which a file is damaged UTF-8. Real
# CP932 / EUC-JP texts reach 0.30 / 0.47 by chance; a UTF-8 file with a few stray bytes, 0.99+.
_MOSTLY_UTF8 = 0.9
_SOME_UTF8 = 0.5  # above this a text is not cp1252 either: the real cp1252 editions have 0.0


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


def _position(body: bytes, offset: int, encoding: str) -> tuple[int, int]:
    """(line, byte column), both 1-based, of ``offset`` in ``body`` (bytes after any BOM).

    Lines are counted as the parsers count them, after newline normalisation; the bytes before the
    first bad one decode by definition.
    """
    head = _NEWLINES.sub("\n", body[:offset].decode(encoding, errors="replace"))
    line = head.count("\n") + 1
    last = head[head.rfind("\n") + 1 :]
    return line, len(last.encode(encoding, errors="replace")) + 1


def _refuse(message: str, path: str, body: bytes, offset: int, encoding: str, bom: int) -> InputError:
    """A located error; ``{at}`` in ``message`` becomes the byte's offset in the file."""
    line, column = _position(body, offset, encoding)
    return InputError(message.format(at=f"at file offset {bom + offset}"), path=path, line=line, column=column)


def _decode_strict(body: bytes, encoding: str, path: str, bom: int) -> str:
    try:
        return body.decode(encoding)
    except UnicodeDecodeError as exc:
        unit = 2 if "16" in encoding else 1
        what = "truncated" if exc.start >= len(body) - unit else "invalid"
        bad = body[exc.start : exc.end].hex(" ").upper()
        name = encoding.upper().replace("-LE", "").replace("-BE", "")
        raise _refuse(f"{what} {name} text: bytes {bad} {{at}}", path, body, exc.start, encoding, bom) from None


def _utf8_share(data: bytes) -> float:
    """Share of the non-ASCII bytes that sit in well-formed UTF-8 sequences."""
    high = len(_HIGH_BYTE.findall(data))
    if not high:
        return 1.0
    return sum(len(m) for m in _UTF8_SEQUENCE.findall(data)) / high


def _japanese_score(text: str) -> float:
    if not text:
        return 0.0
    return len(_JAPANESE.findall(text)) / len(text)


def _decode_unmarked(data: bytes, path: str) -> tuple[str, str]:
    """Decode bytes without a BOM: UTF-8, else CP932/EUC-JP, else cp1252; refuse damaged UTF-8."""
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as exc:
        first_bad = exc
    share = _utf8_share(data)
    bad = f"0x{data[first_bad.start]:02X}"
    # Everything before an incomplete last sequence decoded: a cut UTF-8 file, if it held any UTF-8.
    if first_bad.reason == "unexpected end of data" and _HIGH_BYTE.search(data, 0, first_bad.start):
        raise _refuse(
            "truncated UTF-8 text: the file ends inside a character {at}", path, data, first_bad.start, "utf-8", 0
        )
    if share >= _MOSTLY_UTF8:
        raise _refuse(
            f"invalid UTF-8 byte {bad} {{at}} in a file that is otherwise UTF-8: fix the byte or re-save the file as UTF-8",
            path,
            data,
            first_bad.start,
            "utf-8",
            0,
        )
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
    if share < _SOME_UTF8:
        try:
            return data.decode("cp1252"), "cp1252"
        except UnicodeDecodeError:
            pass
    raise _refuse(
        f"not UTF-8 (byte {bad} {{at}}), and not CP932, EUC-JP or cp1252 text either: re-save the file as UTF-8",
        path,
        data,
        first_bad.start,
        "utf-8",
        0,
    )


def decode(data: bytes, path: str = "<input>") -> Decoded:
    """Decode a rules file; refuse empty, binary, damaged or truncated input with a located error."""
    if not data.strip():
        raise InputError("empty file", path=path)
    bom, encoding, codec = next(((b, e, c) for b, e, c in _BOMS if data.startswith(b)), (b"", "", ""))
    body = data[len(bom) :]
    if codec.startswith("utf-16") and len(body) % 2:
        raise _refuse(
            "truncated UTF-16 text (odd number of bytes): last byte {at}", path, body, len(body) - 1, codec, len(bom)
        )
    if codec:
        raw = _decode_strict(body, codec, path, len(bom))
    else:
        if b"\x00" in body:
            nul = body.index(b"\x00")
            raise _refuse("binary file (NUL byte {at}, no UTF-16 byte-order mark)", path, body, nul, "latin-1", 0)
        raw, encoding = _decode_unmarked(body, path)
        codec = encoding
    # After decoding, whatever the encoding: a BOM does not make a NUL or a control character text.
    if "\x00" in raw:
        nul = raw.index("\x00")
        raise _refuse("binary file (NUL character {at})", path, body, len(raw[:nul].encode(codec)), codec, len(bom))
    if _control_ratio(raw) > 0.05:
        raise InputError("binary file (control characters)", path=path)
    raw = raw.lstrip("\ufeff")
    return Decoded(text=_NEWLINES.sub("\n", raw), encoding=encoding, newline=_newline_kind(raw))


def _control_ratio(text: str) -> float:
    sample = text[:4096]
    bad = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\n\r\f\v")
    return bad / max(1, len(sample))


_SPECIAL = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def special_kind(mode: int) -> str:
    """What a file that is neither a directory nor a regular file is: "a FIFO", "a socket", …"""
    return next((name for test, name in _SPECIAL if test(mode)), "a special file")


def check_input_file(path: str, display: str | None = None) -> os.stat_result:
    """Stat ``path`` and refuse, in one line, anything but a regular file of a readable size.

    Nothing is opened: opening a FIFO would wait for a writer forever.
    """
    display = display or path
    try:
        st = os.stat(path)
    except OSError as exc:
        raise InputError(os_reason(exc), path=display) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError("is a directory, not a file (give the files in it, e.g. DIR/*.txt)", path=display)
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"not a regular file ({special_kind(st.st_mode)})", path=display)
    if st.st_size > MAX_INPUT_BYTES:
        raise InputError(
            f"{st.st_size / 2**20:.1f} MiB: larger than the {MAX_INPUT_BYTES // 2**20} MiB a rules text may be "
            "(the largest real one is under 3 MiB)",
            path=display,
        )
    return st


def os_reason(exc: OSError) -> str:
    """A short reason for a failed stat/open, in the words a user expects."""
    if exc.errno == errno.ENOENT:
        return "no such file or directory"
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "cannot read: permission denied"
    return f"cannot read: {exc.strerror or exc}"


def read_input(path: str, display: str | None = None) -> bytes:
    """The bytes of a regular input file (refusing directories, FIFOs, loops and oversized files)."""
    display = display or path
    check_input_file(path, display)
    try:
        # O_NONBLOCK: should the path have become a FIFO since the stat, opening it must not wait.
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise InputError("not a regular file", path=display)
            data = fh.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise InputError(os_reason(exc), path=display) from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"larger than the {MAX_INPUT_BYTES // 2**20} MiB a rules text may be", path=display)
    return data


def read_text(path: str, display: str | None = None) -> Decoded:
    """Read and decode a file from disk."""
    return decode(read_input(path, display), display or path)
