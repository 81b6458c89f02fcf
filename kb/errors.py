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

    def __str__(self) -> str:
        where = self.path
        if self.path and self.line:
            where = f"{self.path}:{self.line}" + (f":{self.column}" if self.column else "")
        return f"{where}: {self.message}" if where else self.message


class NotFound(RulekbError):
    """An unknown rule, version, game or language."""


class StoreError(RulekbError):
    """The knowledge base is missing, locked or from an incompatible schema."""
