"""WSGI middleware: brotli or gzip for text responses, each compressed body kept per ETag.

Pages are a pure function of the KB generation and the URL (their weak ETag says which), so a page
compressed once is served compressed from memory until the next rebuild or restart.
"""

from __future__ import annotations

import gzip
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator

import brotli

TYPES = ("text/html", "application/json", "text/css", "text/javascript", "application/javascript", "text/plain")
MIN_SIZE = 1024  # bytes: below this the headers cost more than compression saves
CACHE_BYTES = 64 * 1024 * 1024


def choose(accept: str) -> str | None:
    """The content coding to use for an Accept-Encoding header: ``br``, ``gzip`` or None."""
    offered: dict[str, float] = {}
    for part in accept.split(","):
        name, _, params = part.strip().partition(";")
        q = 1.0
        for p in params.split(";"):
            k, _, v = p.strip().partition("=")
            if k == "q":
                try:
                    q = float(v)
                except ValueError:
                    q = 0.0
        if name:
            offered[name.strip().lower()] = q
    star = offered.get("*", 0.0)
    for coding in ("br", "gzip"):
        if offered.get(coding, star) > 0:
            return coding
    return None


def compress(data: bytes, coding: str) -> bytes:
    if coding == "br":
        # quality 5: about gzip's speed at a better ratio. 9 saved 1-2 % more and cost 20x the CPU (a 30 KB
        # clause page: 8 ms instead of 0.4, most of what a new page cost to send); 11 takes a second on a large page
        return brotli.compress(data, quality=5)
    return gzip.compress(data, compresslevel=6, mtime=0)


class Compress:
    """Wrap a WSGI app: compress text bodies the client accepts, remember them by ETag and URL."""

    def __init__(self, app: Callable, cache_bytes: int = CACHE_BYTES):
        self.app = app
        self.cache_bytes = cache_bytes
        self._cache: OrderedDict[tuple, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        coding = choose(environ.get("HTTP_ACCEPT_ENCODING", ""))
        if environ.get("REQUEST_METHOD") != "GET":
            return self.app(environ, start_response)
        captured: dict = {}

        def capture(status: str, headers: list, exc_info=None):
            captured.update(status=status, headers=headers, exc_info=exc_info)
            return lambda chunk: captured.setdefault("written", []).append(chunk)

        result = self.app(environ, capture)
        if not any(k.lower() == "content-length" for k, _ in captured.get("headers", ())):
            # streamed (the whole of a large diff): sent as it comes, plain; its next request is served whole
            start_response(captured["status"], captured["headers"], captured["exc_info"])
            return _prepend(captured.get("written", []), result)
        try:
            body = b"".join([*captured.get("written", []), *result])
        finally:
            if hasattr(result, "close"):
                result.close()
        status, headers = captured["status"], captured["headers"]
        names = {k.lower(): v for k, v in headers}
        kind = names.get("content-type", "").split(";")[0].strip()
        if kind in TYPES:
            headers = _vary(headers)
        if (
            coding is None
            or kind not in TYPES
            or "content-encoding" in names
            or len(body) < MIN_SIZE
            or status[:3] in ("206", "304")
        ):
            start_response(status, headers, captured["exc_info"])
            return [body]
        packed = self._packed(body, coding, names.get("etag"), environ)
        headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
        headers += [("Content-Encoding", coding), ("Content-Length", str(len(packed)))]
        start_response(status, headers, captured["exc_info"])
        return [packed]

    def _packed(self, body: bytes, coding: str, etag: str | None, environ: dict) -> bytes:
        if not etag:
            return compress(body, coding)
        key = (coding, etag, environ.get("PATH_INFO", ""), environ.get("QUERY_STRING", ""))
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        packed = compress(body, coding)
        with self._lock:
            if key not in self._cache:
                self._cache[key] = packed
                self._size += len(packed)
            while self._size > self.cache_bytes and self._cache:
                self._size -= len(self._cache.popitem(last=False)[1])
        return packed


def _prepend(written: list[bytes], result: Iterable[bytes]) -> Iterator[bytes]:
    """The app's iterable after what it wrote through ``write()``; closed when done (WSGI)."""
    try:
        yield from written
        yield from result
    finally:
        if hasattr(result, "close"):
            result.close()


def _vary(headers: list) -> list:
    """Add Accept-Encoding to Vary: caches must keep the compressed and plain bodies apart."""
    for i, (k, v) in enumerate(headers):
        if k.lower() == "vary":
            if "accept-encoding" not in v.lower():
                headers = [*headers[:i], (k, f"{v}, Accept-Encoding"), *headers[i + 1 :]]
            return headers
    return [*headers, ("Vary", "Accept-Encoding")]
