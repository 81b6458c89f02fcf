"""Walk a source tree and split each file into prose (comments, docstrings, strings) and masked code."""

from __future__ import annotations

import bisect
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field

from kb.errors import InputError, printable
from kb.links.forms import embedded_copy
from kb.links.lexer import Lexer, Quote
from kb.textio import os_reason, special_kind

LANGUAGES = {
    ".py": "python",
    ".java": "java",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".cs": "csharp",
    ".rs": "rust",
    ".go": "go",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".mts": "typescript",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".feature": "gherkin",
    # engines in other languages: their comments and strings are scanned; test names where a brace
    # language's declarations give them (kb.links.units)
    ".c": "cpp",
    ".h": "cpp",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".m": "cpp",
    ".mm": "cpp",
    ".swift": "swift",
    ".scala": "scala",
    ".sc": "scala",
    ".groovy": "java",
    ".dart": "dart",
    ".php": "php",
    ".hs": "haskell",
    ".rb": "ruby",
    ".lua": "lua",
    ".ex": "elixir",
    ".exs": "elixir",
    ".gd": "gdscript",
    ".fs": "fsharp",
    ".ml": "ocaml",
    ".mli": "ocaml",
    # rule engines' own languages: Drools rules (Java-like), CLIPS and the Lisps
    ".drl": "drools",
    ".clp": "lisp",
    ".lisp": "lisp",
    ".lsp": "lisp",
    ".el": "lisp",
    ".clj": "lisp",
    ".cljs": "lisp",
    ".cljc": "lisp",
    ".scm": "lisp",
    ".ss": "lisp",
    ".rkt": "lisp",
    ".erl": "erlang",
    ".hrl": "erlang",
    ".jl": "julia",
    ".nim": "nim",
    ".zig": "zig",
    ".pm": "perl",
    ".r": "r",
    ".cr": "crystal",
    ".html": "html",
    ".htm": "html",
    ".vue": "html",
    ".svelte": "html",
}
MAX_BYTES = 4 * 1024 * 1024
SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    "target",
    "build",
    "bin",
    "obj",
    "dist",
    "out",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".gradle",
    ".idea",
    ".mypy_cache",
    ".pytest_cache",
}

# A block that never closes (an unterminated /*, triple quote or raw string) runs to the end of the file, as
# a compiler reads it: matched once, not retried from every later opener (30,000 stray /* were quadratic).
# A quoted string that does not close on its line is code; kb.links.lexer finds that out once per line, not
# once per quote inside it (20,000 escaped quotes were quadratic).
_C_COMMENTS = r"//[^\n]*|/\*[\s\S]*?(?:\*/|\Z)"
_TRIPLE = r'"""[\s\S]*?(?:"""|\Z)'
_TRIPLE_SQ = r"'''[\s\S]*?(?:'''|\Z)"
_ESCAPED = r"|\\."  # a backslash and the character after it, on one line


def _quoted(q: str, prefix: str = "", before: str = "") -> Quote:
    """A string between two ``q`` on one line, backslash escapes allowed."""
    return Quote(q, prefix, q, rf"[^{q}\\\n]" + _ESCAPED, q, before)


