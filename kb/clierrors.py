"""How the CLI fails: one line on stderr and exit status 1 for every error a user can meet, never a traceback."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from functools import wraps

import click

from kb.errors import InputError, RulekbError, describe_failure, surrogate_position

# Arguments that name files: any bytes are fine in a file name. Every other argument is text.
_PATH_PARAMS = frozenset({"files", "paths", "junit", "corpus"})


def _fail(message: str) -> None:
    # One line, printable whatever the message holds (a file name with bytes that are not UTF-8).
    line = " ".join(message.split("\n")).encode("utf-8", "backslashreplace").decode("utf-8")
    click.echo(f"rulekb: {line}", err=True)
    sys.exit(1)


def _check_text_arguments(kwargs: dict) -> None:
    """Refuse a text argument holding bytes that are not UTF-8 (the shell passes them through)."""
    for name, value in kwargs.items():
        if name in _PATH_PARAMS:
            continue
        for text in value if isinstance(value, tuple) else (value,):  # a tuple: an argument of many words
            if not isinstance(text, str):
                continue
            at = surrogate_position(text)
            if at >= 0:
                byte = ord(text[at]) - 0xDC00
                raise InputError(f"argument {name.upper()} is not UTF-8 text (byte 0x{byte:02X} at character {at + 1})")


def handles_errors(fn: Callable) -> Callable:
    """Turn library and environment errors into a one-line message and exit status 1 (never a traceback)."""

    @wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            _check_text_arguments(kwargs)
            return fn(*args, **kwargs)
        except RulekbError as exc:
            _fail(str(exc))
        except BrokenPipeError:
            sys.exit(0)
        except KeyboardInterrupt:
            # A build or ingest interrupted before its swap leaves the live KB as it was.
            click.echo("rulekb: interrupted", err=True)
            sys.exit(130)
        except Exception as exc:  # an environment failure: disk, permissions, SQLite, recursion
            message = describe_failure(exc)
            if message is None:
                raise
            _fail(message)

    return wrapper


def existing_paths(paths: tuple[str, ...], what: str) -> None:
    """Refuse a path argument that cannot be read, in one line (click would answer with usage text)."""
    from kb.textio import check_input_file, os_reason

    for p in paths:
        if what == "file":
            check_input_file(p)
            continue
        try:
            os.stat(p)
        except OSError as exc:
            raise InputError(os_reason(exc), path=p) from None
