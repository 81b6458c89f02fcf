"""The SQLite store: versions, merging fragments, content addressing, reading back."""

from datetime import date

import pytest

from kb.errors import InputError, NotFound, StoreError
from kb.model import ParsedVersion, ParseResult, Reference, RuleNode, Term
from kb.store import Store


def _version(label, nodes, partial=False, lang="ja", effective=None):
    return ParsedVersion(game="mtg", lang=lang, label=label, effective=effective, partial=partial, nodes=nodes)


def _node(rule, text="", title="", parent=None, pos=0):
    return RuleNode(
        rule=rule,
        text=text,
        title=title,
        parent=parent,
        position=pos,
        line=pos + 1,
        references=[Reference("728", "rule 728")] if rule == "509.1" else [],
    )


@pytest.fixture
def store(tmp_path):
    st = Store.create(str(tmp_path / "kb.sqlite"))
    yield st
    st.close()


def test_round_trip_and_counts(store):
    v = _version(
        "20231117.0",
        [
            _node("5", title="ターンの構造"),
            _node("509", title="ブロック", parent="5", pos=1),
            _node("509.1", "まず…", parent="509", pos=2),
            _node("509.1a", "防御…", parent="509.1", pos=3),
        ],
        effective=date(2023, 11, 17),
    )
    v.terms.append(Term("ブロックされているクリーチャー", english="blocked creature", rule="509.1h", source="inline"))
    store.add(ParseResult("viewer", "cr", versions=[v]), path="a.txt", sha256="a")
    store.commit()
    [info] = store.versions()
    assert (info.label, info.clauses, info.headings, info.terms, info.documents) == ("20231117.0", 2, 2, 1, 1)
    assert info.as_json()["effective"] == "2023-11-17"
    rec = store.node(info, "509.1")
    assert rec.text == "まず…" and rec.references[0].rule == "728" and rec.parent == "509"
    assert [c.rule for c in store.children(info, "509")] == ["509.1"]
    assert [n.rule for n in store.nodes(info)] == ["5", "509", "509.1", "509.1a"]


def test_fragments_merge_into_one_version_in_clause_order(store):
    store.add(
        ParseResult(
            "viewer", "cr", versions=[_version("20231117.0", [_node("510"), _node("510.1", "x", pos=1)], partial=True)]
        ),
        path="b",
        sha256="b",
    )
    store.add(
        ParseResult(
            "viewer", "cr", versions=[_version("20231117.0", [_node("509"), _node("509.1", "y", pos=1)], partial=True)]
        ),
        path="a",
        sha256="a",
    )
    store.commit()
    [info] = store.versions()
    assert info.partial and info.documents == 2
    assert [n.rule for n in store.nodes(info)] == ["509", "509.1", "510", "510.1"]
    assert store.node(info, "509.1").parent == "509"


def test_whole_text_supersedes_fragments(store):
    store.add(
        ParseResult("mtgwiki", "quote", versions=[_version("20260807.0", [_node("509.1", "q")], partial=True)]),
        path="q",
        sha256="q",
    )
    store.add(
        ParseResult(
            "cr-ja", "cr", versions=[_version("20260807.0", [_node("509.1", "full"), _node("509.2", "b", pos=1)])]
        ),
        path="f",
        sha256="f",
    )
    store.commit()
    [info] = store.versions()
    assert not info.partial
    assert store.node(info, "509.1").text == "full"


def test_identical_texts_are_stored_once(store):
    for label in ("20230101", "20240101"):
        store.add(
            ParseResult("cr-en", "cr", versions=[_version(label, [_node("100.1", "same text")], lang="en")]),
            path=label,
            sha256=label,
        )
    store.commit()
    assert store.conn.execute("SELECT COUNT(*) FROM contents").fetchone()[0] == 1
    assert [v.label for v, _ in store.rule_versions("mtg", "en", "100.1")] == ["20230101", "20240101"]


def test_version_order_pairs_japanese_with_english_date(store):
    for label, lang in (("20240101", "en"), ("20231117.0", "ja"), ("20231117", "en")):
        store.add(
            ParseResult("x", "cr", versions=[_version(label, [_node("100.1", label)], lang=lang)]),
            path=label,
            sha256=label,
        )
    store.commit()
    assert [v.label for v in store.versions("mtg", "en")] == ["20231117", "20240101"]
    assert store.get_version("mtg", "en", "latest").label == "20240101"
    assert store.find_version("20231117.0").lang == "ja"
    with pytest.raises(NotFound, match="unknown version"):
        store.get_version("mtg", "en", "19990101")


def test_open_refuses_other_files(tmp_path):
    bogus = tmp_path / "x.sqlite"
    bogus.write_bytes(b"not a database at all" * 10)
    with pytest.raises(StoreError, match="not a rulekb store"):
        Store.open(str(bogus))


# --- replacing a whole text is explicit (the contract every format's parser relies on) ----------


def _whole(label, rules, lang="ja", truncated_at=0):
    nodes = [_node(r, f"text of {r}", pos=i) for i, r in enumerate(rules)]
    v = _version(label, nodes, lang=lang)
    v.truncated_at, v.truncated_why = truncated_at, "cut off" if truncated_at else ""
    v.partial = bool(truncated_at)  # what ingest.common.finish makes of a truncated text
    return ParseResult("cr-ja", "cr", versions=[v])