_DQ = _quoted('"')
_SQ = _quoted("'")
_CHAR = r"'(?:[^'\\\n]|\\[^'\n]{1,10})'"  # a char literal, not a Rust lifetime
_PY_PREFIX = "[rRbBuUfF]{0,2}"
_TEMPLATE = Quote("`", "", "`", r"[^`\\]" + _ESCAPED, r"`|\Z")  # a backslash before a newline fails it
# One alternation per language; every match is a comment or a string literal (prose), the rest is code.
_C_LIKE = [_C_COMMENTS, _TRIPLE, _DQ, _CHAR]
_LEXERS = {
    "python": Lexer(
        [
            r"#[^\n]*",
            _quoted('"', _PY_PREFIX, r'"""[\s\S]*?(?:"""|\Z)'),
            _quoted("'", _PY_PREFIX, r"'''[\s\S]*?(?:'''|\Z)"),
        ]
    ),
    "java": Lexer(_C_LIKE),
    "kotlin": Lexer(_C_LIKE),
    "csharp": Lexer([_C_COMMENTS, r'@"(?:[^"]|"")*(?:"|\Z)', rf"\$?{_TRIPLE}", _quoted('"', r"\$?"), _CHAR]),
    "rust": Lexer([_C_COMMENTS, r'b?r(?P<hashes>#*)"[\s\S]*?(?:"(?P=hashes)|\Z)', _quoted('"', "b?"), f"b?{_CHAR}"]),
    "go": Lexer([_C_COMMENTS, r"`[^`]*(?:`|\Z)", _DQ, _CHAR]),
    "typescript": Lexer([_C_COMMENTS, _TEMPLATE, _DQ, _SQ]),
    "javascript": Lexer([_C_COMMENTS, _TEMPLATE, _DQ, _SQ]),
    "cpp": Lexer(
        [_C_COMMENTS, r'(?:u8|[uUL])?R"(?P<delim>[^()\\\s"]{0,16})\([\s\S]*?(?:\)(?P=delim)"|\Z)', _DQ, _CHAR]
    ),
    "swift": Lexer([_C_COMMENTS, _TRIPLE, _DQ]),
    "scala": Lexer(_C_LIKE),
    "dart": Lexer([_C_COMMENTS, _TRIPLE, _TRIPLE_SQ, _DQ, _SQ]),
    "php": Lexer([_C_COMMENTS, r"#[^\n]*", _DQ, _SQ]),
    # "--" starts a comment unless it is part of an operator ("-->"); "x'" is a name, not a quote
    "haskell": Lexer([r"\{-[\s\S]*?(?:-\}|\Z)", r"--+(?![!#$%&*+./<=>?@\\^|~:])[^\n]*", _DQ, rf"(?<![\w']){_CHAR}"]),
    "ruby": Lexer([r"(?m:^)=begin\b[\s\S]*?(?:(?m:^)=end\b[^\n]*|\Z)", r"#[^\n]*", _DQ, _SQ]),
    # a long bracket is a comment after "--", else a string
    "lua": Lexer([r"(?:--)?\[(?P<eq>=*)\[[\s\S]*?(?:\](?P=eq)\]|\Z)", r"--[^\n]*", _DQ, _SQ]),
    "elixir": Lexer([r"#[^\n]*", _TRIPLE, _DQ, _SQ]),
    "gdscript": Lexer([r"#[^\n]*", _TRIPLE, _TRIPLE_SQ, _DQ, _SQ]),
    "fsharp": Lexer([r"\(\*[\s\S]*?(?:\*\)|\Z)", r"//[^\n]*", _TRIPLE, _DQ]),
    "ocaml": Lexer([r"\(\*[\s\S]*?(?:\*\)|\Z)", _DQ]),
    "drools": Lexer([_C_COMMENTS, r"#[^\n]*", _DQ, _SQ]),
    # ";" to the line's end, "#| … |#" blocks (Common Lisp, Racket); a lone "'" quotes a form, not a string
    "lisp": Lexer([r";[^\n]*", r"#\|[\s\S]*?(?:\|#|\Z)", _DQ]),
    "erlang": Lexer([r"%[^\n]*", _DQ]),
    "julia": Lexer([r"#=[\s\S]*?(?:=#|\Z)", r"#[^\n]*", _TRIPLE, _DQ]),
    "nim": Lexer([r"#\[[\s\S]*?(?:\]#|\Z)", r"#[^\n]*", _TRIPLE, _DQ]),
    "zig": Lexer([r"//[^\n]*", _DQ]),
    "perl": Lexer([r"(?m:^)=[a-z]+\b[\s\S]*?(?:(?m:^)=cut\b[^\n]*|\Z)", r"#[^\n]*", _DQ, _SQ]),
    "r": Lexer([r"#[^\n]*", _DQ, _SQ]),
    "crystal": Lexer([r"#[^\n]*", _DQ]),
    # a page's scripts as JavaScript, and its comments; the markup between is code (its text is the page's)
    "html": Lexer([r"<!--[\s\S]*?(?:-->|\Z)", _C_COMMENTS, _TEMPLATE, _DQ, _SQ]),
}
_COMMENT_START = tuple("#/-{<(=")  # what a comment of any language starts with; a string starts with a quote
# JSX text between tags (<p>See rule 702.19b</p>): after a ">" that is not an arrow, up to a tag or an
# expression; it must start like prose (a generic's "<T>(x" or "Map<K, V> =" starts with a symbol).
_JSX_TEXT = re.compile(r"(?<![=\-])>(\s*[A-Za-z0-9][^<>{}]*)(?=<[/A-Za-z]|\{)")
_STRIP_STRING = re.compile(r"^[rRbBuUfF$@]{0,2}(?:\"\"\"|'''|\"|'|`|r#*\")|(?:\"\"\"|'''|\"#*|'|`)$")
_STRIP_COMMENT = re.compile(
    r"^\s*(?://+|/\*+|#|--\[=*\[|--+|\{-|<!--|\(\*+|=begin)|(?:\*+/|-\}|-->|\*+\)|\]=*\]|^=end)\s*$", re.M
)


