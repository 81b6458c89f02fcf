"""The build pipeline: corpus -> ingest -> store -> lineage -> index, then an atomic swap.

Every write goes into a new generation directory (``kb.home``); the live KB is swapped only after
everything succeeded, so a crash or bad input anywhere leaves the previous KB serving unchanged.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import json
import os
import shutil
import sys
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import ingest
from ingest import damage
from ingest.common import Hints
from kb import ruleid
from kb.errors import InputError, StoreError, printable
from kb.home import HELD_BACK_META, INDEX_DIR, STORE_FILE, Home
from kb.model import PROVENANCES, ParsedVersion, Progress
from kb.parsecache import CACHE_DIR, Job, Parsed, default_workers, parse_corpus
from kb.search import index, semantic
from kb.store import Store
from kb.store.records import sort_date_for
from kb.textio import read_input
from kb.versions import align, editions, editorial, lineage, order, staleref

BUNDLED_CORPUS = Path(__file__).resolve().parent.parent / "corpus"
ANALYSED = "analysed.pickle"  # in the home's cache: the last index build's text analyses, by content


@dataclass
class ManifestEntry:
    """One [[document]] of corpus/manifest.toml."""

    path: Path
    format: str = ""
    game: str = ""
    lang: str = ""
    version: str = ""
    effective: str = ""
    kind: str = ""
    provenance: str = ""
    sha256: str = ""
    source: str = ""
    origin: str = ""
    owner: str = ""
    licence: str = ""
    notes: str = ""


@dataclass
class Ingested:
    """What one file added: for the CLI's report."""

    path: str
    format: str
    versions: list[str] = field(default_factory=list)
    articles: list[str] = field(default_factory=list)
    clauses: int = 0
    warnings: list[str] = field(default_factory=list)
    skipped: bool = False

    def describe(self) -> str:
        if self.skipped:
            return f"{self.path}: already ingested (same content), skipped"
        what = ", ".join(self.versions + [f"article {a}" for a in self.articles]) or "nothing"
        return f"{self.path}: format {self.format} -> {what}; {self.clauses} clauses"


def read_manifest(corpus_dir: Path) -> list[ManifestEntry]:
    """Read ``corpus_dir/manifest.toml``; bad entries are errors naming the manifest."""
    manifest = corpus_dir / "manifest.toml"
    if not corpus_dir.is_dir():
        why = "not a directory" if corpus_dir.exists() else "no such directory"
        raise InputError(f"{why}: --corpus names the directory that holds manifest.toml", path=str(corpus_dir))
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("no manifest.toml in the corpus directory", path=str(corpus_dir)) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"bad TOML: {exc}", path=str(manifest)) from None
    entries = []
    known = set(ManifestEntry.__dataclass_fields__)
    for i, doc in enumerate(data.get("document", []), 1):
        unknown = set(doc) - known
        if unknown or "path" not in doc:
            problem = f"unknown keys {sorted(unknown)}" if unknown else "missing 'path'"
            raise InputError(f"document #{i}: {problem}", path=str(manifest))
        if doc.get("provenance") and doc["provenance"] not in PROVENANCES:
            raise InputError(
                f"document #{i}: provenance {doc['provenance']!r} (known: {', '.join(PROVENANCES)})", path=str(manifest)
            )
        entries.append(ManifestEntry(**{**doc, "path": corpus_dir / doc["path"]}))
    return entries


def check_corpus(entries: list[ManifestEntry]) -> None:
    """Refuse a corpus whose files are missing or differ from the sha256 its manifest records."""
    for e in entries:
        display = _display(e.path)
        if not e.path.is_file():
            raise InputError("listed in manifest.toml but missing", path=display)
        if e.sha256 and _sha256(str(e.path)) != e.sha256.lower():
            raise InputError(
                "sha256 differs from the one manifest.toml records (file changed or damaged)", path=display
            )


