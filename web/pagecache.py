"""A response cache in front of the app: each page computed once per generation, shared by every worker.

Pages are a pure function of the generation's content, the code, the app's page-shaping settings and
the URL (``web.etags``): a
response the app tagged with an ETag is kept under that key, in memory (per process, least recently
used first out) and, when it was expensive to compute, on disk in the data home, where the other
worker processes and the next start of the same code find it. A hit is answered without running the
app (and ``If-None-Match`` with a 304). The disk cache keeps one directory per generation and code;
a file is written beside its final name and renamed into place (readers see the whole page or
nothing), carries the hash of its body (a torn file reads as a miss), and the directories of other
generations are removed once a new one is live. Its size is bounded: past the limit the least
recently used pages go first.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from kb.errors import StoreError
from web.etags import code_version, page_key

log = logging.getLogger(__name__)

MEMORY_BYTES = 64 * 1024 * 1024
DISK_BYTES = 512 * 1024 * 1024
DISK_MIN_CPU = 0.05  # seconds of CPU a page took: cheaper ones (most clause pages, 15-30 ms) are not worth a file
_MAGIC = b"rulekb-page 1\n"
GEN_KEY = "rulekb.generation"  # environ: the generation this request reads (web.pages.generation)
REFRESH = "rulekb.refresh"  # environ: compute the page even when it is kept (web.warmup)


class DiskCache:
    """Pages on disk under ``root``, one directory per generation content hash and code version."""

    def __init__(self, root: str | os.PathLike, max_bytes: int = DISK_BYTES):
        self.root = Path(root)
        self.max_bytes = max_bytes
        self._written = 0  # bytes written since the size was last checked
        self._lock = threading.Lock()
        self.broken: str | None = None  # why the cache is off (the directory cannot be written)

    def namespace(self, identity: str) -> str:
        return f"{identity[:32]}-{code_version()[:12]}"

    def _path(self, identity: str, key: str) -> Path:
        return self.root / self.namespace(identity) / key[:2] / key

    def get(self, identity: str, key: str) -> tuple[list, bytes] | None:
        """(headers, body) of a stored page, or None (absent, torn or unreadable)."""
        path = self._path(identity, key)
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        if not data.startswith(_MAGIC):
            return None
        head, sep, body = data[len(_MAGIC) :].partition(b"\n")
        try:
            meta = json.loads(head)
        except ValueError:
            return None
        if not sep or meta.get("sha256") != hashlib.sha256(body).hexdigest():
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # least recently used goes first when trimming
        return [tuple(h) for h in meta["headers"]], body

    def put(self, identity: str, key: str, headers: list, body: bytes) -> bool:
        """Store a page atomically (written beside its name, then renamed); False when the disk refuses."""
        if self.broken:
            return False
        path = self._path(identity, key)
        meta = json.dumps({"headers": headers, "sha256": hashlib.sha256(body).hexdigest()}).encode()
        tmp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
            with os.fdopen(fd, "wb") as fh:
                fh.write(_MAGIC + meta + b"\n" + body)
            os.replace(tmp, path)
        except OSError as exc:
            if tmp:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            self.broken = f"{self.root}: {exc.strerror or exc}"
            log.warning("page cache on disk turned off: %s", self.broken)
            return False
        with self._lock:
            self._written += len(body)
            due = self._written > self.max_bytes // 8
            if due:
                self._written = 0
        if due:
            self.trim()
        return True

    def forget_others(self, identities: Iterable[str]) -> None:
        """Remove the pages of every generation and code version but those of ``identities``."""
        keep = {self.namespace(i) for i in identities}
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.root):
                if entry.is_dir() and entry.name not in keep:
                    shutil.rmtree(entry.path, ignore_errors=True)

    def trim(self) -> None:
        """Remove the least recently used pages until the cache holds at most 3/4 of its limit."""
        files = []
        for dirpath, _dirs, names in os.walk(self.root):
            for name in names:
                with contextlib.suppress(OSError):
                    st = os.stat(os.path.join(dirpath, name))
                    # a temporary file older than a minute was left by a crashed writer
                    stale = name.startswith(".tmp-") and st.st_mtime < time.time() - 60
                    files.append((0 if stale else st.st_mtime, st.st_size, os.path.join(dirpath, name)))
        total = sum(size for _, size, _ in files)
        for _mtime, size, path in sorted(files):
            if total <= self.max_bytes * 3 // 4:
                break
            with contextlib.suppress(OSError):
                os.unlink(path)
                total -= size

    def size(self) -> int:
        return sum(os.path.getsize(os.path.join(d, n)) for d, _, names in os.walk(self.root) for n in names)


class PageCache:
    """WSGI middleware: answer a page the app tagged before from memory or disk, else ask the app and keep it."""

    def __init__(
        self,
        app: Callable,
        state,
        disk: DiskCache | None,
        *,
        memory_bytes: int = MEMORY_BYTES,
        disk_min_cpu: float = DISK_MIN_CPU,
        settings: str = "",
    ):
        self.app = app
        self.settings = settings  # web.etags.settings_version of the app's config: pages differ with it
        self.disk_min_cpu = disk_min_cpu
        self.state = state  # web.state.KBState: the generation live now
        self.disk = disk
        self.memory_bytes = memory_bytes
        self._memory: OrderedDict[str, tuple[list, bytes]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self._seen: set[str] = set()  # generations whose older disk pages were dropped
        self.stats = {"memory": 0, "disk": 0, "miss": 0, "stored": 0}

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") != "GET" or environ.get("PATH_INFO", "").startswith("/static/"):
            return self.app(environ, start_response)
        try:
            gen = self.state.current()
        except StoreError:
            return self.app(environ, start_response)  # no KB: the app answers 503
        environ[GEN_KEY] = gen
        identity = gen.identity
        self._forget_older(identity)
        key = page_key(identity, environ.get("PATH_INFO", ""), environ.get("QUERY_STRING", ""), self.settings)
        # the warm-up computes its pages whatever is kept: what it is for is what computing them loads
        hit = None if environ.get(REFRESH) else self._lookup(identity, key)
        if hit is not None:
            return self._answer(hit, environ, start_response)
        self.stats["miss"] += 1
        return self._compute(environ, start_response, identity, key)

    def _lookup(self, identity: str, key: str) -> tuple[list, bytes] | None:
        with self._lock:
            hit = self._memory.get(key)
            if hit is not None:
                self._memory.move_to_end(key)
                self.stats["memory"] += 1
                return hit
        hit = self.disk.get(identity, key) if self.disk is not None else None
        if hit is not None:
            self.stats["disk"] += 1
            self._remember(key, hit)
        return hit

    def _answer(self, hit: tuple[list, bytes], environ: dict, start_response: Callable) -> Iterable[bytes]:
        headers, body = hit
        etag = next((v for k, v in headers if k.lower() == "etag"), None)
        wanted = environ.get("HTTP_IF_NONE_MATCH", "")
        if etag and wanted and (wanted.strip() == "*" or etag in [t.strip() for t in wanted.split(",")]):
            kept = [(k, v) for k, v in headers if k.lower() != "content-length"]
            start_response("304 NOT MODIFIED", kept)
            return [b""]
        start_response("200 OK", [*headers, ("Content-Length", str(len(body)))])
        return [body]

    def _compute(self, environ: dict, start_response: Callable, identity: str, key: str) -> Iterable[bytes]:
        captured: dict = {}

        def capture(status: str, headers: list, exc_info=None):
            captured.update(status=status, headers=headers, exc_info=exc_info)
            return lambda chunk: captured.setdefault("written", []).append(chunk)

        cpu = time.thread_time()
        result = self.app(environ, capture)
        status, headers = captured["status"], captured["headers"]
        keep = status.startswith("200") and any(k.lower() == "etag" for k, _ in headers)
        if not any(k.lower() == "content-length" for k, _ in headers):
            # streamed: pass each chunk on as it comes, keep the whole once it is complete
            start_response(status, headers, captured["exc_info"])
            return self._stream(captured.get("written", []), result, (identity, key, headers, cpu) if keep else None)
        try:
            body = b"".join([*captured.get("written", []), *result])
        finally:
            if hasattr(result, "close"):
                result.close()
        if keep:
            self._keep(identity, key, headers, body, time.thread_time() - cpu)
        start_response(status, headers, captured["exc_info"])
        return [body]

    def _stream(self, written: list[bytes], result: Iterable[bytes], keep: tuple | None) -> Iterator[bytes]:
        chunks = list(written)
        try:
            yield from written
            for chunk in result:
                chunks.append(chunk)
                yield chunk
        finally:
            if hasattr(result, "close"):
                result.close()
        if keep is not None:  # not reached when the client went away mid-page: nothing half kept
            identity, key, headers, cpu = keep
            self._keep(identity, key, headers, b"".join(chunks), time.thread_time() - cpu)

    def _keep(self, identity: str, key: str, headers: list, body: bytes, cpu: float) -> None:
        # the length goes with each answer, the date is the answer's own (the server adds it)
        kept = [(k, v) for k, v in headers if k.lower() not in ("content-length", "date")]
        self._remember(key, (kept, body))
        if self.disk is not None and cpu >= self.disk_min_cpu and self.disk.put(identity, key, kept, body):
            self.stats["stored"] += 1

    def _remember(self, key: str, entry: tuple[list, bytes]) -> None:
        size = len(entry[1])
        if size > self.memory_bytes // 8:
            return
        with self._lock:
            if key in self._memory:
                return
            self._memory[key] = entry
            self._size += size
            while self._size > self.memory_bytes and self._memory:
                self._size -= len(self._memory.popitem(last=False)[1][1])

    def _forget_older(self, identity: str) -> None:
        """The first request of a new generation drops the pages of the others (memory and disk)."""
        if identity in self._seen:
            return
        with self._lock:
            first = identity not in self._seen
            self._seen.add(identity)
            if first:
                self._memory.clear()
                self._size = 0
        if first and self.disk is not None:
            self.disk.forget_others([identity])
