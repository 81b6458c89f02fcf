"""What a page is a function of, the same in every worker process: the generation's content and the code.

A page is computed from the live generation (its store and index, hashed when the build swapped it
in: ``kb.home.identity``), by the code of ``kb`` and ``web`` (templates and static files included),
under the app's page-shaping settings (how many results, how large a part), for one URL. Its ETag
names exactly that, so two workers, or a restart of the same code, give the same tag for the same
page; a rebuild, a new release or other settings give another.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path

_PACKAGES = ("kb", "web")
_SUFFIXES = (".py", ".html", ".js", ".css", ".toml", ".tsv", ".txt", ".json")


@functools.cache
def code_version() -> str:
    """A hash of the code that computes and renders pages (read once per process)."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for package in _PACKAGES:
        for f in sorted((root / package).rglob("*")):
            if f.suffix in _SUFFIXES and "__pycache__" not in f.parts and f.is_file():
                h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def settings_version(config: Mapping, names: Iterable[str]) -> str:
    """A short hash of the settings ``names`` of ``config`` that shape pages ('' when there are none)."""
    shaping = sorted((name, repr(config.get(name))) for name in names)
    return hashlib.sha256(repr(shaping).encode()).hexdigest()[:12] if shaping else ""


def page_key(identity: str, path: str, query: str, settings: str = "") -> str:
    """The name of one page of one generation: content hash, code, settings and the request (path and query)."""
    raw = f"{identity}\0{code_version()}\0{settings}\0{path}\0{query}"
    return hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()


def etag(identity: str, path: str, query: str, settings: str = "") -> str:
    """The (weak) entity tag of a page: its key, shortened; equal in every worker for the same page."""
    return f"{identity[:12]}-{page_key(identity, path, query, settings)[:20]}"
