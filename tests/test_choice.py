"""Which version ``latest`` (or no label) means: one set of rules for the CLI and the web app."""

import pytest

from kb.errors import NotFound, RulekbError
from kb.model import ParsedVersion, ParseResult, RuleNode
from kb.store import Store
from kb.versions import choice, editions


def _add(store: Store, label: str, rules: list[str], *, lang: str = "en", partial: bool = False) -> None:
    nodes = [RuleNode(rule=r, text=f"{r} in {label}", position=i, line=i + 1) for i, r in enumerate(rules)]
    v = ParsedVersion(game="mtg", lang=lang, label=label, effective=None, partial=partial, nodes=nodes)
    store.add(ParseResult("x", "cr", versions=[v]), path=label, sha256=f"{lang}{label}")


@pytest.fixture
def store(tmp_path):
    st = Store.create(str(tmp_path / "kb.sqlite"))
    _add(st, "20230101", ["100.1", "100.2"])
    _add(st, "20240101", ["100.1", "100.2", "100.3"])
    _add(st, "20250101", ["100.1"])
    _add(st, "20260101", ["100.1", "100.9"], partial=True)  # a newer quote: a fragment
    _add(st, "20240101.0", ["100.1", "100.2"], lang="ja")
    editions.pair_translations(st)
    st.commit()
    yield st
    st.close()


def test_a_clause_is_read_in_the_newest_whole_text_holding_it(store):
    assert choice.holding(store, "mtg", "en", "100.1").label == "20250101"  # not the newer fragment
    assert choice.holding(store, "mtg", "en", "100.2").label == "20240101"  # the newest whole text lacks it
    assert choice.holding(store, "mtg", "en", "100.9").label == "20260101"  # only a fragment has it
    assert choice.holding(store, "mtg", "en", "999.1") is None


def test_for_rule_tries_the_languages_in_order(store):
    assert choice.for_rule(store, "100.2", "mtg", ["ja", "en"]).label == "20240101.0"
    assert choice.for_rule(store, "100.3", "mtg", ["ja", "en"]).label == "20240101"
    with pytest.raises(NotFound, match="no mtg version in ja holds 100.3"):
        choice.for_rule(store, "100.3", "mtg", ["ja"])


def test_the_newest_update_is_the_two_newest_whole_dated_versions(store):
    old, new = choice.latest_update(store, "mtg", "en")
    assert (old.label, new.label) == ("20240101", "20250101")
    assert choice.latest_update(store, "mtg", "ja") is None  # one Japanese version: no update


def labels(pair) -> tuple[str, ...]:
    return tuple(v.label for v in pair)


def test_diff_pair_reads_latest_as_the_newest_whole_version_or_the_newest_update(store):
    assert labels(choice.diff_pair(store, "20230101", "latest")) == ("20230101", "20250101")
    assert labels(choice.diff_pair(store, "latest", "20230101")) == ("20250101", "20230101")
    assert labels(choice.diff_pair(store, "latest", "latest", "mtg", "en")) == ("20240101", "20250101")
    with pytest.raises(RulekbError, match="--game and --lang"):
        choice.diff_pair(store, "latest", "latest")
    with pytest.raises(NotFound, match="fewer than two whole versions"):
        choice.diff_pair(store, "latest", "latest", "mtg", "ja")


def test_align_pair_reads_latest_in_the_other_language(store):
    a, b = choice.align_pair(store, "20240101.0", "latest")
    assert (a.lang, a.label, b.lang, b.label) == ("ja", "20240101.0", "en", "20250101")
    a, b = choice.align_pair(store, "latest", "latest")
    assert (a.label, b.label) == ("20240101.0", "20250101")


def test_paired_is_the_other_language_of_the_same_edition(store):
    ja = store.get_version("mtg", "ja", "20240101.0")
    assert choice.paired(store, ja).label == "20240101"
    assert choice.paired(store, store.get_version("mtg", "en", "20240101")).label == "20240101.0"
    assert choice.paired(store, store.get_version("mtg", "en", "20230101")) is None