def _dump(store):
    return [(v.label, v.partial, v.clauses, [(n.rule, n.text) for n in store.nodes(v)]) for v in store.versions()]


FULL = ["5", "509", "509.1", "509.1a", "509.1b", "509.2", "510", "510.1"]


def test_a_truncated_text_never_replaces_a_whole_one(store):
    store.add(_whole("20260116.0", FULL), path="full.txt", sha256="a")
    store.commit()
    before = _dump(store)
    with pytest.raises(InputError) as exc:
        store.add(_whole("20260116.0", FULL[:4], truncated_at=42), path="cut.txt", sha256="b")
    assert str(exc.value).startswith("cut.txt:42: the text ends early (cut off; 2 clauses)")
    assert "whole text of mtg/ja/20260116.0 (5 clauses)" in str(exc.value) and "--replace" in str(exc.value)
    store.conn.rollback()  # the CLI drops the whole generation; here the transaction
    assert _dump(store) == before


def test_a_shorter_text_is_refused_at_the_line_where_a_clause_goes_missing(store):
    store.add(_whole("20260116.0", FULL), path="full.txt", sha256="a")
    shorter = _whole("20260116.0", [r for r in FULL if r != "509.1b"])
    with pytest.raises(InputError) as exc:
        store.add(shorter, path="short.txt", sha256="b")
    # 509.1a is the clause before the missing one: node 4 of the shorter text, line 4
    assert str(exc.value).startswith(
        "short.txt:4: 4 clauses where the KB's mtg/ja/20260116.0 has 5 (509.1b is missing here)"
    )


def test_replace_lets_a_truncated_text_in_as_partial(store):
    store.add(_whole("20260116.0", FULL), path="full.txt", sha256="a")
    notes = store.add(_whole("20260116.0", FULL[:4], truncated_at=42), path="cut.txt", sha256="b", replace=True)
    assert "replaced it with this truncated one" in notes[0]
    [(label, partial, clauses, nodes)] = _dump(store)
    assert (label, partial, clauses) == ("20260116.0", True, 2) and [r for r, _ in nodes] == FULL[:4]
    # and a whole text then supersedes the partial one, as any whole text supersedes fragments
    store.add(_whole("20260116.0", FULL), path="full.txt", sha256="c")
    assert _dump(store)[0][:3] == ("20260116.0", False, 5)


def test_a_whole_text_with_as_many_clauses_replaces_with_a_note(store):
    store.add(_whole("20260116.0", FULL), path="full.txt", sha256="a")
    notes = store.add(_whole("20260116.0", FULL + ["510.2"]), path="more.txt", sha256="b")
    assert notes == ["version mtg/ja/20260116.0 already held a whole text (5 clauses): replaced it (6 clauses)"]
    assert _dump(store)[0][2] == 6


def test_a_truncated_text_of_a_new_version_is_stored_as_partial_and_fragments_still_merge(store):
    store.add(_whole("20260116.0", FULL[:4], truncated_at=9), path="cut.txt", sha256="a")
    assert _dump(store)[0][:3] == ("20260116.0", True, 2)
    quote = ParseResult("mtgwiki", "quote", versions=[_version("20260116.0", [_node("510.1", "q")], partial=True)])
    store.add(quote, path="q", sha256="q")
    assert _dump(store)[0][:3] == ("20260116.0", True, 3)


def test_kept_counts_follow_merges_and_replacements_and_equal_a_fresh_count(tmp_path, store):
    """The counts ``versions`` reads (kept by ``add``) are those of a scan of every node, whatever happened."""
    frag = _version("20231117.0", [_node("509.1", "まず…"), _node("509.1a", "防御…")], partial=True)
    store.add(ParseResult("viewer", "cr", versions=[frag]), path="a.txt", sha256="a")
    more = _version("20231117.0", [_node("510", title="戦闘ダメージ"), _node("510.1", "戦闘…")], partial=True)
    store.add(ParseResult("viewer", "cr", versions=[more]), path="b.txt", sha256="b")
    counts = lambda: [(v.label, v.clauses, v.headings, v.terms, v.documents) for v in store.versions()]  # noqa: E731
    assert counts() == [("20231117.0", 3, 1, 0, 2)]
    whole = _version("20231117.0", [_node("5", title="ターン"), _node("509", title="ブロック"), _node("509.1", "全文")])
    whole.terms.append(Term("ブロック", english="block", source="glossary"))
    store.add(ParseResult("cr-ja", "cr", versions=[whole]), path="c.txt", sha256="c")
    store.add(
        ParseResult("cr-en", "cr", versions=[_version("20231117", [_node("509.1", "x")], lang="en")]),
        path="d",
        sha256="d",
    )
    store.commit()
    assert counts() == [("20231117", 1, 0, 0, 1), ("20231117.0", 1, 2, 1, 3)]  # English first; the whole text
    kept = counts()
    store.conn.execute("DROP TABLE version_counts")  # as a store written before the table existed
    store._versions_cache = None
    assert counts() == kept  # counted by scanning: the same
    store.add(
        ParseResult("cr-en", "cr", versions=[_version("20240607", [_node("1", title="a")], lang="en")]),
        path="e",
        sha256="e",
    )
    assert store.has_table("version_counts")  # made again, for every version
    assert [c for c in counts() if c[0] != "20240607"] == kept
