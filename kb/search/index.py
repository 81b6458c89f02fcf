"""The Whoosh index: schema and the offline build from a store.

One document per distinct (game, lang, rule, content): a clause unchanged across 100 editions is
tokenised and indexed once. Its ``vers`` keyword field lists the ids of every version holding it,
plus ``default`` when it is in the default search scope (newest text of each clause), so version
filters are plain term filters. Glossary terms and wiki articles are indexed beside the clauses.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import re
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

from whoosh import index as windex
from whoosh.analysis import StandardAnalyzer, StemmingAnalyzer
from whoosh.fields import ID, KEYWORD, STORED, TEXT, Schema

from kb import ruleid
from kb.analysis import (
    BigramAnalyzer,
    JapaneseAnalyzer,
    ReadingAnalyzer,
    learn_vocab,
    title_key,
)
from kb.children import die_with_parent
from kb.model import Progress, default_workers
from kb.search import ahead, semantic
from kb.search.ahead import Ahead, Carried, indexed_ahead
from kb.search.ranking import alternatives, name_of
from kb.search.thesaurus import Thesaurus, analysis_fingerprint, mine_renames

TERMS_FILE = "terms.json"
KEYS_FILE = "thesaurus-keys.json"  # the thesaurus's phrases -> their word keys with this index's vocabulary
AHEAD_CHUNK = 250  # documents per job of the processes indexing ahead of the writer (kb.search.ahead)
CURRENT_DIR = "current"  # a second, small index of the default scope only: most searches read just this
_SEE_RULE = re.compile(r"(?:rules?|ルール)\s*(\d{3}(?:\.\d{1,3}[a-z]{0,2})?)", re.I)


def make_schema(vocab: frozenset[str] | None = None) -> Schema:
    """The index schema; the Japanese analyzers carry the katakana vocabulary learned at build."""
    ja, rd, en = JapaneseAnalyzer(vocab), ReadingAnalyzer(vocab), StemmingAnalyzer()
    return Schema(
        key=ID(stored=True, unique=True),
        tk=KEYWORD,  # the whole title / glossary term normalised, and each half of a 日本語／English title
        kind=ID(stored=True),
        game=ID(stored=True),
        lang=ID(stored=True),
        rule=ID(stored=True),
        hash=ID(stored=True),
        ref=STORED,  # article id or term id
        dver=STORED,  # label of the version shown in the default scope
        nvers=STORED,
        vers=KEYWORD,
        ja=TEXT(analyzer=ja),  # title + text + notes; positions for the phrase tier
        jt=TEXT(analyzer=ja, phrase=False),  # title / glossary term
        jx=TEXT(analyzer=ja, phrase=False),  # examples
        jr=TEXT(analyzer=rd, phrase=False),  # readings of title + text
        jb=TEXT(analyzer=BigramAnalyzer(), phrase=False),  # character bigrams (recall layer)
        en=TEXT(analyzer=en, phrase=False),
        ew=TEXT(analyzer=StandardAnalyzer(stoplist=None)),  # unstemmed words: "blocked creature" as a phrase
        et=TEXT(analyzer=en, phrase=False),
        ex=TEXT(analyzer=en, phrase=False),
    )


def default_scope(store) -> dict[tuple[str, str, str], tuple[int, str]]:
    """(game, lang, rule) -> (version id, hash) of the text shown by default.

    Per game and language: the newest whole version, overridden rule by rule by newer partial
    versions (quotes, single pages). With no whole version, the newest text of each rule.
    """
    scope: dict[tuple[str, str, str], tuple[int, str]] = {}
    by_gl: dict[tuple[str, str], list] = defaultdict(list)
    for v in store.versions():
        by_gl[(v.game, v.lang)].append(v)
    for (game, lang), versions in by_gl.items():
        full = [i for i, v in enumerate(versions) if not v.partial]
        start = full[-1] if full else 0
        # Oldest first: newer versions overwrite. A wiki quote only fills rules no rules text holds:
        # a page quoting a clause is not the clause's text (and its label may be any edition's).
        for v in sorted(versions[start:], key=lambda v: v.meta.get("provenance") != "wiki-quote"):
            for rule, h in store.conn.execute("SELECT rule, hash FROM nodes WHERE version_id=?", (v.id,)):
                scope[(game, lang, rule)] = (v.id, h)
    for key in _covered_elsewhere(store, scope):
        del scope[key]
    return scope


def _covered_elsewhere(store, scope: dict) -> list[tuple[str, str, str]]:
    """Scope entries of an older text whose rule a newer text of the same language holds under
    another number: its heading has the same title there (戦闘ダメージ・ステップ: 310 in 2008, 510
    today), or, for a text older by more than five years, the English lineage (kb.versions.history) renumbers it.

    Magic's Japanese texts are partial: the 2008 translation fills the rules newer ones lack, but
    under the 2008 numbers, so its combat chapter (309-310) would stand beside today's 509-510.
    """
    versions = store.versions()
    rank = {v.id: i for i, v in enumerate(versions)}  # oldest first
    by_id = {v.id: v for v in versions}
    newest_year: dict[tuple[str, str], int] = {}
    for v in versions:
        if v.sort_date[:4].isdigit():
            newest_year[(v.game, v.lang)] = max(newest_year.get((v.game, v.lang), 0), int(v.sort_date[:4]))
    out = []
    for vid in {vid for vid, _h in scope.values()}:
        v = by_id[vid]
        later = {
            (r, nv)
            for (g, lang, r), (nv, _h) in scope.items()
            if (g, lang) == (v.game, v.lang) and rank[nv] > rank[vid]
        }
        if not later:
            continue
        moved = _same_headings(store, vid, {(r, nv) for r, nv in later if "." not in r})
        held = {r.split(".")[0] for r, _ in later}
        renumber = None
        if v.sort_date[:4].isdigit() and newest_year[(v.game, v.lang)] - int(v.sort_date[:4]) > 5:
            english = [e for e in store.versions(v.game, "en") if e.sort_date <= v.sort_date and not e.partial]
            renumber = _renumbering(store, v.game, english[-1].id) if english else None
        for (g, lang, rule), (svid, _h) in scope.items():
            if svid != vid:
                continue
            today = renumber(rule) if renumber is not None else None
            if rule.split(".")[0] in moved or (today and today.split(".")[0] in held):
                out.append((g, lang, rule))
    return out


def _same_headings(store, vid: int, later: set[tuple[str, int]]) -> set[str]:
    """Rules of version ``vid`` whose heading title names, once in each text, a ``later`` heading
    (rule, version) of another number."""
    titles = {}
    for r, t, v in store.conn.execute(
        "SELECT n.rule, c.title, n.version_id FROM nodes n JOIN contents c ON c.hash=n.hash"
        " WHERE n.rule NOT LIKE '%.%' AND c.title != ''"
    ):
        if v == vid or (r, v) in later:
            titles.setdefault(v == vid, {}).setdefault(t, set()).add(r)
    old, new = titles.get(True, {}), titles.get(False, {})
    return {next(iter(rs)) for t, rs in old.items() if len(rs) == 1 and len(new.get(t, ())) == 1 and rs != new[t]}


def _renumbering(store, game: str, start_vid: int) -> Callable[[str], str | None]:
    """rule -> today's number of the same English clause, followed edition by edition from ``start_vid``."""
    steps: dict[int, tuple[int, dict[str, str | None]]] = {}
    has_lineage = store.has_table("lineage")
    for o, n, orule, nrule, kind in (
        []
        if not has_lineage
        else store.conn.execute(
            "SELECT old_vid, new_vid, old_rule, new_rule, kind FROM lineage WHERE game=? AND lang='en'", (game,)
        )
    ):
        changes = steps.setdefault(o, (n, {}))[1]
        if orule and kind in ("moved", "edited", "removed"):
            changes[orule] = nrule if kind != "removed" else None

    def follow(rule: str) -> str | None:
        vid, seen = start_vid, set()
        while vid in steps and vid not in seen:
            seen.add(vid)
            vid, changes = steps[vid]
            if rule in changes:
                rule = changes[rule]
                if rule is None:
                    return None
        return rule

    return follow


