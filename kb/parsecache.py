"""A build's parsing: the files of a corpus parsed on every core, each result kept by content hash.

Parsing is pure (bytes and hints in, model objects out: ``ingest``), so a file's result is a
function of its bytes, the hints the manifest gives, the name it is shown under and the parser
code. Each result is kept under ``HOME/cache/parsed/<hash>`` (pickled, compressed, written beside
its name and renamed into place); a rebuild after a change elsewhere (search, web, the build) reads
it back instead of parsing again. Files are parsed in worker processes, a few ahead of the store
that adds them, and handed back in manifest order. The cache keeps only what the last build used.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import pickle
import tempfile
import zlib
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kb.children import die_with_parent
from kb.model import default_workers  # noqa: F401 (kb.build and bench/build.py take it from here)
from kb.textio import read_input

CACHE_DIR = "cache"  # in the data home, beside the generations
PARSED = "parsed"
# What parsing runs: the parsers, and the kb modules they may use (tests/test_layering.py holds them to it).
PARSER_CODE = ("ingest", "kb/model.py", "kb/ruleid.py", "kb/textio.py", "kb/errors.py")
_MAGIC = b"rulekb-parsed 1\n"


@dataclass
class Parsed:
    """One file, read and parsed: what the store needs to add it."""

    display: str  # the name errors and reports give it
    sha256: str  # of its bytes
    options: str  # the overrides it was read with (JSON)
    encoding: str
    result: Any  # kb.model.ParseResult


@dataclass
class Job:
    """One file to parse: where it is, the hints to parse it with (ingest.common.Hints), its name."""

    path: str
    hints: Any
    display: str
    options: str


@functools.cache
def parser_version() -> str:
    """A hash of the parser code (a new parser parses again)."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for name in PARSER_CODE:
        target = root / name
        for f in sorted(target.rglob("*.py")) if target.is_dir() else [target]:
            h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def parse_corpus(
    jobs: list[Job], parse: Callable[[bytes, Any], Any], cache: Path | None, workers: int | None = None
) -> Iterator[Parsed]:
    """Each job parsed (``parse(bytes, hints)``), or read back from ``cache``, in the order given.

    What the cache holds is read here; the rest is parsed in ``workers`` processes, at most two jobs
    each ahead of the caller (bounded memory)."""
    workers = default_workers() if workers is None else workers
    folder = cache / PARSED if cache is not None else None
    keys = [_key(job)[0] for job in jobs]
    todo = deque(i for i, key in enumerate(keys) if folder is None or not (folder / key).is_file())
    pool = None
    if workers > 1 and len(todo) >= 4:
        import multiprocessing

        context = multiprocessing.get_context("fork") if hasattr(os, "fork") else None
        pool = ProcessPoolExecutor(workers, mp_context=context, initializer=die_with_parent, initargs=(os.getpid(),))
    pending: dict[int, Future] = {}
    try:
        for i, job in enumerate(jobs):
            while pool is not None and todo and len(pending) < 2 * workers:
                n = todo.popleft()
                pending[n] = pool.submit(_parse, jobs[n], parse, folder)
            if i in pending:
                yield pending.pop(i).result()  # a parse error is raised here, at its file and line
                continue
            kept = _load(folder / keys[i]) if folder is not None else None
            yield kept if kept is not None else _parse(job, parse, folder)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    if folder is not None:
        _forget_all_but(folder, set(keys))


def _key(job: Job) -> tuple[str, str, bytes]:
    """(cache key, sha256, bytes) of a job: its bytes, overrides, hints, name and the parser code."""
    job.hints.path = job.display
    data = read_input(job.path, job.display)
    sha = hashlib.sha256(data).hexdigest()
    hints = {k: v for k, v in sorted(vars(job.hints).items()) if k != "encoding"}
    return hashlib.sha256(json.dumps([sha, job.options, hints, parser_version()]).encode()).hexdigest(), sha, data


def _parse(job: Job, parse, folder: Path | None) -> Parsed:
    key, sha, data = _key(job)
    parsed = Parsed(job.display, sha, job.options, "", parse(data, job.hints))
    parsed.encoding = job.hints.encoding
    if folder is not None:
        _save(folder / key, parsed)
    return parsed


def _load(path: Path) -> Parsed | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(_MAGIC):
        return None
    try:
        return pickle.loads(zlib.decompress(data[len(_MAGIC) :]))
    except Exception:  # torn or from another Python: parse again
        return None


def _save(path: Path, parsed: Parsed) -> None:
    """Write atomically; a cache that cannot be written is no reason to fail a build."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + zlib.compress(pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL), 1))
        os.replace(tmp, path)
    except OSError:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _forget_all_but(folder: Path, used: set[str]) -> None:
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if entry.name not in used:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
