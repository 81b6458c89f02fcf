"""Reading glossary terms and wiki articles."""

from __future__ import annotations

import json
import sqlite3

from kb.store.records import VersionInfo, vid_of

_TERM_COLUMNS = (
    "id",
    "version_id",
    "game",
    "lang",
    "term",
    "reading",
    "english",
    "definition",
    "rule",
    "source",
    "line",
)
_ARTICLE_COLUMNS = "a.id, a.game, a.lang, a.title, a.text, a.revision, a.cites_version, a.data"


class ArticleReads:
    """The term- and article-reading half of the Store (mixed into kb.store.db.Store)."""

    conn: sqlite3.Connection

    def terms(
        self, game: str | None = None, lang: str | None = None, version: VersionInfo | int | None = None
    ) -> list[dict]:
        q = f"SELECT {', '.join(_TERM_COLUMNS)} FROM terms WHERE 1=1"
        args: list = []
        if game:
            q += " AND game=?"
            args.append(game)
        if lang:
            q += " AND lang=?"
            args.append(lang)
        if version is not None:
            q += " AND version_id=?"
            args.append(vid_of(version))
        return [dict(zip(_TERM_COLUMNS, r, strict=True)) for r in self.conn.execute(q + " ORDER BY id", args)]

    def term_entry(self, term_id: int) -> tuple[str, str | None, str | None]:
        """(term, English name, definition) of one glossary entry."""
        return self.conn.execute("SELECT term, english, definition FROM terms WHERE id=?", (term_id,)).fetchone()

    def article_text(self, article_id: int) -> tuple[str, str]:
        """(title, text) of one article."""
        return self.conn.execute("SELECT title, text FROM articles WHERE id=?", (article_id,)).fetchone()

    def articles(self, game: str | None = None) -> list[dict]:
        q = f"SELECT {_ARTICLE_COLUMNS} FROM articles a"
        rows = self.conn.execute(q + (" WHERE a.game=?" if game else "") + " ORDER BY a.id", (game,) if game else ())
        return [self._article(r) for r in rows]

    def article(self, article_id: int) -> dict | None:
        row = self.conn.execute(f"SELECT {_ARTICLE_COLUMNS} FROM articles a WHERE a.id=?", (article_id,)).fetchone()
        return self._article(row) if row else None

    def articles_citing(self, game: str, rule: str) -> list[dict]:
        rows = self.conn.execute(
            f"SELECT {_ARTICLE_COLUMNS} FROM articles a JOIN article_cites c ON c.article_id = a.id"
            " WHERE a.game=? AND c.rule=? ORDER BY a.id",
            (game, rule),
        )
        return [self._article(r) for r in rows]

    def _article(self, row) -> dict:
        cites = [r[0] for r in self.conn.execute("SELECT rule FROM article_cites WHERE article_id=?", (row[0],))]
        data = json.loads(row[7])
        return {
            "id": row[0],
            "game": row[1],
            "lang": row[2],
            "title": row[3],
            "text": row[4],
            "revision": row[5],
            "cites_version": row[6],
            "cites": cites,
            **data,
        }