def _rule_of_term(t: dict) -> str:
    if t.get("rule"):
        return t["rule"]
    m = _SEE_RULE.search(t.get("definition") or "")
    return m.group(1) if m else ""


def _table_of(terms, rename_rows: list) -> dict:
    """The term table from the store's terms and the lineage's (old, new) English texts (no store needed:
    an index build makes it in the process that commits the default scope)."""
    ja2en: dict[str, set[str]] = defaultdict(set)
    for t in terms:
        ja, en = (t["term"] or "").strip(), (t["english"] or "").strip()
        if ja and en and t["lang"] == "ja" and len(en) <= 60:
            ja2en[ja].add(en)
    return {"ja2en": {k: sorted(v) for k, v in ja2en.items()}, "renames": _renames(rename_rows)}


def _rename_rows(store) -> list[tuple[str, str]]:
    """(old, new) English texts of clauses the lineage saw moved or edited, when the build made one."""
    if not store.has_table("lineage"):
        return []
    return store.conn.execute(
        "SELECT co.text, cn.text FROM lineage l"
        " JOIN nodes o ON o.version_id=l.old_vid AND o.rule=l.old_rule JOIN contents co ON co.hash=o.hash"
        " JOIN nodes n ON n.version_id=l.new_vid AND n.rule=l.new_rule JOIN contents cn ON cn.hash=n.hash"
        " WHERE l.lang='en' AND l.kind IN ('moved', 'edited') AND l.reference_only=0"
    ).fetchall()


