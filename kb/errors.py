"""Errors a user can act on: what went wrong, and in which file and line."""

from __future__ import annotations


class RulekbError(Exception):
    """Base of every error the CLI reports as a one-line message with exit status 1."""


class InputError(RulekbError):
    """Bad input: names the file and, where it applies, the line."""

    def __init__(self, message: str, *, path: str = "", line: int = 0, column: int = 0):
        self.message = message
        self.path = path
        self.line = line
        self.column = column  # 1-based byte column within the line, when a byte is to blame
        super().__init__(str(self))

    def __reduce__(self):
        # across processes (a build parses on every core): keep the file, line and column, not just the text
        return (_input_error, (self.message, self.path, self.line, self.column))

    def __str__(self) -> str:
        where = self.path
        if self.path and self.line:
            where = f"{self.path}:{self.line}" + (f":{self.column}" if self.column else "")
        return f"{where}: {self.message}" if where else self.message


def _input_error(message: str, path: str, line: int, column: int) -> InputError:
    return InputError(message, path=path, line=line, column=column)


class NotFound(RulekbError):
    """An unknown rule, version, game or language."""


class StoreError(RulekbError):
    """The knowledge base is missing, locked or from an incompatible schema."""


def describe_failure(exc: BaseException) -> str | None:
    """A one-line message for an environment failure (disk, permissions, SQLite, recursion), else None.

    Every write goes into a new generation that is dropped when anything fails, so the live KB is
    as it was whenever one of these ends a command.
    """
    import errno
    import sqlite3

    if isinstance(exc, OSError):
        where = exc.filename if isinstance(exc.filename, str) else ""
        where = f" ({where})" if where else ""
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return f"no space left on the device{where}: the KB was left as it was"
        if exc.errno in (errno.EACCES, errno.EPERM):
            return f"permission denied{where}: the KB was left as it was"
        if exc.errno == errno.EROFS:
            return f"read-only file system{where}: the KB was left as it was"
        if exc.errno == errno.ELOOP:
            return f"symbolic link loop{where}"
        return f"{exc.strerror or exc}{where}"
    if isinstance(exc, sqlite3.Error):
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "full" in text:
            return f"no space left on the device for the KB ({text}): the KB was left as it was"
        return f"SQLite: {text}"
    if isinstance(exc, RecursionError):
        return "input nested too deeply to read (recursion limit reached)"
    if isinstance(exc, MemoryError):
        return "out of memory"
    if isinstance(exc, UnicodeError):
        return f"text encoding: {exc}"
    return None


def printable(path: str) -> str:
    """A file name as text: bytes of it that are not UTF-8 (surrogate-escaped by the OS layer) as ``\\xNN``."""
    if surrogate_position(path) < 0:
        return path
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def surrogate_position(value: str) -> int:
    """Index of the first byte that was not UTF-8 in a command-line argument (surrogate-escaped), or -1."""
    for i, ch in enumerate(value):
        if "\udc80" <= ch <= "\udcff":
            return i
    return -1
