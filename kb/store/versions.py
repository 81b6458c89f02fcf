"""Reading the versions a store holds, oldest first, with their counts; a version by label."""

from __future__ import annotations

import json
import sqlite3
from datetime import date

from kb.errors import NotFound
from kb.store.records import NODE_COLUMNS, NodeRecord, VersionInfo, joined, node_from_row


class VersionReads:
    """The version-reading half of the Store (mixed into kb.store.db.Store)."""

    conn: sqlite3.Connection
    _versions_cache: list[VersionInfo] | None

    def versions(self, game: str | None = None, lang: str | None = None) -> list[VersionInfo]:
        """Versions oldest first (by edition date; undated first unless placed by an estimate)."""
        if self._versions_cache is None:
            self._versions_cache = self._load_versions()
        return [
            v for v in self._versions_cache if (game is None or v.game == game) and (lang is None or v.lang == lang)
        ]

    def use_versions(self, versions: list[VersionInfo]) -> None:
        """Adopt the version list another read-only connection to the same file read."""
        self._versions_cache = versions

    def _load_versions(self) -> list[VersionInfo]:
        # kept by Store.add (kb.store.writer): counting here would scan every node
        counts = {r[0]: r[1:] for r in self.conn.execute("SELECT * FROM version_counts")}
        out = []
        for vid, game, lang, label, effective, partial, sort_date, meta in self.conn.execute(
            "SELECT id, game, lang, label, effective, partial, sort_date, meta FROM versions"
        ):
            c, h, n_terms, n_docs = counts.get(vid, (0, 0, 0, 0))
            out.append(
                VersionInfo(
                    id=vid,
                    game=game,
                    lang=lang,
                    label=label,
                    effective=date.fromisoformat(effective) if effective else None,
                    partial=bool(partial),
                    sort_date=sort_date,
                    meta=json.loads(meta),
                    clauses=c,
                    headings=h,
                    terms=n_terms,
                    documents=n_docs,
                )
            )
        # Undated versions with no estimate yet (an old translation) sort first: they are not current.
        out.sort(key=lambda v: (v.game, v.lang, v.sort_date, v.label))
        return out

    def get_version(self, game: str, lang: str, label: str) -> VersionInfo:
        """The version ``label`` (or ``latest``) of a game and language; NotFound otherwise."""
        candidates = self.versions(game, lang)
        if label in ("latest", "", None):
            if not candidates:
                raise NotFound(f"no versions of {game}/{lang}")
            # Prefer whole texts over fragments, and dated texts over undated ones.
            return max(candidates, key=lambda v: (not v.partial, bool(v.sort_date), v.sort_date))
        for v in candidates:
            if v.label == label:
                return v
        known = ", ".join(v.label for v in candidates[-5:]) or "none"
        raise NotFound(f"unknown version {label!r} of {game}/{lang} (newest: {known})")

    def find_version(self, label: str, game: str | None = None, lang: str | None = None) -> VersionInfo:
        """A version by label alone when game/lang are not given (unique match required)."""
        matches = [v for v in self.versions(game, lang) if v.label == label]
        if label == "latest" and game and lang:
            return self.get_version(game, lang, label)
        if not matches:
            raise NotFound(f"unknown version {label!r}")
        if len(matches) > 1:
            names = ", ".join(f"{v.game}/{v.lang}" for v in matches)
            raise NotFound(f"version {label!r} exists for {names}: give --game/--lang")
        return matches[0]

    def latest(self, game: str, lang: str) -> VersionInfo | None:
        try:
            return self.get_version(game, lang, "latest")
        except NotFound:
            return None

    def rule_versions(self, game: str, lang: str, rule: str) -> list[tuple[VersionInfo, NodeRecord]]:
        """Every version of a game/language holding ``rule``, oldest first."""
        ordered = self.versions(game, lang)
        order = {v.id: i for i, v in enumerate(ordered)}
        rows = self.conn.execute(joined(NODE_COLUMNS, "n.rule=?"), (rule,))
        found = [(ordered[order[r[0]]], node_from_row(r)) for r in rows if r[0] in order]
        return sorted(found, key=lambda pair: order[pair[0].id])