def _renames(rows: list[tuple[str, str]]) -> list[list]:
    """English old -> new wordings mined from the clause lineage (kb.versions.history)."""
    stem = StemmingAnalyzer()
    return [list(r) for r in mine_renames(rows, lambda t: [tok.text for tok in stem(t)])[:200]]


def build_index(
    store,
    index_dir: str | Path,
    progress: Progress | None = None,
    *,
    procs: int | None = None,
    vector_sources: list[Path] = (),
    carry: Path | None = None,
) -> dict:
    """Build a fresh index in ``index_dir`` (which must not exist yet) from ``store``.

    The text fields are indexed ahead on ``procs`` processes (default: one per core; kb.search.ahead)
    while one writer adds the documents in a fixed order (the vectors' rows follow it).

    With the semantic extra installed, the default scope is embedded too (kb.search.semantic): vectors are
    reused from ``vector_sources`` (the previous generation's index) and the shipped cache.
    """
    t0 = time.perf_counter()
    index_dir = Path(index_dir)
    index_dir.mkdir(parents=True)
    labels = {v.id: v.label for v in store.versions()}
    scope = default_scope(store)
    holders: dict[tuple[str, str], list[int]] = defaultdict(list)
    for rule, h, vid in store.conn.execute("SELECT rule, hash, version_id FROM nodes"):
        holders[(rule, h)].append(vid)
    version_gl = {v.id: (v.game, v.lang) for v in store.versions()}
    contents = list(store.distinct_contents())
    terms = _glossary(store, version_gl)
    articles = store.articles()
    vocab = learn_vocab(
        [(n.title + n.text)[:MAX_INDEXED_CHARS] for g, lang, _, n in contents if lang == "ja"]
        + [a["text"][:MAX_INDEXED_CHARS] for a in articles]
    )
    passages = Passages(store)
    passages.names = searched_names(contents, store.terms(), scope)
    both = list(_documents(passages, contents, terms, articles, labels, scope, holders, version_gl))
    passage_of, docs = [p for p, _ in both], [d for _, d in both]
    schema = make_schema(vocab)
    ix = windex.create_in(str(index_dir), schema)
    # Postings are pooled in memory up to limitmb (Whoosh's estimate, about twice the real size) and
    # spilled to sorted runs on disk beyond it: the bundled corpus's 3 million postings fit in 1 GB,
    # and spilling them cost a sixth of the build.
    writer = ix.writer(limitmb=1024)
    (index_dir / CURRENT_DIR).mkdir()
    current = windex.create_in(str(index_dir / CURRENT_DIR), schema).writer(limitmb=256)
    total = len(docs)
    workers = default_workers() if procs is None else procs
    ahead = Ahead()
    carried = Carried(carry, carry_fingerprint(vocab), _worth_carrying) if carry else None
    with ahead.fields(writer.schema, current.schema):
        for done, (doc, made) in enumerate(indexed_ahead(docs, schema, workers, AHEAD_CHUNK, carried), 1):
            ahead.set(doc, made)
            writer.add_document(**doc)
            in_current = "default" in doc["vers"].split()
            if in_current:
                current.add_document(**doc)
            passages.add(passage_of[done - 1], in_current)
            if progress and done % 2000 == 0:
                progress(done, total, "index")
    if progress:
        progress(total, total, "index: writing segments")
    # The store is read here: a forked child must not touch the parent's SQLite connection.
    terms_read, rename_rows = list(store.terms()), _rename_rows(store)

    def the_rest() -> None:  # the default scope, the term table and the thesaurus keys
        current.commit()
        table = _table_of(terms_read, rename_rows)
        (index_dir / TERMS_FILE).write_text(json.dumps(table, ensure_ascii=False), encoding="utf-8")
        _write_keys(index_dir, schema, table)

    with _lengths_looked_up_once():
        _at_once(writer.commit, the_rest, fork=workers >= 2)
    if carried:
        carried.save()
    if progress:
        progress(total, total, "index")
    t1 = time.perf_counter()
    dense = passages.embed(index_dir, list(vector_sources), progress)
    size = sum(p.stat().st_size for p in index_dir.rglob("*") if p.is_file())
    return {
        "docs": total,
        "rules": len(contents),
        "terms": len(terms),
        "articles": len(articles),
        "seconds": round(time.perf_counter() - t0, 2),
        "size": size,
        "dense": dense,
        "dense_seconds": round(time.perf_counter() - t1, 2),
    }


