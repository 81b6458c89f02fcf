"""Relevance of rulekb search against SQLite FTS5 (trigram) and plain substring match, per query kind.

    python bench/relevance.py [--store PATH] [--index DIR] [--show-misses]

Builds a KB of every English edition plus all Japanese texts (or reuses ``--store``/``--index``),
runs bench/queries.tsv and prints MRR@10, Success@1 and Success@5 overall and per kind for rulekb
(with each search layer added in turn) and for the two baselines, all over the same default scope,
and MRR@10 on each split of the set: ``dev`` (tuned on), ``held`` and ``new`` (held out; see
``load_queries``). ``--show-misses`` lists the dev queries not answered first, never held-out ones.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # first even when PYTHONPATH names it: bench/ingest.py must not shadow ingest

from kb.errors import RulekbError  # noqa: E402
from kb.store import Store  # noqa: E402

QUERIES = Path(__file__).with_name("queries.tsv")
_STEPS = ["reading", "thesaurus", "translate", "bigram", "priors", "dense", "learned"]
# Each search layer added in turn: words -> readings -> thesaurus -> translations -> bigrams -> priors -> dense fusion.
LAYER_STEPS = [("words", frozenset())] + [("+" + name, frozenset(_STEPS[: i + 1])) for i, name in enumerate(_STEPS)]


SPLITS = ("dev", "held", "new", "fresh")
SECTION = "#@ "  # "#@ new: ..." / "#@ fresh: ...": every query below belongs to that held-out split


def load_queries(path: Path = QUERIES) -> list[dict]:
    """The query set: kind, query, expected targets (any counts), split.

    Split, fixed before any tuning: in the original set the queries of each kind alternate in file
    order between ``dev`` (1st, 3rd, ...: the only ones looked at while tuning) and ``held`` (2nd,
    4th, ...); queries after a ``#@ NAME`` line belong to the held-out split NAME: ``new`` (a second
    set) and ``fresh`` (a third, written for issue 14 before its tuning).
    """
    out = []
    seen: dict[str, int] = defaultdict(int)
    section = ""
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith(SECTION):
            section = line[len(SECTION) :].split(":")[0].strip()
            if section not in SPLITS:
                raise SystemExit(f"{path}:{lineno}: unknown split {section!r} (known: {', '.join(SPLITS)})")
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) < 3:
            raise SystemExit(f"{path}:{lineno}: expected KIND<TAB>QUERY<TAB>EXPECTED")
        opts = dict(kv.split("=", 1) for kv in cols[3].split(",")) if len(cols) > 3 and cols[3].strip() else {}
        split = section or ("dev", "held")[seen[cols[0]] % 2]
        seen[cols[0]] += not section
        out.append({"kind": cols[0], "query": cols[1], "expected": cols[2].split(), "options": opts, "split": split})
    return out


def progress(done: int, total: int, what: str) -> None:
    print(f"\r  {what}: {done}/{total}   ", end="", file=sys.stderr, flush=True)


def searcher_of(home_dir: str | None, tmp: str):
    """(store, searcher) of a built data home, or of the bundled corpus built into ``tmp``."""
    from kb.build import build_kb
    from kb.home import Home
    from kb.search.searcher import Searcher

    home = Home(home_dir or Path(tmp) / "home")
    if not home.exists():
        build_kb(home, progress=progress)
    store = home.open_store()
    return store, Searcher(store, home.index_dir())


def make_store(path: Path) -> Store:
    """Ingest the English editions, the Japanese texts, the DM rules and the seeds into ``path``."""
    from ingest.common import Hints
    from kb.build import BUNDLED_CORPUS, ingest_into, read_manifest
    from kb.versions import lineage, order

    shared = ROOT.parent / "shared" / "corpora"
    files = [(str(p), Hints()) for d in ("cr-en", "cr-ja", "dm-rules") for p in sorted((shared / d).glob("*.*"))]
    for e in read_manifest(BUNDLED_CORPUS):
        files.append((str(e.path), Hints(format=e.format, game=e.game, lang=e.lang, version=e.version)))
    store = Store.create(str(path))
    for i, (p, hints) in enumerate(files, 1):
        ingest_into(store, p, hints)
        progress(i, len(files), "ingest")
    order.place_undated(store)
    lineage.build(store)  # as kb.build does: the index mines renamed wordings from it
    store.commit()
    print(file=sys.stderr)
    return store


def matches(hit: dict, target: str) -> bool:
    """Does a hit satisfy one expected target (game:rule, game/lang:rule, article:TITLE)?"""
    where, _, what = target.partition(":")
    if where == "article":
        return hit["kind"] == "article" and hit["title"] == what
    game, _, lang = where.partition("/")
    return hit["game"] == game and hit["rule"] == what and (not lang or hit["lang"] == lang)


def rank_of(hits: list[dict], expected: list[str]) -> int | None:
    for i, h in enumerate(hits[:10], 1):
        if any(matches(h, t) for t in expected):
            return i
    return None


class Baselines:
    """FTS5 trigram and substring search over the same default-scope documents rulekb searches."""

    def __init__(self, store: Store):
        self.store = store
        self.docs = self._default_docs(store)
        self.scopes: dict[str | None, tuple] = {None: self._prepare(self.docs)}

    @staticmethod
    def _default_docs(store: Store) -> list[dict]:
        from kb.search.index import _glossary, default_scope

        docs = []
        for (game, lang, rule), (_vid, h) in default_scope(store).items():
            title, text = store.conn.execute("SELECT title, text FROM contents WHERE hash=?", (h,)).fetchone()
            docs.append(
                {"kind": "rule", "game": game, "lang": lang, "rule": rule, "title": title, "body": f"{title}\n{text}"}
            )
        gl = {v.id: (v.game, v.lang) for v in store.versions()}
        for t in _glossary(store, gl):
            if t["dver"]:
                docs.append(
                    {
                        "kind": "term",
                        "game": t["game"],
                        "lang": t["lang"],
                        "rule": t["rule"] or "",
                        "title": t["term"],
                        "body": f"{t['term']}\n{t['english'] or ''}\n{t['definition'] or ''}",
                    }
                )
        for a in store.articles():
            docs.append(
                {
                    "kind": "article",
                    "game": a["game"],
                    "lang": a["lang"],
                    "rule": (a["cites"] or [""])[0],
                    "title": a["title"],
                    "body": f"{a['title']}\n{a['text']}",
                }
            )
        return docs

    @staticmethod
    def _prepare(docs: list[dict]) -> tuple:
        db = sqlite3.connect(":memory:")
        db.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='trigram')")
        db.executemany("INSERT INTO t(rowid, body) VALUES(?, ?)", [(i, d["body"]) for i, d in enumerate(docs)])
        return docs, [d["body"].lower() for d in docs], db

    def _scope(self, version: str | None) -> tuple:
        if version not in self.scopes:
            v = self.store.find_version(version)
            docs = [
                {
                    "kind": "rule",
                    "game": v.game,
                    "lang": v.lang,
                    "rule": n.rule,
                    "title": n.title,
                    "body": f"{n.title}\n{n.text}",
                }
                for n in self.store.nodes(v)
            ]
            self.scopes[version] = self._prepare(docs)
        return self.scopes[version]

    def fts5(self, q: str, version: str | None = None) -> list[dict]:
        docs, _, db = self._scope(version)
        terms = " ".join('"' + w.replace('"', '""') + '"' for w in q.split())
        try:
            rows = db.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank LIMIT 10", (terms,)).fetchall()
        except sqlite3.Error:
            return []
        return [docs[r[0]] for r in rows]

    def substring(self, q: str, version: str | None = None) -> list[dict]:
        docs, lower, _ = self._scope(version)
        needle = q.lower().strip()
        scored = [(-body.count(needle), i) for i, body in enumerate(lower) if needle in body]
        return [docs[i] for _, i in sorted(scored)[:10]]


def successors(store: Store, queries: list[dict]) -> int:
    """Let an old answer's modern successor count: a target of the 2008 numbering (``mtg:309``, the
    5.5.0.0 text) also accepts the clause the English lineage carries it to today (``mtg:509``).

    Queries that search the old text itself (``version=5.5.0.0``) keep their targets. Returns how many
    targets were added."""
    from kb.errors import NotFound
    from kb.versions import history

    try:
        old = store.find_version("5.5.0.0", "mtg", "ja")
        newest = store.latest("mtg", "en")
    except NotFound:
        return 0
    start = (old.meta.get("estimated") or {}).get("best")
    if not start or newest is None:
        return 0
    held = {r for (r,) in store.conn.execute("SELECT rule FROM nodes WHERE version_id=?", (old.id,))}
    wanted = sorted(
        {
            t.split(":", 1)[1]
            for q in queries
            if "version" not in q["options"]
            for t in q["expected"]
            if t.startswith("mtg") and t.split(":", 1)[1] in held
        }
    )
    try:
        now = history.carry(store, "mtg", "en", wanted, start, newest.label)
    except NotFound:
        return 0
    added = 0
    for q in queries:
        if "version" in q["options"]:
            continue
        extra = [
            f"{t.split(':', 1)[0]}:{now[r]}"
            for t in q["expected"]
            if t.startswith("mtg") and (r := t.split(":", 1)[1]) in now and now[r] and now[r] != r
        ]
        extra = [t for t in dict.fromkeys(extra) if t not in q["expected"]]
        q["expected"] = q["expected"] + extra
        added += len(extra)
    return added


def definers(store: Store, queries: list[dict]) -> int:
    """Let a term's defining clause count where its heading is expected: the issue asks for the clause
    that defines a term ("トランプルは…", "Trample is …") above the heading named by it, so a list
    naming only the heading would count that order as a miss. The defining clause is the one the search
    puts there (kb.search.results._Page.definer): a heading's first sub-clause
    (404 墓地 → 404.1, 504 ドロー・ステップ → 504.1), a keyword's "a" when it names it, or its "b" when the
    "a" only says what kind of ability it is (702.2a 接死は常在型能力である。 → 702.2b). Returns how many
    targets were added. (Before the tenth pass only a sub-clause that *defines* the name counted.)"""
    from kb.search.ranking import mentions, name_of, only_kind

    def below(heading: str, child: str, game: str) -> list[tuple[str, str]]:
        """(the heading's title, the child's text) in each version of ``game`` holding both."""
        return store.conn.execute(
            "SELECT h.title, c.text FROM nodes hn JOIN contents h ON h.hash=hn.hash"
            " JOIN nodes cn ON cn.version_id=hn.version_id AND cn.rule=? JOIN contents c ON c.hash=cn.hash"
            " JOIN versions v ON v.id=hn.version_id WHERE hn.rule=? AND v.game=? AND h.title!=''",
            (child, heading, game),
        ).fetchall()

    added = 0
    for q in queries:
        extra = []
        for t in q["expected"]:
            where, _, rule = t.partition(":")
            if where == "article" or not rule:
                continue
            game = where.split("/")[0]
            if "." not in rule:
                if below(rule, f"{rule}.1", game):
                    extra.append(f"{game}:{rule}.1")
                continue
            rows = below(rule, f"{rule}a", game)
            if any(mentions(text, name_of(title)) for title, text in rows):
                extra.append(f"{game}:{rule}a")
            if any(only_kind(text, name_of(title)) for title, text in rows):
                extra.append(f"{game}:{rule}b")
        extra = [t for t in dict.fromkeys(extra) if t not in q["expected"]]
        q["expected"] = q["expected"] + extra
        added += len(extra)
    return added


def evaluate(name: str, run, queries: list[dict], misses: bool = False) -> dict:
    """Ranks per (split, kind) and per split (key ``(split, None)``); misses listed only for dev."""
    per: dict[tuple, list[int | None]] = defaultdict(list)
    for q in queries:
        try:
            hits = run(q["query"], **q["options"])
        except RulekbError:
            hits = []
        r = rank_of(hits, q["expected"])
        per[(q["split"], q["kind"])].append(r)
        per[(q["split"], None)].append(r)
        if misses and r != 1 and q["split"] == "dev":
            got = ", ".join(f"{h['game']}:{h['rule'] or h['title']}" for h in hits[:3])
            print(f"    [{name}] {q['kind']:10} {q['query']}: rank {r} (want {' '.join(q['expected'])}; got {got})")
    return per


def metrics(ranks: list[int | None]) -> tuple[float, float, float]:
    n = len(ranks) or 1
    mrr = sum(1 / r for r in ranks if r) / n
    return mrr, sum(1 for r in ranks if r == 1) / n, sum(1 for r in ranks if r and r <= 5) / n


def report(results: dict[str, dict[tuple, list]], queries: list[dict]) -> None:
    """MRR@10 per kind of each split for every system, then MRR@10 / S@1 / S@5 per split."""
    names = list(results)
    for split in SPLITS:
        kinds = list(dict.fromkeys(q["kind"] for q in queries if q["split"] == split))
        if not kinds:
            continue
        print(f"{'MRR@10 ' + split:16} " + " ".join(f"{n[:13]:>13}" for n in names))
        for kind in kinds + [None]:
            n = len(results[names[0]][(split, kind)])
            label = f"{kind or 'ALL'} ({n})"
            print(f"{label:16} " + " ".join(f"{metrics(results[x][(split, kind)])[0]:13.3f}" for x in names))
        print()
    print(f"{'system':22} " + " ".join(f"{sp + ' MRR/S@1/S@5':>22}" for sp in SPLITS))
    for x in names:
        cells = []
        for sp in SPLITS:
            m = metrics(results[x][(sp, None)])
            cells.append(f"{m[0]:.3f} {m[1]:.3f} {m[2]:.3f}")
        print(f"{x[:22]:22} " + " ".join(f"{c:>22}" for c in cells))


def open_kb(args, tmp: str) -> tuple[Store, Path]:
    """The store and index to measure: ``--store/--index``, ``--home``, else the bundled corpus built into ``tmp``."""
    from kb.build import build_kb
    from kb.home import Home
    from kb.search.index import build_index

    if args.store:
        spath = Path(args.store)
        store = Store.open(str(spath)) if spath.exists() else make_store(spath)
        ipath = Path(args.index) if args.index else Path(tmp) / "index"
        if not ipath.exists():
            t0 = time.perf_counter()
            build_index(store, ipath, progress)
            print(f"\n  index built in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        return store, ipath
    home = Home(args.home or Path(tmp) / "home")
    if not home.exists():
        t0 = time.perf_counter()
        build_kb(home, progress=progress)
        print(f"\n  bundled corpus built in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return home.open_store(), home.index_dir()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", help="a built data home (default: build the bundled corpus into a temporary one)")
    ap.add_argument("--store", help="reuse (or create) an ingested store at this path instead")
    ap.add_argument("--index", help="with --store: reuse (or build) the index in this directory")
    ap.add_argument("--show-misses", action="store_true", help="list dev queries not answered first")
    ap.add_argument("--only", help="run only the rulekb step with this name (and no baselines)")
    ap.add_argument("--fusion", default="", help="fusion settings to try, e.g. guard=2.5,weight=1.5,k=60,pool=50")
    args = ap.parse_args()
    from kb.search.searcher import Searcher

    queries = load_queries()
    with tempfile.TemporaryDirectory() as tmp:
        store, ipath = open_kb(args, tmp)
        added = successors(store, queries)
        defined = definers(store, queries)
        results: dict[str, dict] = {}
        for name, layers in LAYER_STEPS:
            if args.only and args.only != name:
                continue
            s = Searcher(store, ipath, layers=layers)
            s.fusion = {
                k: float(v) if k in ("guard", "weight", "long_guard") else int(v)
                for k, v in (kv.split("=") for kv in args.fusion.split(",") if kv)
            }
            results[f"rulekb {name}"] = evaluate(
                name,
                lambda q, s=s, **o: s.search(q, limit=10, **o),
                queries,
                misses=args.show_misses and name == LAYER_STEPS[-1][0],
            )
        base = Baselines(store)
        if not args.only:
            results["FTS5 trigram"] = evaluate("fts5", base.fts5, queries)
            results["substring"] = evaluate("substring", base.substring, queries)
        n = {sp: sum(q["split"] == sp for q in queries) for sp in SPLITS}
        print(
            f"{len(queries)} queries ({', '.join(f'{sp} {n[sp]}' for sp in SPLITS)}); {added} targets added by"
            f" lineage (an old answer's successor counts), {defined} defining clauses of expected headings;"
            f" {len(base.docs)} documents in the default scope\n"
        )
        report(results, queries)
        store.close()


if __name__ == "__main__":
    main()
