"""An index build's text fields, indexed ahead in worker processes while one writer adds the documents.

Whoosh has one writer per index, and the documents go in a fixed order (the vectors' rows follow the
document numbers). Most of a document's cost in that writer is ``field.index(value)``: the analyzer
(Janome, the katakana splitting, Whoosh's English filters) and the postings' encoding. Worker processes
run exactly that call, document by document, ahead of the writer; the writer's fields then answer from
what was made for the document being added (``Ahead.fields``). The postings come out the same as one
process writes them: the same code makes them (tests/test_index_search.py compares whole indexes).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
from collections import deque
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

from whoosh.fields import TEXT, Schema

from kb.children import die_with_parent

# What forked workers read: set before the pool starts, inherited by fork (never pickled to them).
_job: tuple[list[dict], Schema, tuple[str, ...]] | None = None


def text_fields(schema: Schema) -> tuple[str, ...]:
    """The fields worth indexing ahead: analysed text (IDs and keywords cost next to nothing)."""
    return tuple(name for name, field in schema.items() if isinstance(field, TEXT))


def _index_doc(doc: dict, schema: Schema, names: tuple[str, ...]) -> dict[str, list]:
    made = {}
    for name in names:
        value = doc.get(name)
        if value:
            field = schema[name]
            made[name] = list(type(field).index(field, value))
    return made


def _index_range(span: tuple[int, int]) -> list[dict[str, list]]:
    docs, schema, names = _job
    return [_index_doc(doc, schema, names) for doc in docs[span[0] : span[1]]]


def indexed_ahead(
    docs: list[dict], schema: Schema, workers: int, chunk: int, carried: Carried | None = None
) -> Iterator[tuple[dict, dict]]:
    """Yield ``(doc, made)`` in order: ``made`` maps each text field of ``doc`` to the items
    ``field.index(value)`` returns, computed by ``workers`` forked processes a few chunks ahead of the
    caller, or taken from ``carried`` (a previous build's, by content). With fewer than 2 workers, a small
    input or no fork, ``made`` of a document not carried is empty (the writer indexes)."""
    global _job
    names = text_fields(schema)
    known = [carried.get(doc, names) if carried else None for doc in docs]
    todo = [i for i, made in enumerate(known) if made is None]
    if workers < 2 or len(todo) < 2 * chunk or not hasattr(os, "fork"):
        for doc, made in zip(docs, known, strict=True):
            if made is None and carried and carried.worth(doc):
                made = _index_doc(doc, schema, names)  # what the writer would do, kept for the next build
                carried.keep(doc, names, made)
            yield doc, made or {}
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    spans = deque((i, min(i + chunk, len(todo))) for i in range(0, len(todo), chunk))
    _job = ([docs[i] for i in todo], schema, names)
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(
            workers, mp_context=context, initializer=die_with_parent, initargs=(os.getpid(),)
        ) as pool:
            # A bounded window: the writer may be slower than the workers, and what is made waits in memory.
            window: deque = deque()
            ready: deque = deque()  # made for the next documents not carried, in order
            for doc, made in zip(docs, known, strict=True):
                if made is None:
                    while not ready:
                        while spans and len(window) < 2 * workers + 1:
                            span = spans.popleft()
                            window.append(pool.submit(_index_range, span))
                        ready.extend(window.popleft().result())
                    made = ready.popleft()
                    if carried:
                        carried.keep(doc, names, made)
                yield doc, made
    finally:
        _job = None


class Carried:
    """Text fields' analyses carried from one build to the next, by content (``HOME/cache/analysed.pickle``).

    A rebuild (today's editions, then the whole KB; an edition added) analyses again only the texts it has
    not seen: Janome and the postings' encoding are most of an index's work. An analysis is reused only
    under the same ``fingerprint`` (the vocabulary, the analysis and schema code, Janome's and Whoosh's
    versions); the file keeps what the last build used, of the documents worth it (``worth``)."""

    def __init__(self, path: Path, fingerprint: str, worth: Callable[[dict], bool]):
        self.path, self.fingerprint, self.worth = Path(path), fingerprint, worth
        self.old: dict[bytes, dict] = {}
        self.new: dict[bytes, dict] = {}
        # A missing, damaged or foreign file carries nothing: everything is analysed, as in a first build.
        with contextlib.suppress(OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError):
            with open(self.path, "rb") as fh:
                saved = pickle.load(fh)
            if saved.get("fingerprint") == fingerprint and isinstance(saved.get("made"), dict):
                self.old = saved["made"]

    @staticmethod
    def _key(doc: dict, names: tuple[str, ...]) -> bytes:
        h = hashlib.blake2b(digest_size=20)
        for name in names:
            h.update(name.encode() + b"\0" + (doc.get(name) or "").encode() + b"\0")
        return h.digest()

    def get(self, doc: dict, names: tuple[str, ...]) -> dict | None:
        if not self.worth(doc):
            return None
        key = self._key(doc, names)
        made = self.old.get(key)
        if made is not None:
            self.new[key] = made
        return made

    def keep(self, doc: dict, names: tuple[str, ...], made: dict) -> None:
        if self.worth(doc):
            self.new[self._key(doc, names)] = made

    def save(self) -> None:
        """Write what this build used, atomically (a failure to write only costs the next build time)."""
        tmp = self.path.with_name(f".{self.path.name}-{os.getpid()}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as fh:
                pickle.dump({"fingerprint": self.fingerprint, "made": self.new}, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()


class Ahead:
    """The text fields of writers' schemas answering ``index(value)`` from what was made ahead for the
    document being added (``set``); any other value is indexed as usual. Installed only while adding
    (``fields``, a context manager): a schema is pickled into the index at commit, so the patched
    ``index`` attributes are taken off again before that."""

    def __init__(self) -> None:
        self.now: dict[str, list] = {}
        self._doc: dict = {}

    def set(self, doc: dict, made: dict[str, list]) -> None:
        self._doc, self.now = doc, made

    def _index(self, name: str, field, value, **kwargs):
        items = self.now.get(name)
        if items is not None and not kwargs and value is self._doc.get(name):
            return items
        return type(field).index(field, value, **kwargs)

    @contextlib.contextmanager
    def fields(self, *schemas: Schema):
        patched = []
        try:
            for schema in schemas:
                for name in text_fields(schema):
                    field = schema[name]
                    field.index = partial(self._index, name, field)
                    patched.append(field)
            yield self
        finally:
            for field in patched:
                field.__dict__.pop("index", None)