def carry_fingerprint(vocab) -> str:
    """What a text field's analysis depends on (kb.search.ahead.Carried): the vocabulary, the analysis
    and schema code, and the versions of Janome and Whoosh."""
    h = hashlib.sha256(analysis_fingerprint(vocab).encode())
    for module in (sys.modules[__name__], ahead):
        h.update(Path(module.__file__).read_bytes())
    h.update(version("whoosh").encode())
    return h.hexdigest()


def _worth_carrying(doc: dict) -> bool:
    """Japanese texts: Janome is most of a document's analysis."""
    return bool(doc.get("ja"))


def _write_keys(index_dir: Path, schema: Schema, table: dict) -> None:
    """The thesaurus's phrases analysed once here, not at every searcher start (kb.search.thesaurus),
    with the vocabulary a searcher reads back from the schema (the built-in words added)."""
    vocab = schema["ja"].analyzer.vocab
    analysed = {
        "fingerprint": analysis_fingerprint(vocab),
        "keys": Thesaurus.load(vocab=vocab, pairs=table["ja2en"]).key_cache,
    }
    (index_dir / KEYS_FILE).write_text(json.dumps(analysed, ensure_ascii=False), encoding="utf-8")


def _at_once(first: Callable[[], object], second: Callable[[], object], *, fork: bool = True) -> None:
    """Run ``second`` in a forked child while this process runs ``first``; both must succeed.

    Used for the two indexes' commits: each is one core's work for seconds (the whole index ~10 s, the
    default scope's ~4 s plus the thesaurus keys ~2 s on the bundled corpus), and the writers share
    nothing but the analyses already made, which a fork carries over. The child only writes files in
    the new index directory, and its error (a full disk) is raised here as if it were this process's.
    Where there is no fork, or ``fork`` is false, they run in turn."""
    if not fork or not hasattr(os, "fork"):
        first()
        second()
        return
    sys.stdout.flush()
    sys.stderr.flush()
    read, write = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never return into the caller's code; its error goes back to the parent
        os.close(read)
        code = 0
        try:
            die_with_parent(parent)
            second()
        except BaseException as error:  # noqa: BLE001 - re-raised in the parent
            code = 1
            try:
                payload = pickle.dumps(error)
            except Exception:  # noqa: BLE001 - an error that does not pickle goes back as its message
                payload = pickle.dumps(RuntimeError(f"{type(error).__name__}: {error}"))
            with os.fdopen(write, "wb") as out:
                out.write(payload)
        finally:
            os._exit(code)
    os.close(write)
    try:
        first()
    finally:
        with os.fdopen(read, "rb") as back:
            payload = back.read()
        _, status = os.waitpid(pid, 0)
    if payload:
        raise pickle.loads(payload)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"the index's second writer (process {pid}) ended with status {status}")


