"""Diff two versions of one game and language: added, removed, edited and moved clauses."""

from __future__ import annotations

import tomllib
from pathlib import Path

from kb.errors import InputError
from kb.store import Store, VersionInfo
from kb.versions import diffparts, matcher
from kb.versions.diffparts import Item

FORCED_PATH = Path(__file__).resolve().parents[1] / "data" / "forced_matches.toml"


def load_items(store: Store, version: VersionInfo | int) -> list[Item]:
    """A version's nodes as comparable items, in document order."""
    return [diffparts.make_item(*row) for row in store.item_rows(version)]


def load_forced(path: Path | str = FORCED_PATH) -> list[dict]:
    """The forced matches file: ``[[match]]`` tables (see the file's header for the format)."""
    p = Path(path)
    if not p.exists():
        return []
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"bad TOML: {exc}", path=str(p)) from None
    out = []
    for i, entry in enumerate(data.get("match", []), 1):
        missing = [k for k in ("game", "lang", "old", "new") if k not in entry]
        if missing or not (entry.get("old_rule") or entry.get("new_rule")):
            raise InputError(f"match #{i}: needs game, lang, old, new and old_rule and/or new_rule", path=str(p))
        out.append(entry)
    return out


def forced_for(game: str, lang: str, old: str, new: str, entries: list[dict] | None = None) -> list[tuple[str, str]]:
    """Forced (old_rule, new_rule) pairs that apply between two version labels."""
    entries = load_forced() if entries is None else entries
    return [
        (e.get("old_rule", ""), e.get("new_rule", ""))
        for e in entries
        if e["game"] == game and e["lang"] == lang and e["old"] == old and e["new"] == new
    ]


def diff_items(
    old: list[Item],
    new: list[Item],
    forced: list[tuple[str, str]] | None = None,
    *,
    old_partial: bool = False,
    new_partial: bool = False,
    inline: bool = True,
    vocab=None,
    known: dict[tuple[str, str], bool] | None = None,
) -> list[dict]:
    """Changes between two item lists, sorted; a partial side reports no additions/removals it cannot know.

    ``vocab`` (``kb.versions.editorial.vocabulary``) lets the editorial test recognise typo fixes; ``known`` gives
    editorial verdicts already made (kb.versions.history.editorial_paths)."""
    m = matcher.match(old, new, forced)
    changes = []
    for o in old:
        n_rule = m.o2n.get(o.rule)
        if n_rule is None:
            if not new_partial:
                changes.append(diffparts.describe(o, None, inline=inline))
            continue
        c = diffparts.describe(o, m.new_by_rule[n_rule], inline=inline, vocab=vocab, known=known)
        if c is not None:
            changes.append(c)
    if not old_partial:
        changes.extend(diffparts.describe(None, n, inline=inline) for n in new if n.rule not in m.n2o)
    return diffparts.sort_changes(changes)