@dataclass
class Region:
    """A piece of prose in a source file: a comment, docstring or string literal."""

    kind: str  # "comment" | "string" | "name"
    start: int  # offset in the file
    text: str


@dataclass
class SourceFile:
    """A decoded source file split into prose regions and code with the prose blanked out."""

    path: str  # as found on disk
    rel: str  # relative to the scanned root, with forward slashes
    language: str
    text: str
    code: str = ""
    regions: list[Region] = field(default_factory=list)
    _line_starts: list[int] = field(default_factory=list, repr=False)
    starts: dict[int, Region] | None = field(default=None, repr=False)  # region by offset, built on demand
    embedded: dict | None = None  # a copy of the rules (forms.embedded_copy): reported, not scanned

    def line_of(self, offset: int) -> int:
        """1-based line number of an offset."""
        if not self._line_starts:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        return bisect.bisect_right(self._line_starts, offset)


def language_of(path: str) -> str | None:
    """The language of a file from its extension, or None if it is not scanned."""
    return LANGUAGES.get(os.path.splitext(path)[1].lower())


def _blank(s: str) -> str:
    """``s`` with every character but newlines made a space (a comment or string masked out of the code)."""
    if "\n" not in s:
        return " " * len(s)
    return "\n".join(" " * len(line) for line in s.split("\n"))


def lex(src: SourceFile) -> SourceFile:
    """Fill ``regions`` and ``code`` (prose replaced by spaces, so offsets and lines stay put)."""
    if src.language == "gherkin":
        # Every line of a feature file is prose except table rows, which hold data.
        for m in re.finditer(r"[^\n]+", src.text):
            if not m.group(0).lstrip().startswith("|"):
                src.regions.append(
                    Region("comment" if m.group(0).lstrip().startswith("#") else "string", m.start(), m.group(0))
                )
        src.code = src.text
        return src
    pieces, pos = [], 0
    for m in _LEXERS[src.language].finditer(src.text):
        raw = m.group(0)
        kind = "comment" if raw.startswith(_COMMENT_START) else "string"
        src.regions.append(Region(kind, m.start(), raw))
        pieces.append(src.text[pos : m.start()])
        pieces.append(_blank(raw))
        pos = m.end()
    pieces.append(src.text[pos:])
    src.code = "".join(pieces)
    if src.path.endswith(("x", "X")) and src.language in ("typescript", "javascript"):  # .tsx, .jsx
        _jsx_text(src)
    return src


def _jsx_text(src: SourceFile) -> None:
    """Add the text nodes of JSX markup as prose regions (found in the code, so strings stay strings)."""
    extra = [Region("text", m.start(1), src.text[m.start(1) : m.end(1)]) for m in _JSX_TEXT.finditer(src.code)]
    if extra:
        src.regions = sorted(src.regions + extra, key=lambda r: r.start)