def current_editions(entries: list[ManifestEntry]) -> list[ManifestEntry]:
    """The entries a build of today's editions reads: of each game, language and format, the dated
    editions (``effective``) older than its newest are left out; every other text and article stays.

    Such a KB holds what search and today's pages show (every Japanese text, the newest English edition)
    and is built in about half the time: ``rulekb serve --build`` serves it while the whole KB builds."""
    newest: dict[tuple[str, str, str], str] = {}
    for e in entries:
        key = (e.game, e.lang, e.format)
        newest[key] = max(newest.get(key, ""), e.effective)
    return [e for e in entries if not e.effective or e.effective == newest[(e.game, e.lang, e.format)]]


def fingerprint(corpus_dir: Path, entries: list[ManifestEntry]) -> str:
    """What a build depends on: the manifest, the bytes of every file it lists, and the code that reads them."""
    h = hashlib.sha256((corpus_dir / "manifest.toml").read_bytes())
    for e in entries:
        h.update((e.sha256 or _sha256(str(e.path))).encode())
    h.update(code_fingerprint().encode())
    return h.hexdigest()


@functools.cache
def code_fingerprint() -> str:
    """A hash of the parsers, store and index code and their data files (a new rulekb rebuilds)."""
    h = hashlib.sha256()
    for package in ("kb", "ingest"):
        root = Path(importlib.import_module(package).__file__).parent
        for f in sorted(root.rglob("*")):
            if f.suffix in (".py", ".toml", ".tsv", ".txt", ".json") and "__pycache__" not in f.parts:
                h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def ingest_into(store: Store, path: str, hints=None, *, display: str | None = None, replace: bool = False) -> Ingested:
    """Parse one file and add it to ``store``; InputError (file:line) if it has errors.

    A whole stored text is replaced by a truncated or shorter one only when ``replace``.
    """
    display = printable(display or path)  # stored and shown as text, whatever bytes the name holds
    hints = hints or Hints()
    hints.path = display
    data = read_input(path, display)
    sha, options = hashlib.sha256(data).hexdigest(), _options(hints)
    if store.has_document(sha, options):
        return Ingested(path=display, format=hints.format or "?", skipped=True)
    result = ingest.parse_data(data, hints)
    del data
    return add_parsed(store, Parsed(display, sha, options, hints.encoding, result), replace=replace)


def _options(hints: Hints) -> str:
    # The same bytes read with other overrides (another --version, say) are another document.
    return json.dumps({k: v for k in ("format", "game", "lang", "version") if (v := getattr(hints, k))}, sort_keys=True)


def add_parsed(store: Store, parsed: Parsed, *, replace: bool = False) -> Ingested:
    """Add one parsed file to ``store`` (InputError at its first error's file and line); what it added."""
    result, display = parsed.result, parsed.display
    if result.errors:
        first = result.errors[0]
        more = f" (and {len(result.errors) - 1} more errors)" if len(result.errors) > 1 else ""
        raise InputError(first.message + more, path=first.path or display, line=first.line)
    short = _short_of_the_kb(store, result, display)
    notes = store.add(
        result, path=display, sha256=parsed.sha256, encoding=parsed.encoding, options=parsed.options, replace=replace
    )
    report = Ingested(
        path=display,
        format=result.format,
        warnings=[str(w).replace(": warning:", ":", 1) for w in result.warnings] + short + notes,
    )
    for v in result.versions:
        eff = f", effective {v.effective.isoformat()}" if v.effective else ""
        part = f", partial ({where_it_ends(v)})" if v.truncated_at else ", partial" if v.partial else ""
        report.versions.append(f"{v.game}/{v.lang}/{v.label}{eff}{part}")
        report.clauses += sum(1 for n in v.nodes if "." in n.rule)
    report.articles = [a.title for a in result.articles]
    return report


