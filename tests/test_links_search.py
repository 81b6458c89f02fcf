"""Suggestions ranked the way ``rulekb search`` ranks clauses, when the knowledge base has a search index."""

from __future__ import annotations

import pytest

from kb.links import link, searchrank
from kb.search.index import build_index
from kb.search.searcher import Searcher
from kb.store import Store
from tests._kbfixtures import home_of, store_of


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """The 2026-01-16 edition in a generation of its own: a store and, after the first test, its index."""
    gen = home_of(store_of("2026-01-16"), tmp_path_factory.mktemp("searchrank") / "home") / "gen-test"
    return Store.open(str(gen / "kb.sqlite")), gen / "index"


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("sba")
    (root / "test_sba.py").write_text(
        "def test_zero_toughness():\n"
        "    # Rule 305.12: a creature whose toughness is 0 or less is put into its owner's graveyard\n"
        "    assert True\n",
        encoding="utf-8",
    )
    return root


def test_without_an_index_suggestions_rest_on_lineage_and_wording(indexed, tree):
    store, index = indexed
    assert not index.exists()
    assert searchrank.ranked(store, "toughness graveyard", game="mtg", lang="en", version="20260116") == []
    (c,) = link(store, [str(tree)], git=False)["citations"]
    assert (c["status"], c["suggest"][0]) == ("orphan", "404.1")  # the graveyard the line names: a weak guess


def test_with_an_index_an_absent_id_gets_what_search_ranks_first(indexed, tree):
    store, index = indexed
    build_index(store, index)
    (c,) = link(store, [str(tree)], git=False)["citations"]
    assert (c["status"], c["suggest"][0]) == ("orphan", "704.5f")  # toughness 0 or less: a state-based action
    assert c["why"] == "the clause search ranks first for the line's words"


def test_the_ranking_is_search_s_own(indexed):
    store, index = indexed
    if not index.exists():
        build_index(store, index)
    query = "exiles every object on the stack including the object that is resolving"
    hits = Searcher(store, index).search(query, game="mtg", lang="en", version="20260116")
    ranked = searchrank.ranked(store, query, game="mtg", lang="en", version="20260116")
    assert ranked == list(dict.fromkeys(h["rule"] for h in hits)) and "723.1b" in ranked[:2]
