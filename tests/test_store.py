"""The SQLite store: versions, merging fragments, content addressing, reading back."""

import json
import os
import re
import sqlite3
from datetime import date

import pytest

from kb.errors import InputError, NotFound, StoreError
from kb.model import ParsedVersion, ParseResult, Reference, RuleNode, Term
from kb.store import SCHEMA_VERSION, Store, schema
from tests.helpers import CORPUS, rulekb


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
    kept = sorted(store.conn.execute("SELECT * FROM version_counts"))
    store.conn.execute("DELETE FROM version_counts")
    store.conn.execute(schema.COUNT_VERSIONS)  # what the migration to version 4 counts: every node scanned
    assert sorted(store.conn.execute("SELECT * FROM version_counts")) == kept


# --- one schema version; older stores migrate when opened for writing ------------------------------
OLD_LINEAGE = (  # the lineage table as a version-2 build step made it, before the editorial verdict
    "CREATE TABLE lineage(game TEXT NOT NULL, lang TEXT NOT NULL, old_vid INTEGER NOT NULL, new_vid INTEGER NOT NULL,"
    " old_rule TEXT, new_rule TEXT, kind TEXT NOT NULL, similarity REAL NOT NULL, reference_only INTEGER NOT NULL)"
)


def _layout(path) -> dict[str, list[str]]:
    """Every table and index of a store file, with the columns of each table."""
    db = sqlite3.connect(path)
    try:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY 1")]
        return {n: [c[1] for c in db.execute(f"PRAGMA table_info({n})")] for n in names if not n.startswith("sqlite_")}
    finally:
        db.close()


def _version_2_store(path) -> None:
    """A store as rulekb wrote it at schema version 2: texts, and a lineage table without ``editorial``."""
    st = Store.create(str(path))
    st.add(
        ParseResult("cr-en", "cr", versions=[_version("20240101", [_node("100.1", "a")], lang="en")]),
        path="a",
        sha256="a",
    )
    st.commit()
    st.close()
    db = sqlite3.connect(path)
    db.executescript(
        "DROP TABLE lineage; DROP TABLE alignments; DROP TABLE link_runs; DROP TABLE link_citations;"
        " DROP TABLE version_counts;"
        f"{OLD_LINEAGE}; INSERT INTO lineage VALUES('mtg', 'en', 1, 2, '100.1', '100.2', 'moved', 1.0, 0);"
        "UPDATE meta SET value='2' WHERE key='schema_version';"
    )
    db.close()


def test_a_version_2_store_is_refused_read_only_and_migrated_for_writing(tmp_path):
    old, fresh = tmp_path / "old.sqlite", tmp_path / "fresh.sqlite"
    _version_2_store(old)
    with pytest.raises(StoreError) as exc:
        Store.open(str(old))
    assert str(exc.value) == (
        f"{old}: schema version 2 is older than this rulekb reads ({SCHEMA_VERSION}): rebuild it with `rulekb build`"
        " (`rulekb ingest` upgrades a copy too)"
    )
    st = Store.open(str(old), write=True)
    assert st.get_meta("schema_version") == str(SCHEMA_VERSION) == "4"
    assert st.has_lineage()  # the version-2 build filled the table it made
    assert st.lineage_link("fwd", 1, "100.1") == ("moved", "100.2", 1.0, 0)
    assert st.lineage_counts() == [(1, 2, "moved", 1, 0, 0)]  # the new column reads 0: not known to be editorial
    assert [n.text for n in st.nodes(st.get_version("mtg", "en", "20240101"))] == ["a"]
    assert [(v.label, v.clauses, v.documents) for v in st.versions()] == [("20240101", 1, 1)]  # counted once
    st.close()
    Store.create(str(fresh)).close()
    assert _layout(old) == _layout(fresh)  # migrated: the same tables, indexes and columns as a new store
    Store.open(str(old)).close()  # and now it serves


def test_a_version_2_store_without_derived_tables_migrates_without_lineage(tmp_path):
    path = tmp_path / "bare.sqlite"
    _version_2_store(path)
    sqlite3.connect(path).executescript("DROP TABLE lineage; DELETE FROM meta WHERE key='lineage_built'")
    st = Store.open(str(path), write=True)
    assert not st.has_lineage() and st.last_link_result() is None and st.alignment(1, 1) is None
    st.close()


def test_a_newer_or_a_too_old_store_is_refused_with_what_to_do(tmp_path):
    path = tmp_path / "kb.sqlite"
    Store.create(str(path)).close()
    for value, write, message in (
        (
            "5",
            False,
            f"schema version 5 is newer than this rulekb reads ({SCHEMA_VERSION}): upgrade rulekb, or rebuild",
        ),
        ("5", True, "schema version 5 is newer than this rulekb reads"),
        ("1", True, "schema version 1 is too old to upgrade: rebuild it with `rulekb build`"),
    ):
        db = sqlite3.connect(path)
        with db:
            db.execute("UPDATE meta SET value=? WHERE key='schema_version'", (value,))
        db.close()
        with pytest.raises(StoreError, match=re.escape(message)):
            Store.open(str(path), write=write)
        db = sqlite3.connect(path)
        assert db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == (value,)  # untouched
        db.close()


def test_the_cli_says_in_one_line_to_rebuild_an_older_kb(tmp_path):
    gen = tmp_path / "home" / "gen-old"
    gen.mkdir(parents=True)
    _version_2_store(gen / "kb.sqlite")
    os.symlink(gen.name, tmp_path / "home" / "current")
    run = rulekb("versions", home=tmp_path / "home")
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "schema version 2 is older" in run.stderr and "`rulekb build`" in run.stderr


def test_an_ingest_upgrades_an_older_kb_in_its_new_generation(tmp_path):
    home = tmp_path / "home"
    gen = home / "gen-old"
    gen.mkdir(parents=True)
    _version_2_store(gen / "kb.sqlite")
    os.symlink(gen.name, home / "current")
    seed = CORPUS / "003_1192bed475bff8cb.txt"  # a viewer page: a new version
    run = rulekb("ingest", seed, home=home)
    assert run.returncode == 0, run.stderr
    assert os.readlink(home / "current") != gen.name  # a new generation, swapped in
    rows = {(r["lang"], r["version"]) for r in json.loads(rulekb("versions", "--json", home=home).stdout)}
    assert rows == {("en", "20240101"), ("ja", "20231117.0")}  # the old KB's text kept, the new one added