def _short_of_the_kb(store: Store, result, path: str) -> list[str]:
    """Mark as ending early (partial, and never over a stored whole text without ``--replace``) a text
    whose Credits hold less than the stored whole text's of its version (cut inside them), or that lacks
    more than a few clauses both stored editions beside it hold (``ingest.damage.missing_beside``). Returns
    a warning for each."""
    notes = []
    for v in result.versions:
        if v.partial or v.truncated_at:
            continue
        whole = [h for h in store.versions(v.game, v.lang) if not h.partial]
        held = next((h for h in whole if h.label == v.label), None)
        chars, stored = v.meta.get("credits_chars"), held.meta.get("credits_chars") if held else None
        if chars is not None and stored is not None and chars < stored:
            why, line = f"cut inside its Credits: {chars} characters of the stored text's {stored}", None
        else:
            when = sort_date_for(v.label, v.effective)
            before = [h for h in whole if h.sort_date and h.sort_date < when]
            after = [h for h in whole if h.sort_date and h.sort_date > when]
            if not (when and before and after):
                continue
            ids = [{r for r in store.rules(h) if "." in r} for h in (before[-1], after[0])]
            gap = damage.missing_beside(v.nodes, *ids)
            if gap is None:
                continue
            why = f"{gap[2]} clauses the editions {before[-1].label} and {after[0].label} both hold are missing"
            why, line = f"{why} ({gap[0]} first)", gap[1]
        v.truncated_at, v.truncated_why, v.partial = line or v.meta.get("last_line") or 1, why, True
        notes.append(f"{path}:{v.truncated_at}: {why}; kept as a partial text")
    return notes


def where_it_ends(v: ParsedVersion) -> str:
    """Where a cut-off text stops, by rule: "ends early in rule 410, inside 410.8 (line 1)" (the line alone
    says nothing of a text written on one line)."""
    # The last clause at or before the line where it stops: a text that lacks clauses but goes on past them
    # (its contents list a rule it lacks, say) stops where the gap begins, not at its last clause.
    last = next((n for n in reversed(v.nodes) if n.line <= v.truncated_at), v.nodes[-1] if v.nodes else None)
    parsed = ruleid.parse(last.rule) if last is not None else None
    if parsed is None:
        return f"ends early at line {v.truncated_at}"
    rule = str(parsed[1]) if parsed[1] is not None else last.rule
    inside = f", {'inside' if last.truncated else 'after'} {last.rule}" if last.rule != rule else ""
    return f"ends early in rule {rule}{inside} (line {v.truncated_at})"


def derive(store: Store, progress: Progress | None = None) -> dict:
    """What the store derives from its texts: dates of undated versions, the English edition each
    translation renders, the lineage of every clause across editions, each translation's alignment
    with its edition, and the references a translation prints with an outdated number."""
    t0 = time.perf_counter()
    order.place_undated(store)
    stats: dict = {"pairs": editions.pair_translations(store)}
    stats["words"] = editorial.keep_vocabulary(store)  # read by every diff and history, here and later
    stats["lineage"] = lineage.build(store, progress, workers=default_workers())
    stats["alignments"] = align.precompute(store)  # carries old numbering through the lineage
    stats["stale_references"] = staleref.precompute(store)  # read against those alignments
    stats["lineage_seconds"] = round(time.perf_counter() - t0, 2)
    return stats


def finish_store(
    store: Store,
    index_dir: Path,
    progress: Progress | None = None,
    previous: Path | None = None,
    carry: Path | None = None,
) -> dict:
    """Derived data after ingestion (``derive``), then the search index (reusing the sentence vectors of
    the ``previous`` generation's index, and the text analyses kept in ``carry``: only new texts are
    embedded and analysed)."""
    stats = derive(store, progress)
    store.commit()
    t1 = time.perf_counter()
    if index_dir.exists():
        shutil.rmtree(index_dir)
    sources = [previous / semantic.VECTORS_FILE] if previous is not None else []
    stats["index"] = index.build_index(store, index_dir, progress, vector_sources=sources, carry=carry)
    stats["index_seconds"] = round(time.perf_counter() - t1, 2)
    return stats


