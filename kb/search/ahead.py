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
import os
from collections import deque
from collections.abc import Iterator
from functools import partial

from whoosh.fields import TEXT, Schema

# What forked workers read: set before the pool starts, inherited by fork (never pickled to them).
_job: tuple[list[dict], Schema, tuple[str, ...]] | None = None


def text_fields(schema: Schema) -> tuple[str, ...]:
    """The fields worth indexing ahead: analysed text (IDs and keywords cost next to nothing)."""
    return tuple(name for name, field in schema.items() if isinstance(field, TEXT))


def _index_range(span: tuple[int, int]) -> list[dict[str, list]]:
    docs, schema, names = _job
    out = []
    for doc in docs[span[0] : span[1]]:
        made = {}
        for name in names:
            value = doc.get(name)
            if value:
                field = schema[name]
                made[name] = list(type(field).index(field, value))
        out.append(made)
    return out


def indexed_ahead(docs: list[dict], schema: Schema, workers: int, chunk: int) -> Iterator[tuple[dict, dict]]:
    """Yield ``(doc, made)`` in order: ``made`` maps each text field of ``doc`` to the items
    ``field.index(value)`` returns, computed by ``workers`` forked processes a few chunks ahead of the
    caller. With fewer than 2 workers, a small input or no fork, ``made`` is empty (the writer indexes)."""
    global _job
    if workers < 2 or len(docs) < 2 * chunk or not hasattr(os, "fork"):
        for doc in docs:
            yield doc, {}
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    spans = deque((i, min(i + chunk, len(docs))) for i in range(0, len(docs), chunk))
    _job = (docs, schema, text_fields(schema))
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            # A bounded window: the writer may be slower than the workers, and what is made waits in memory.
            window = deque()
            while spans or window:
                while spans and len(window) < 2 * workers + 1:
                    span = spans.popleft()
                    window.append((span, pool.submit(_index_range, span)))
                span, future = window.popleft()
                yield from zip(docs[span[0] : span[1]], future.result(), strict=True)
    finally:
        _job = None


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