class Passages:
    """The text each default-scope document is embedded as, in document-number order of both indexes."""

    def __init__(self, store):
        self.store = store
        self.full: list[bytes | None] = []  # per full-index document number
        self.current: list[bytes] = []  # per current-index document number
        self.texts: dict[bytes, str] = {}
        self.names: list[str] = []  # query parts to embed (searched_names)
        self._headings: dict[int, dict[str, str]] = {}

    def rule(self, vid: int, node) -> str:
        """A clause's passage, under the title of the nearest heading above it in its version."""
        if vid not in self._headings:
            self._headings[vid] = dict(
                self.store.conn.execute(
                    "SELECT n.rule, c.title FROM nodes n JOIN contents c ON c.hash=n.hash WHERE n.version_id=? AND c.title!=''",
                    (vid,),
                )
            )
        heads = self._headings[vid]
        rule, heading = node.rule, ""
        while not heading and (rule := ruleid.parent(rule) or ""):
            heading = heads.get(rule, "")
        return semantic.rule_passage(heading, node.title, node.text)

    def add(self, text: str, in_current: bool) -> None:
        key = semantic.passage_key(text) if text else None
        if key is not None:
            self.texts[key] = text
        self.full.append(key)
        if in_current:
            self.current.append(key if key is not None else b"")

    def embed(self, index_dir: Path, sources: list[Path], progress: Progress | None) -> dict | None:
        """Embed (or reuse) every passage and save the vectors beside the index; None when semantic is off."""
        embedder = semantic.load_embedder()
        if embedder is None:
            return None
        import numpy as np

        sources = sources + semantic.shipped_caches(embedder.name)
        vectors, stats = semantic.embed_all(self.texts, embedder, sources, progress)

        def rows(keys: list) -> object:
            return np.array(
                [-1 if not k else (r if (r := vectors.row_of(k)) is not None else -1) for k in keys], dtype=np.int32
            )

        # One file: the rows of both indexes' documents (the full index's -1 outside the default scope).
        # The passages too: the file says what each vector embeds (bench/vectors.py verifies them).
        texts = np.array([self.texts[k] for k in vectors.key_list()], dtype=str)
        vectors.save(index_dir / semantic.VECTORS_FILE, full=rows(self.full), current=rows(self.current), texts=texts)
        # The names people search for, embedded as queries: a search made of them embeds nothing.
        names = {semantic.query_key(n): n for n in self.names}
        named, named_stats = semantic.embed_all(names, embedder, sources, progress, queries=True)
        named.save(
            index_dir / semantic.QUERY_VECTORS_FILE, texts=np.array([names[k] for k in named.key_list()], dtype=str)
        )
        stats["embed_seconds"] += named_stats["embed_seconds"]
        return {"model": embedder.name, "vectors": len(vectors), "names": len(named), **stats}


def searched_names(contents, terms, scope) -> list[str]:
    """The Japanese names people search for, each a query part of its own (kb.search.semantic.query_parts):
    the terms of every glossary and index (each form an entry lists) and the default scope's headings."""
    forms: list[str] = []
    for t in terms:
        if t["lang"] == "ja" and len(t["term"]) <= 24:
            forms += [t["term"], *alternatives(t["term"])]
    for game, lang, _date, node in contents:
        if lang == "ja" and node.title and scope.get((game, lang, node.rule), (0, None))[1] == node.hash:
            forms += [name_of(node.title), *alternatives(name_of(node.title))]
    names = {part for form in forms for part in semantic.query_parts(form.strip())}
    return sorted(n for n in names if n and semantic.HAS_JAPANESE.search(n))


# Longer texts are indexed by their head only: real clauses run to a few thousand characters, and
# Janome (~20k chars/s) would spend minutes on a pathological multi-megabyte line.
MAX_INDEXED_CHARS = 30_000


def _fields(lang: str, title: str, text: str, examples: list[str], name: str | None = None) -> dict:
    """Field values for one text: Japanese fields for ``ja``, English ones otherwise."""
    text = text[:MAX_INDEXED_CHARS]
    ex = "\n".join(examples)[:MAX_INDEXED_CHARS]
    key = {"tk": " ".join(title_keys(name, listed=True) if name else title_keys(title))} if (name or title) else {}
    if lang == "ja":
        body = f"{title}\n{text}" if title else text  # one string for ja/jr/jb: Janome runs once
        return {"ja": body, "jt": title, "jx": ex, "jr": body, "jb": body, **key}
    body = f"{title}\n{text}" if title else text
    return {"en": body, "ew": body, "et": title, "ex": ex, **key}


def title_keys(title: str, listed: bool = False) -> list[str]:
    """Exact-name keys of a title: the whole, and each half of ``日本語／English`` (トランプル／Trample); with
    ``listed`` (a glossary entry's name), each name it lists too: 統率、統率領域 is found as 統率領域,
    "Remove from the Game, Removed, Removed-from-the-Game Zone" as "removed-from-the-game zone"."""
    keys = [title_key(title)] + [title_key(half) for half in title.split("／")] if "／" in title else [title_key(title)]
    if listed:
        keys += [title_key(name) for name in alternatives(title)]
    return [k for k in dict.fromkeys(keys) if k]


