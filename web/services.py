"""Calls into the KB services, each degrading to None when that service is not available.

The services (search, diff, history, align, links) are separate modules of ``kb``; a page shows
what it can and says which part is missing rather than failing as a whole.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

from kb.errors import RulekbError
from kb.store import Store, VersionInfo

log = logging.getLogger(__name__)


class Unavailable(Exception):
    """The service module is missing or failed; the page shows the reason instead of the section."""


def _call(module: str, func: str, *args, **kwargs) -> Any:
    try:
        fn = getattr(importlib.import_module(module), func)
    except (ImportError, AttributeError):
        raise Unavailable(f"{module}.{func} is not available in this build") from None
    try:
        return fn(*args, **kwargs)
    except ImportError:  # the service's own modules are not all there yet
        raise Unavailable(f"{module}.{func} is not available in this build") from None
    except RulekbError:
        raise  # the user's parameters were wrong: the view answers 400/404
    except Exception as exc:  # one broken section must not take the whole page down
        log.exception("%s.%s failed", module, func)
        raise Unavailable(f"{module}.{func} failed: {type(exc).__name__}") from None


def diff(store: Store, game: str, lang: str, old: str, new: str, *, inline: bool = True) -> dict:
    return _call("kb.diff", "diff_versions", store, game, lang, old, new, inline=inline)


def history(store: Store, game: str, lang: str, rule: str) -> dict:
    return _call("kb.history", "history", store, game, lang, rule)


def align(store: Store, a: VersionInfo, b: VersionInfo) -> dict:
    return _call("kb.align", "align", store, a, b)


def links_saved(store: Store) -> dict | None:
    return _call("kb.links", "saved", store)


def citations_for(store: Store, game: str, rule: str) -> list[dict]:
    return _call("kb.links", "citations_for", store, game, rule)


def successor(store: Store, game: str, lang: str, rule: str, from_label: str) -> list[tuple[str | None, str]]:
    return _call("kb.history", "successor", store, game, lang, rule, from_label)


def carry(store: Store, game: str, lang: str, rules: list[str], from_label: str, to_label: str) -> dict:
    return _call("kb.history", "carry", store, game, lang, rules, from_label, to_label)


def inline_diff(old: str, new: str) -> list[list[str]]:
    return _call("kb.diffparts", "inline_diff", old, new)


def update_counts(store: Store) -> dict:
    return _call("kb.history", "update_counts", store)


def update_changes(store: Store, new_vid: int) -> list[dict]:
    return _call("kb.history", "update_changes", store, new_vid)


def prepare_diff(store: Store, version: VersionInfo) -> int:
    return _call("kb.diff", "prepare", store, version)


def editorial_vocabulary(store: Store):
    return _call("kb.editorial", "vocabulary", store)
