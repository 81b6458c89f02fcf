"""No query runs unbounded (issue 19): `rulekb search カキ` on the whole bundled KB never returned
(Whoosh's block-quality skipping looped under the loose query's count); the per-query budget cuts a
search short and says so. bench/fuzz.py asks ten thousand more such queries."""

from __future__ import annotations

import json
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


def _burn(seconds: float) -> None:
    import time

    ends = time.thread_time() + seconds
    while time.thread_time() < ends:
        sum(range(1000))


def test_a_one_time_load_is_not_charged_to_the_query_that_triggers_it():
    """Loading a dictionary or the model on a process's first search spends none of that search's
    budget; the search's own work does. Nested loads are counted once."""
    from kb.loadtime import load_time, one_time_load

    before = load_time()
    d = Deadline(0.15)
    with one_time_load():
        _burn(0.1)
        with one_time_load():
            _burn(0.1)
    assert 0.19 <= load_time() - before < 0.4  # the inner load is inside the outer one
    assert d.left() and not d.spent()
    _burn(0.2)
    assert not d.left() and d.spent() and d.hit


def test_what_a_first_search_loads_is_marked_as_loaded_once(kb):
    """The first search of a fresh process loads Janome, Sudachi, numpy and the embedder, the vectors and
    the ranker: each load's CPU time is marked (kb.loadtime), so the query's deadline does not count it."""
    store, index_dir, _, _ = kb
    code = (
        "import sys, time, json\n"
        "from kb.loadtime import load_time\n"
        "from kb import analysis\n"
        "out = {}\n"
        "def charge(name, load):\n"
        "    t, marked = time.thread_time(), load_time()\n"
        "    load()\n"
        "    out[name] = [time.thread_time() - t, load_time() - marked]\n"
        "charge('janome', lambda: analysis._janome_tokens('ブロック'))\n"
        "charge('sudachi', lambda: analysis.sudachi_tokenizer('C'))\n"
        "from kb.store import Store\n"
        "from kb.search.searcher import Searcher\n"
        "s = Searcher(Store.open(sys.argv[1]), sys.argv[2])\n"
        "charge('dense', lambda: s._dense_index(True))\n"
        "charge('ranker', s.ranker)\n"
        "print(json.dumps(out))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(store.path), str(index_dir)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    charged = json.loads(run.stdout.strip().splitlines()[-1])
    assert set(charged) == {"janome", "sudachi", "dense", "ranker"}
    for name, (spent, marked) in charged.items():
        assert spent > 0.005, (name, spent)  # something was loaded
        assert marked >= 0.8 * spent, (name, spent, marked)  # and (nearly) all of it marked


def test_whoosh_search_finds_the_top_n_whoosh_finds_scoring_everything(searcher):
    """``whoosh_search`` keeps the running minimum at 0 (no matcher rebuilt each time it rises): its top N
    is the top N of every match scored, for plain, filtered and many-word queries."""
    from whoosh.query import Or, Term

    from kb.search.bounded import whoosh_search

    s = searcher._searcher(False)
    words = ["creature", "damage", "player", "spell", "attack", "block", "two", "card", "ability", "turn"]
    scope = set(range(0, s.doc_count_all(), 2))
    for n in (1, 3, 10):
        q = Or([Term("en", w) for w in words[:n]])
        for docs in (None, scope):
            every = s.search(q, optimize=False, filter=docs, limit=None)
            best = sorted(((round(h.score, 9), -h.docnum) for h in every), reverse=True)[:7]
            got = whoosh_search(s, q, filter=docs, limit=7)
            assert [(round(h.score, 9), -h.docnum) for h in got] == best, (n, docs is None)