def _glossary(store, version_gl: dict[int, tuple[str, str]]) -> list[dict]:
    """Glossary entries, one per distinct (game, lang, term, definition), with the versions holding it."""
    newest: dict[tuple[str, str], int] = {}
    order = {v.id: i for i, v in enumerate(store.versions())}
    rows = [t for t in store.terms() if t["source"] == "glossary" and t["version_id"] is not None]
    for t in rows:
        gl = (t["game"], t["lang"])
        if gl not in newest or order[t["version_id"]] > order[newest[gl]]:
            newest[gl] = t["version_id"]
    labels = {v.id: v.label for v in store.versions()}
    merged: dict[tuple, dict] = {}
    for t in rows:
        k = (t["game"], t["lang"], t["term"], t["definition"] or "")
        entry = merged.setdefault(k, {**t, "vids": [], "dver": ""})
        entry["vids"].append(t["version_id"])
        if newest.get((t["game"], t["lang"])) == t["version_id"]:
            entry["dver"] = labels[t["version_id"]]
    return list(merged.values())


def _documents(passages, contents, terms, articles, labels, scope, holders, version_gl):
    """(passage to embed, Whoosh document) of every clause text, glossary term and article, in index order."""
    for game, lang, _date, node in contents:
        vids = [v for v in holders[(node.rule, node.hash)] if version_gl.get(v) == (game, lang)]
        in_scope = scope.get((game, lang, node.rule))
        dver = labels[in_scope[0]] if in_scope and in_scope[1] == node.hash else ""
        doc = _fields(lang, node.title, node.text + ("\n" + "\n".join(node.notes) if node.notes else ""), node.examples)
        yield (
            passages.rule(in_scope[0], node) if dver else "",
            dict(
                key=f"r:{game}:{lang}:{node.rule}:{node.hash}",
                kind="rule",
                game=game,
                lang=lang,
                rule=node.rule,
                hash=node.hash,
                dver=dver,
                nvers=len(vids),
                vers=" ".join([str(v) for v in vids] + (["default"] if dver else [])),
                **doc,
            ),
        )
    for t in terms:
        title = t["term"] + (f" {t['reading']}" if t["reading"] else "")
        doc = _fields(t["lang"], title, t["definition"] or "", [], name=t["term"])
        if t["english"] and t["lang"] == "ja":
            doc["et"] = t["english"]
        yield (
            semantic.term_passage(t["term"], t["english"] or "", t["definition"] or "") if t["dver"] else "",
            dict(
                key=f"t:{t['id']}",
                kind="term",
                game=t["game"],
                lang=t["lang"],
                rule=_rule_of_term(t),
                ref=t["id"],
                dver=t["dver"],
                nvers=len(t["vids"]),
                vers=" ".join([str(v) for v in t["vids"]] + (["default"] if t["dver"] else [])),
                **doc,
            ),
        )
    for a in articles:
        doc = _fields(a["lang"], a["title"], a["text"], [])
        yield (
            semantic.article_passage(a["title"], a["text"]),
            dict(
                key=f"a:{a['id']}",
                kind="article",
                game=a["game"],
                lang=a["lang"],
                rule=(a["cites"] or [""])[0],
                ref=a["id"],
                dver="",
                nvers=0,
                vers="article default",
                **doc,
            ),
        )


@contextlib.contextmanager
def _lengths_looked_up_once():
    """Whoosh's segment writer asks a new segment for each posting's field length; for a field without
    lengths (the ID and KEYWORD fields: ``vers`` alone has a million postings) its per-document reader
    looks for the column file on disk every time and remembers only the columns it finds. Remembering
    the missing ones too, while a build commits, saves a tenth of the build's time; nothing else changes
    (a segment being written gains no column after its lengths are written)."""
    from whoosh.codec.whoosh3 import W3PerDocReader

    original = W3PerDocReader._cached_reader

    def cached_reader(self, fieldname, column):
        missing = self.__dict__.setdefault("_rulekb_missing", set())
        if fieldname in missing:
            return None
        reader = original(self, fieldname, column)
        if reader is None:
            missing.add(fieldname)
        return reader

    W3PerDocReader._cached_reader = cached_reader
    try:
        yield
    finally:
        W3PerDocReader._cached_reader = original
