"""A full disk, for real: the data home on a small tmpfs mounted in a private mount namespace.

Each run copies the seed KB onto a tmpfs with a little room to spare and ingests into it. However
little room there is (so the disk fills while copying the store, writing it, or building the
index), the command fails with one line, the live KB is byte-identical and the disk holds exactly
what it held before. With room enough the same ingest succeeds, which shows the failures come from
the disk. Skipped only where this machine refuses to mount (no privilege for ``unshare -m``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tests.helpers import CORPUS, ROOT

pytestmark = pytest.mark.heavy  # each test ingests into a seed KB and rebuilds its index

SEED = CORPUS / "003_1192bed475bff8cb.txt"  # a viewer page: ingested as a new version below

INNER = textwrap.dedent(
    """
    import json, os, shutil, subprocess, sys
    sys.path.insert(0, {root!r})
    from tests._hostile import snapshot

    src, mnt, size = sys.argv[1], sys.argv[2], sys.argv[3]
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={{size}}", "tmpfs", mnt], check=True)
    try:
        home = os.path.join(mnt, "home")
        shutil.copytree(src, home, symlinks=True)
        from pathlib import Path
        before, used = snapshot(Path(home)), shutil.disk_usage(mnt).used
        proc = subprocess.run(
            [sys.executable, "-c", "from kb.cli import main; main()", "--home", home, "ingest", {seed!r},
             "--version", "20990101.0"],
            capture_output=True, text=True, cwd={root!r},
        )
        print(json.dumps({{
            "code": proc.returncode, "stderr": proc.stderr, "stdout": proc.stdout,
            "same": snapshot(Path(home)) == before, "used_before": used, "used_after": shutil.disk_usage(mnt).used,
            "entries": sorted(os.listdir(home)),
        }}))
    finally:
        subprocess.run(["umount", mnt])
    """
)


def _mountable(where) -> str:
    """'' when a tmpfs can be mounted in a private namespace here, else why not."""
    where.mkdir()
    try:
        probe = subprocess.run(
            ["unshare", "-m", "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    return "" if probe.returncode == 0 else (probe.stderr.strip() or f"exit {probe.returncode}")


def _ingest_on_tmpfs(tmp_path, built_home, spare: int) -> dict:
    size = sum(p.stat().st_size for p in built_home.rglob("*") if p.is_file() and not p.is_symlink())
    mnt = tmp_path / f"mnt-{spare}"
    mnt.mkdir()
    script = tmp_path / "inner.py"
    script.write_text(INNER.format(root=str(ROOT), seed=str(SEED)))
    # tmpfs sizes round up to pages; directories and the copy's own blocks take some room too
    total = size + 64 * 1024 + spare
    proc = subprocess.run(
        ["unshare", "-m", sys.executable, str(script), str(built_home), str(mnt), str(total)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("spare", [64 * 1024, 1024 * 1024, 4 * 1024 * 1024], ids=["64K", "1M", "4M"])
def test_a_full_disk_fails_in_one_line_and_leaves_the_kb_and_the_disk_as_they_were(tmp_path, built_home, spare):
    if why := _mountable(tmp_path / "probe"):
        pytest.skip(f"cannot mount a tmpfs in a private mount namespace here: {why}")
    run = _ingest_on_tmpfs(tmp_path, built_home, spare)
    # Progress of the long work before the failure may precede it; the error itself is one line, the last.
    errors = [line for line in run["stderr"].strip().splitlines() if line.startswith("rulekb:")]
    assert run["code"] == 1, run
    assert len(errors) == 1 and run["stderr"].strip().endswith(errors[0]), run["stderr"]
    assert "Traceback" not in run["stderr"]
    assert "no space left on the device" in errors[0] and "the KB was left as it was" in errors[0], errors[0]
    assert run["same"], "the live KB or the home's entries changed"  # no gen-*, no .current-* left
    assert run["used_after"] == run["used_before"], "a failed ingest left data behind on the disk"


def test_with_room_enough_the_same_ingest_succeeds(tmp_path, built_home):
    if why := _mountable(tmp_path / "probe"):
        pytest.skip(f"cannot mount a tmpfs in a private mount namespace here: {why}")
    run = _ingest_on_tmpfs(tmp_path, built_home, 256 * 1024 * 1024)
    assert run["code"] == 0, run["stderr"]
    assert "mtg/ja/20990101.0" in run["stdout"] and not run["same"]
