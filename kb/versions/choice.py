"""Which version a command or a page means when the user names none, or says ``latest``.

One set of rules for the CLI and the web app: a clause is read in the newest *whole* text holding it
(a newer wiki quote or viewer page is a fragment); a diff's ``latest`` is the newest whole version,
and with no labels at all, the newest update (the two newest whole dated versions); an alignment's
``latest`` is the newest version in the other language.
"""

from __future__ import annotations

from kb.errors import NotFound, RulekbError
from kb.store import Store, VersionInfo
from kb.versions import editions

LATEST = "latest"


def holding(store: Store, game: str, lang: str, rule: str) -> VersionInfo | None:
    """The newest whole version of a game and language holding ``rule`` (a fragment only when no whole
    text holds it); None when no version does."""
    found = store.rule_versions(game, lang, rule)
    if not found:
        return None
    return max(found, key=lambda pair: (not pair[0].partial, pair[0].sort_date))[0]


def for_rule(store: Store, rule: str, game: str, langs: list[str]) -> VersionInfo:
    """The version to read ``rule`` in: ``holding`` in the first of ``langs`` that has it; NotFound otherwise."""
    for lang in langs:
        v = holding(store, game, lang, rule)
        if v is not None:
            return v
    where = f" in {langs[0]}" if len(langs) == 1 else ""
    raise NotFound(f"no {game} version{where} holds {rule}")


def latest_update(store: Store, game: str, lang: str) -> tuple[VersionInfo, VersionInfo] | None:
    """The newest update of a game and language: its two newest whole, dated versions (None with fewer)."""
    whole = [v for v in store.versions(game, lang) if not v.partial and v.sort_date]
    return (whole[-2], whole[-1]) if len(whole) >= 2 else None


def diff_pair(
    store: Store, old: str, new: str, game: str | None = None, lang: str | None = None
) -> tuple[VersionInfo, VersionInfo]:
    """The two versions a diff of ``old`` and ``new`` compares. ``latest`` on one side is the newest whole
    version of the other side's game and language; on both sides (with a game and language), the newest update."""
    a = store.find_version(old, game, lang) if old != LATEST else None
    b = store.find_version(new, game, lang) if new != LATEST else None
    ref = a or b
    if ref is None:
        if not (game and lang):
            raise RulekbError("give at least one version label, or --game and --lang with 'latest latest'")
        update = latest_update(store, game, lang)
        if update is None:
            raise NotFound(f"{game}/{lang} has fewer than two whole versions: no update to compare")
        return update
    return a or store.get_version(ref.game, ref.lang, LATEST), b or store.get_version(ref.game, ref.lang, LATEST)


def align_pair(store: Store, label_a: str, label_b: str, game: str | None = None) -> tuple[VersionInfo, VersionInfo]:
    """The two versions an alignment compares; ``latest`` is the newest version in the other side's language
    (both ``latest``: the newest Japanese against the newest English version)."""
    if label_a == label_b == LATEST:
        game = game or "mtg"
        return store.get_version(game, "ja", LATEST), store.get_version(game, "en", LATEST)
    a = store.find_version(label_a, game) if label_a != LATEST else None
    b = store.find_version(label_b, game) if label_b != LATEST else None
    known = a or b
    assert known is not None  # at most one side is latest here
    other = "en" if known.lang == "ja" else "ja"
    return a or store.get_version(known.game, other, LATEST), b or store.get_version(known.game, other, LATEST)


def paired(store: Store, v: VersionInfo) -> VersionInfo | None:
    """The other language's text of the same edition: a translation's English edition, an edition's best translation."""
    if v.lang != "en":
        return editions.rendered_edition(store, v)
    found = editions.translations_of(store, v)
    return found[0] if found else None
