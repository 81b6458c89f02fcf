"""The data home: generations of the KB side by side, the live one behind an atomically swapped link.

Layout::

    HOME/current -> gen-20261130T015230-1a2b   (symlink, replaced with rename(2): atomic)
    HOME/gen-…/kb.sqlite                       the store
    HOME/gen-…/index/                          the Whoosh index
    HOME/gen-…/content.sha256                  the hash of everything above, written last (see ``identity``)
    HOME/.lock                                 held by the one writer (build/ingest/link --save)

Readers resolve ``current`` once per open and keep that generation; a build never touches it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from kb.errors import StoreError
from kb.store import Store, copy_database

STORE_FILE = "kb.sqlite"
INDEX_DIR = "index"
IDENTITY_FILE = "content.sha256"
HELD_BACK_META = "held_back"  # store meta of a build of today's editions: how many documents it left out


def default_home() -> Path:
    """``$RULEKB_HOME``, else ``$XDG_DATA_HOME/rulekb``, else ``~/.local/share/rulekb``."""
    env = os.environ.get("RULEKB_HOME")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "rulekb"


class Home:
    """A data home directory holding KB generations."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path else default_home()

    @property
    def link(self) -> Path:
        return self.path / "current"

    def current(self) -> Path:
        """The live generation directory; StoreError when nothing was built yet."""
        try:
            target = os.readlink(self.link)
        except OSError:
            raise StoreError(f"no knowledge base in {self.path}: run `rulekb build` first") from None
        return self.path / target

    def exists(self) -> bool:
        return self.link.is_symlink() and (self.current() / STORE_FILE).exists()

    def store_path(self) -> Path:
        return self.current() / STORE_FILE

    def index_dir(self) -> Path:
        return self.current() / INDEX_DIR

    def open_store(self) -> Store:
        """Open the live store read-only."""
        return Store.open(str(self.store_path()))

    @contextlib.contextmanager
    def writer_lock(self) -> Iterator[None]:
        """Hold the home's writer lock; refuse at once if another writer has it."""
        created = not self.path.exists()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            fh = open(self.path / ".lock", "w")  # noqa: SIM115 (closed below, after the cleanup)
        except OSError as exc:
            raise StoreError(
                f"cannot write to the data home {self.path}: {exc.strerror or exc}"
                " (choose another with --home or RULEKB_HOME)"
            ) from None
        try:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise StoreError(f"{self.path}: another rulekb build or ingest is running") from None
            try:
                yield
            finally:
                if created and not self.link.is_symlink():  # nothing was built: leave no empty home behind
                    with contextlib.suppress(OSError):
                        (self.path / ".lock").unlink()
                        self.path.rmdir()
                fcntl.flock(fh, fcntl.LOCK_UN)
        finally:
            fh.close()

    @contextlib.contextmanager
    def new_generation(self, *, copy_current: bool = False, copy_index: bool = True) -> Iterator[Path]:
        """Yield a fresh generation directory; swap it in if the block succeeds, drop it if not.

        ``copy_current`` starts it as a copy of the live store (and index, unless ``copy_index`` is
        false because the caller rebuilds it anyway).
        """
        with self.writer_lock():
            previous = self.current().name if self.link.is_symlink() else None
            prefix = f"gen-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-"
            try:
                try:
                    gen = Path(tempfile.mkdtemp(prefix=prefix, dir=self.path))
                except OSError as exc:
                    raise StoreError(f"cannot write to the data home {self.path}: {exc.strerror or exc}") from None
                gen.chmod(0o755)  # mkdtemp makes it private; a server running as another user reads it
                if copy_current and self.exists():
                    _copy_generation(self.current(), gen, copy_index)
                yield gen
                _seal(gen)
                _fsync_tree(gen)
                self._swap(gen)
            except BaseException:
                self._drop_unfinished(prefix, previous)
                raise
            self._prune(keep={gen.name, previous})

    def _drop_unfinished(self, prefix: str, previous: str | None) -> None:
        """Remove what a failed or interrupted build made: its directory, even one an interrupt (Ctrl-C, the
        server behind which it ran dying) left before its name was known, and never the live generation
        (an interrupt right after the swap leaves the new one live) nor the one before it."""
        live = os.readlink(self.link) if self.link.is_symlink() else None
        for p in self.path.glob(f"{prefix}*"):
            if p.is_dir() and p.name not in (live, previous):
                shutil.rmtree(p, ignore_errors=True)

    def _swap(self, gen: Path) -> None:
        tmp = self.path / f".current-{os.getpid()}"
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        try:
            os.symlink(gen.name, tmp)
            os.replace(tmp, self.link)  # rename(2) is atomic: readers see the old or the new, never neither
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise
        dirfd = os.open(self.path, os.O_RDONLY)
        try:
            os.fsync(dirfd)
        finally:
            os.close(dirfd)

    def _prune(self, keep: set) -> None:
        """Remove generations other than the live one and the one it replaced (and crashed leftovers)."""
        for p in self.path.glob("gen-*"):
            if p.is_dir() and p.name not in keep:
                shutil.rmtree(p, ignore_errors=True)


def _copy_generation(src: Path, dst: Path, copy_index: bool = True) -> None:
    """Copy a live generation consistently (SQLite backup API; the index directory as files)."""
    copy_database(src / STORE_FILE, dst / STORE_FILE)
    if copy_index and (src / INDEX_DIR).is_dir():
        shutil.copytree(src / INDEX_DIR, dst / INDEX_DIR)


def _seal(gen: Path) -> None:
    """Write the hash of every file of a finished generation into it: what its pages are a function of."""
    h = hashlib.sha256()
    for path in sorted(p for p in gen.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(gen)).encode() + b"\0")
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    (gen / IDENTITY_FILE).write_text(h.hexdigest() + "\n", encoding="ascii")


def identity(gen: Path) -> str:
    """The content hash of a generation (``_seal``); its directory name for one sealed before hashes existed."""
    try:
        return (gen / IDENTITY_FILE).read_text(encoding="ascii").strip() or gen.name
    except OSError:
        return gen.name


def _fsync_tree(root: Path) -> None:
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            fd = os.open(os.path.join(dirpath, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