def build_kb(
    home: Home | str | None = None,
    corpus_dir: str | Path | None = None,
    progress: Progress | None = None,
    log: Callable[[str], None] | None = None,
    *,
    force: bool = False,
    current_only: bool = False,
) -> dict:
    """Build a fresh KB from a corpus manifest into a new generation and swap it in.

    When the live KB was built from the same manifest, files and code, it is kept as it is
    (``stats["reused"]``) unless ``force``. ``current_only`` builds today's editions alone
    (``current_editions``); a whole KB of the same corpus counts as up to date for it.
    """
    home = home if isinstance(home, Home) else Home(home)
    corpus = Path(corpus_dir) if corpus_dir else BUNDLED_CORPUS
    entries = read_manifest(corpus)
    check_corpus(entries)
    fp = fingerprint(corpus, entries)
    accepted, whole, held_back = {fp}, (fp, len(entries)), 0
    if current_only and len(kept := current_editions(entries)) < len(entries):
        held_back, entries = len(entries) - len(kept), kept
        fp = current_fingerprint(fp)
        accepted.add(fp)
    log = log or (lambda msg: None)
    t0 = time.perf_counter()
    if not force and (live := _live_fingerprint(home)) and live[0] in accepted:
        return {
            "reused": True,
            "documents": whole[1] if live[0] == whole[0] else len(entries),
            "generation": home.current().name,
            "built_at": live[1],
            "seconds": round(time.perf_counter() - t0, 2),
        }
    with home.new_generation() as gen:
        store = Store.create(str(gen / STORE_FILE))
        try:
            for i, parsed in enumerate(parse_corpus(_jobs(entries), ingest.parse_data, home.path / CACHE_DIR), 1):
                report = add_parsed(store, parsed)
                log(report.describe())
                for w in report.warnings:
                    log(f"  warning: {w}")
                if progress:
                    progress(i, len(entries), "ingest")
            store.set_meta("corpus", str(corpus))
            store.set_meta("fingerprint", fp)
            if held_back:
                store.set_meta(HELD_BACK_META, str(held_back))
            store.commit()
            stats = finish_store(store, gen / INDEX_DIR, progress, _live_index(home), _carried(home))
            store.set_meta("built_at", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
            store.commit()
        finally:
            store.close()
    stats["documents"] = len(entries)
    stats["held_back"] = held_back
    stats["seconds"] = round(time.perf_counter() - t0, 2)
    stats["generation"] = gen.name
    return stats


def current_fingerprint(whole: str) -> str:
    """The fingerprint of a build of today's editions, from that of the whole corpus."""
    return hashlib.sha256(f"current editions of {whole}".encode()).hexdigest()


def live_state(home: Home | str | None, corpus_dir: str | Path | None = None) -> str:
    """How the live KB stands against a corpus: "none" (nothing built), "unreadable" (a store this code
    cannot open), "whole" (built from that corpus and code), "current" (today's editions of it:
    ``build_kb(current_only=True)``) or "stale" (another corpus or code)."""
    home = home if isinstance(home, Home) else Home(home)
    corpus = Path(corpus_dir) if corpus_dir else BUNDLED_CORPUS
    entries = read_manifest(corpus)
    check_corpus(entries)
    if not home.exists():
        return "none"
    try:
        home.open_store().close()
    except StoreError:
        return "unreadable"
    live = _live_fingerprint(home)
    if live is None:
        return "stale"
    fp = fingerprint(corpus, entries)
    return "whole" if live[0] == fp else "current" if live[0] == current_fingerprint(fp) else "stale"


def _jobs(entries: list[ManifestEntry]) -> list[Job]:
    """What to parse for each manifest entry, with the hints the manifest gives."""
    jobs = []
    for e in entries:
        hints = Hints(format=e.format, game=e.game, lang=e.lang, version=e.version, provenance=e.provenance)
        jobs.append(Job(str(e.path), hints, _display(e.path), _options(hints)))
    return jobs


def _live_index(home: Home) -> Path | None:
    """The live generation's index directory (its vectors are reused), or None."""
    return home.current() / INDEX_DIR if home.exists() else None


def _carried(home: Home) -> Path:
    """Where a home keeps the text analyses of its last index build (kb.search.ahead.Carried)."""
    return home.path / CACHE_DIR / ANALYSED


def _live_fingerprint(home: Home) -> tuple[str, str] | None:
    """(fingerprint, built_at) of the live KB, or None when there is none or it cannot be read."""
    if not home.exists():
        return None
    try:
        store = home.open_store()
    except StoreError:
        return None
    try:
        fp = store.get_meta("fingerprint")
        return (fp, store.get_meta("built_at") or "") if fp else None
    finally:
        store.close()


def ingest_files(
    home: Home | str | None,
    paths: list[str],
    hints_for: Callable[[str], object],
    progress: Progress | None = None,
    log: Callable[[str], None] | None = None,
    *,
    replace: bool = False,
) -> list[Ingested]:
    """Add files to the live KB: copy it to a new generation, add, re-derive, swap; all or nothing.

    ``replace`` lets a truncated or shorter text replace a whole stored one (refused otherwise).
    """
    home = home if isinstance(home, Home) else Home(home)
    log = log or (lambda msg: None)
    reports = []
    with home.new_generation(copy_current=True, copy_index=False) as gen:
        store_path = gen / STORE_FILE
        store = Store.open(str(store_path), write=True) if store_path.exists() else Store.create(str(store_path))
        try:
            for i, path in enumerate(paths, 1):
                report = ingest_into(store, path, hints_for(path), replace=replace)
                reports.append(report)
                log(report.describe())
                for w in report.warnings:
                    log(f"  warning: {w}")
                if progress:
                    progress(i, len(paths), "ingest")
            if any(not r.skipped for r in reports):
                store.commit()
                finish_store(store, gen / INDEX_DIR, progress, _live_index(home), _carried(home))
            elif (home.current() / INDEX_DIR).is_dir():
                shutil.copytree(home.current() / INDEX_DIR, gen / INDEX_DIR)  # nothing new: same index
            store.commit()
        finally:
            store.close()
    return reports


@contextlib.contextmanager
def writable_copy(home: Home | str | None) -> Iterator[Store]:
    """A writable copy of the live store, swapped in when the block succeeds."""
    home = home if isinstance(home, Home) else Home(home)
    home.current()
    with home.new_generation(copy_current=True) as gen:
        store = Store.open(str(gen / STORE_FILE), write=True)
        try:
            yield store
            store.commit()
        finally:
            store.close()


def _display(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


class ConsoleProgress:
    """Progress of long work on stderr: a live bar with the time left on a terminal, every tenth step otherwise."""

    WIDTH = 28

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        self.pending = False
        self._stage: tuple[int, float] = (-1, 0.0)  # (total, start time) of the work being counted

    def __call__(self, done: int, total: int, what: str) -> None:
        now = time.monotonic()
        if self._stage[0] != total or done == 0:
            self._stage = (total, now)
        if self.live:
            filled = self.WIDTH * done // max(total, 1)
            elapsed = now - self._stage[1]
            left = f" ~{elapsed / done * (total - done):.0f} s left" if 0 < done < total and elapsed > 2 else ""
            bar = "█" * filled + "░" * (self.WIDTH - filled)
            self.stream.write(f"\r\033[K{bar} {done}/{total}{left}  {what[:60]}")
            self.pending = done < total
            if not self.pending:
                self.stream.write("\n")
        elif done == total or done % max(1, total // 10) == 0:
            self.stream.write(f"{what}: {done}/{total}\n")
        self.stream.flush()

    def log(self, message: str) -> None:
        """Print a message without tearing the live progress line."""
        if self.pending:
            self.stream.write("\r\033[K")
        self.stream.write(message + "\n")
        self.stream.flush()
