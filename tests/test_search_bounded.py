"""No query runs unbounded (issue 19): `rulekb search カキ` on the whole bundled KB never returned
(Whoosh's block-quality skipping looped under the loose query's count); the per-query budget cuts a
search short and says so. bench/fuzz.py asks ten thousand more such queries."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kb.search.bounded import Deadline

pytestmark = pytest.mark.slow
RULEKB = [sys.executable, "-c", "from kb.cli import main; main()"]  # the command, run as a user runs it


@pytest.fixture(scope="module")
def full_home(tmp_path_factory):
    """The main job's KB: `rulekb build` of the whole bundled corpus, as `make run` builds it."""
    home = tmp_path_factory.mktemp("full-home")
    env = {**os.environ, "RULEKB_HOME": str(home)}
    subprocess.run([*RULEKB, "build"], env=env, check=True, capture_output=True, timeout=900)
    return home


@pytest.mark.parametrize("q", ["カキ", "カキ 2", "かき"])
def test_a_two_kana_query_returns_on_the_whole_kb(full_home, q):
    env = {**os.environ, "RULEKB_HOME": str(full_home)}
    run = subprocess.run([*RULEKB, "search", q, "--json"], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert '"rule"' in run.stdout


def test_a_deadline_counts_the_cpu_of_its_own_thread():
    """Waiting (for the GIL, the embedder, a slow disk) spends no budget; computing does."""
    import threading
    import time

    d = Deadline(0.2)
    time.sleep(0.4)  # wall time far past the budget
    busy = threading.Thread(target=lambda: sum(i * i for i in range(3_000_000)))  # another thread's CPU
    busy.start()
    busy.join()
    assert d.left() and not d.spent() and not d.hit
    ends = time.monotonic() + 30
    while d.left() and time.monotonic() < ends:  # this thread computes: the budget runs out
        sum(range(1000))
    assert not d.left() and d.spent() and d.hit