def prose(region: Region) -> str:
    """A region's text without its delimiters (quotes, comment markers)."""
    if region.kind == "text":
        return region.text.strip()
    return (_STRIP_COMMENT if region.kind == "comment" else _STRIP_STRING).sub("", region.text)


def read_text(path: str) -> str | None:
    """A file's text (UTF-8, or UTF-16 with its BOM; bad bytes replaced, newlines made \\n); None for binaries.

    A file too large to be hand-written (a generated bundle) is refused with its reason: the scan reports it."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=printable(path)) from None
    if len(data) > MAX_BYTES:
        raise InputError(f"larger than {MAX_BYTES // 2**20} MiB: not a hand-written source", path=printable(path))
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data.decode("utf-16", errors="replace")
    elif b"\0" in data[:4096]:
        return None  # binaries hold no citations
    else:
        text = data.decode("utf-8", errors="replace")
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def read_source(path: str, rel: str) -> SourceFile | None:
    """Decode and lex one file; None if not a scanned language (or a binary)."""
    language = language_of(path)
    if language is None:
        return None
    text = read_text(path)
    if text is None:
        return None
    copy = embedded_copy(text)
    if copy is not None:
        return SourceFile(path, rel, language, text, embedded=copy)  # a copy of the rules cites nothing
    return lex(SourceFile(path, rel, language, text))


def walk(paths: list[str], skipped: list[str] | None = None) -> Iterator[tuple[str, str]]:
    """(path, path relative to its scanned root) for every source file under ``paths``, sorted.

    Inside a tree only regular files whose real path lies under the tree are read: a symlink to a file
    outside it (``passwd.py -> /etc/passwd``), a FIFO (which would block the scan) or an unreadable
    directory is left out, with its reason appended to ``skipped``. A file named on the command line is
    the user's choice and is read wherever it points; a named FIFO or device is refused."""
    skipped = skipped if skipped is not None else []
    for root in paths:
        try:
            st = os.stat(root)
        except OSError as exc:
            raise InputError(os_reason(exc), path=root) from None
        if stat.S_ISREG(st.st_mode):
            if language_of(root):
                yield root, printable(os.path.basename(root))
            continue
        if not stat.S_ISDIR(st.st_mode):
            raise InputError(f"{special_kind(st.st_mode)}, not a directory or a regular file", path=root)
        real_root = os.path.realpath(root)
        found = []
        for full in _files_under(root, skipped):
            if language_of(full):
                why = _not_inside(full, real_root)
                if why:
                    skipped.append(f"{printable(full)}: {why}")
                else:  # the name as text (bytes that are not UTF-8 as \xNN); the path as the OS wants it
                    found.append((full, printable(os.path.relpath(full, root).replace(os.sep, "/"))))
        yield from sorted(found, key=lambda pair: pair[1])


def _files_under(root: str, skipped: list[str]) -> Iterator[str]:
    """Every file under ``root`` (symbolic links to directories not followed), walked without recursion:
    a tree thousands of directories deep is read like a flat one. A directory that cannot be listed (no
    permission, a path longer than the system allows) is appended to ``skipped``."""
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                listed = [(e.name, e.path, _is_real_dir(e)) for e in entries]
        except OSError as exc:
            skipped.append(f"{printable(folder)}: cannot read directory: {exc.strerror or exc}")
            continue
        for name, path, is_dir in listed:
            if is_dir is None:
                yield path
            elif is_dir and name not in SKIP_DIRS and not name.startswith("."):
                stack.append(path)


def _is_real_dir(entry: os.DirEntry) -> bool | None:
    """True for a directory to walk into, False for a link to one (not followed), None for anything else."""
    try:
        if entry.is_dir():
            return not entry.is_symlink()
    except OSError:
        pass
    return None


def _not_inside(path: str, real_root: str) -> str | None:
    """Why a file found in a tree is not read (None: it is a regular file of the tree)."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            target = os.path.realpath(path)
            if os.path.commonpath([real_root, target]) != real_root:
                return f"a symlink to {target}, outside the scanned tree"
            st = os.stat(path)
    except OSError as exc:
        return f"cannot read: {exc.strerror}"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    return None
