"""Verdicts on the forms real engines write, each case short and of our own wording (tests/fixtures/realforms).

Seen on phase-rs (Rust), XMage (Java), a Python combat engine and a TypeScript engine: rules text pasted
into javadoc, several ids and keywords on one line, card wording in quotes, group ranges over prose, a
comment line above that cites its own id, neighbours under the same rule, ids no edition ever held.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.links import link
from tests._kbfixtures import store_of

pytestmark = pytest.mark.heavy  # a store of four English editions with their lineage

TREE = Path(__file__).resolve().parent / "fixtures" / "realforms"
JAVA, PY = "java/src/main/java/org/engine/Destroy.java", "python/test_combat_words.py"
RS, TS, MORPH = "rust/src/effects.rs", "typescript/src/index.ts", "typescript/src/morph.ts"

# (file, line, rule): (status, first suggestion or None, words the note must hold)
EXPECTED = {
    # rules text pasted into a comment: its ids are the rules' own references, right in the edition copied
    (JAVA, 6, "701.8b"): ("ok", None, "the line is the text of the rules of 20260116"),
    (JAVA, 7, "704.5g"): ("ok", None, "the line is the text of the rules of 20260116"),
    (JAVA, 9, "601.2e"): ("ok", None, "the line is the text of the rules of 20260116"),
    # ... copied from 2018, when illegal actions were rule 720 (732 today): stale, not a mismatch
    (JAVA, 10, "720"): ("stale", "732", "the line is the text of the rules of 20180119"),
    # ... a clause pasted with its own id, from 2024 when sacrifice was 701.17: its words are 701.21a's today
    (JAVA, 16, "701.17a"): ("stale", "701.21a", "701.17a changed after 20240607"),
    # several ids, several keywords: each id takes the keyword the line pairs with it
    (PY, 2, "702.40a"): ("mismatch", "702.39a", "provoke does not fit 702.40a (storm)"),
    (PY, 2, "702.110b"): ("mismatch", "702.111b", "menace does not fit 702.110b (exploit)"),
    (PY, 6, "702.7b"): ("ok", None, ""),
    (PY, 6, "702.46a"): ("mismatch", "702.45a", "bushido does not fit 702.46a (soulshift)"),
    (PY, 6, "702.2b"): ("ok", None, ""),
    (PY, 10, "702.90"): ("mismatch", "702.83", "exalted does not fit 702.90 (infect)"),
    (PY, 10, "702.92"): ("mismatch", "702.91", "battle cry does not fit 702.92 (living weapon)"),
    (PY, 10, "702.111"): ("mismatch", "702.121", "melee does not fit 702.111 (menace)"),
    # another id on the line owns the words it shares: changeling is 702.73a's, not evidence against 205.3
    (RS, 1, "702.73a"): ("ok", None, ""),
    (RS, 1, "205.3"): ("ok", None, ""),
    # card wording the rules only mention in quotation marks is the engine's card text, not evidence
    (RS, 4, "603.2b"): ("ok", None, ""),
    # everyday words ("condition", "true") fitting a neighbour under 608 better prove nothing
    (RS, 7, "608.2c"): ("ok", None, ""),
    # an old-style layer id no edition held: no guess
    (RS, 10, "613.1gc"): ("orphan", None, "613.1gc is not in 20260116"),
    # a phrase many clauses say ("a +1/+1 counter on it") quotes none of them
    (RS, 13, "122.1"): ("ok", None, ""),
    # a participle with its complement is a verb: "exhausted with" is not the keyword exhaust
    (RS, 16, "702.85a"): ("ok", None, ""),
    # a line with words of its own speaks for itself: a keyword on the line above is not its evidence
    (RS, 20, "702.104a"): ("ok", None, ""),
    # the untap step is 502.3's topic, not a rival of 113.6
    (RS, 23, "502.3"): ("ok", None, ""),
    (RS, 23, "113.6"): ("ok", None, ""),
    # "library" names the cited id's own rule: a neighbour needs a rarer word to outbid it
    (RS, 26, "401.4"): ("ok", None, ""),
    # words shared by several ids ("106.3 + 614.1a: …") describe them together: no evidence against one
    (RS, 29, "106.3"): ("ok", None, ""),
    (RS, 29, "614.1a"): ("ok", None, ""),
    # ninjutsu is the other id's keyword: no suggestion for an id newer than the KB
    (RS, 32, "702.49"): ("ok", None, ""),
    (RS, 32, "702.190a"): ("orphan", None, "newer than the newest edition in the KB"),
    # a quote whose words the cited clause speaks of (the untap step) is no evidence against it
    (RS, 35, "502.1"): ("ok", None, ""),
    # a range's words describe the group, not each member
    (TS, 1, "101"): ("ok", None, ""),
    (TS, 1, "102"): ("ok", None, ""),
    (TS, 1, "103"): ("ok", None, ""),
    (TS, 1, "104"): ("ok", None, ""),
    (TS, 5, "303.4"): ("mismatch", "303.3", "fit 303.3"),
    # the line above cites 303.4 with its own words; they are not this line's
    (TS, 6, "205.3h"): ("ok", None, ""),
    # a rare word on the line above ("megamorph") names the neighbour meant
    (MORPH, 3, "702.37d"): ("mismatch", "702.37b", "fit 702.37b"),
    # the line names what it cites (701.28, "Convert"): other words fitting another clause prove nothing
    (MORPH, 9, "701.28"): ("ok", None, ""),
}


@pytest.fixture(scope="module")
def verdicts() -> dict:
    store = store_of("2018-01-19", "2021-11-15", "2024-06-07", "2026-01-16")
    data = link(store, [str(TREE)], git=False)
    return {(c["file"], c["line"], c["rule"]): c for c in data["citations"]}


def test_every_fixture_citation_is_expected(verdicts):
    assert set(verdicts) == set(EXPECTED)


@pytest.mark.parametrize("key", sorted(EXPECTED), ids=lambda k: f"{k[0].rsplit('/', 1)[-1]}:{k[1]}:{k[2]}")
def test_status_and_first_suggestion(verdicts, key):
    status, first, note = EXPECTED[key]
    c = verdicts[key]
    assert (c["status"], (c["suggest"] or [None])[0]) == (status, first), c["note"]
    assert note in c["note"]


def test_an_id_no_edition_held_gets_no_guess(verdicts):
    assert verdicts[(RS, 10, "613.1gc")]["suggest"] == []


def test_a_copy_is_dated_by_the_newest_edition_holding_its_text(verdicts):
    assert verdicts[(JAVA, 10, "720")]["written_version"] == "20180119"  # 20211115 refers to 726 instead
    assert verdicts[(JAVA, 7, "704.5g")]["written_version"] == "20260116"
