"""The KB services a page calls, each failure shown as an unavailable section, not a broken page.

A page section (history, diff, alignment, tests citing a clause, ...) calls its service through
``section``: the user's own errors (``RulekbError``: unknown version, bad rule) still answer 400/404,
and anything else is logged with its traceback and raised as ``Unavailable``, which the view shows in
place of that section while the rest of the page renders (as datasette's ``handle_exception``).
"""

from __future__ import annotations

import logging
from types import ModuleType
from typing import Any

import kb.links
from kb.errors import RulekbError
from kb.store import Store, VersionInfo
from kb.versions import align as kb_align
from kb.versions import compare as kb_compare
from kb.versions import diffparts, editorial, jahistory, termlinks
from kb.versions import history as kb_history
from kb.versions import lineage as kb_lineage

log = logging.getLogger(__name__)


class Unavailable(Exception):
    """A service failed; the page shows the reason instead of the section."""


def section(module: ModuleType, func: str, *args, **kwargs) -> Any:
    """``module.func(*args, **kwargs)``; any failure but the user's own is logged and raised as Unavailable."""
    try:
        return getattr(module, func)(*args, **kwargs)
    except RulekbError:
        raise  # the user's parameters were wrong: the view answers 400/404
    except Exception as exc:  # one broken section must not take the whole page down
        name = f"{module.__name__}.{func}"
        log.exception("%s failed", name)
        raise Unavailable(f"{name} failed: {type(exc).__name__}") from None


def diff(store: Store, game: str, lang: str, old: str, new: str, *, inline: bool = True) -> dict:
    return section(kb_compare, "diff_versions", store, game, lang, old, new, inline=inline)


def history(store: Store, game: str, lang: str, rule: str, version: str | None = None) -> dict:
    """A clause's history: a translated one told by its English lineage (kb.versions.jahistory)."""
    told = section(jahistory, "history", store, game, lang, rule, version=version)
    return told if told is not None else section(kb_history, "history", store, game, lang, rule, version=version)


def translation_now(store: Store, game: str, lang: str, rule: str, label: str) -> dict | None:
    return section(jahistory, "now", store, game, lang, rule, label)


def align(store: Store, a: VersionInfo, b: VersionInfo) -> dict:
    return section(kb_align, "align", store, a, b)


def links_saved(store: Store) -> dict | None:
    return section(kb.links, "saved", store)


def citations_for(store: Store, game: str, rule: str) -> list[dict]:
    return section(kb.links, "citations_for", store, game, rule)


def successor(store: Store, game: str, lang: str, rule: str, from_label: str) -> list[tuple[str | None, str]]:
    return section(kb_history, "successor", store, game, lang, rule, from_label)


def carry(store: Store, game: str, lang: str, rules: list[str], from_label: str, to_label: str) -> dict:
    return section(kb_history, "carry", store, game, lang, rules, from_label, to_label)


def inline_diff(old: str, new: str) -> list[list[str]]:
    return section(diffparts, "inline_diff", old, new)


def update_counts(store: Store) -> dict:
    return section(kb_lineage, "update_counts", store)


def update_changes(store: Store, new_vid: int) -> list[dict]:
    return section(kb_lineage, "update_changes", store, new_vid)


def prepare_diff(store: Store, version: VersionInfo) -> int:
    return section(kb_compare, "prepare", store, version)


def prime_terms(store: Store, version: VersionInfo) -> int:
    return section(termlinks, "prime", store, version)


def editorial_vocabulary(store: Store) -> Any:
    return section(editorial, "vocabulary", store)
