"""The legacy-ja ingestor on the 私訳 5.5.0.0 seed (one collapsed line) and on fixtures."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ingest import parse_file, parse_text
from ingest.common import Hints
from kb import ruleid
from tests import helpers
from tests.helpers import CORPUS

SEED = CORPUS / "004_141578bca00711b0.txt"
FIXTURES = helpers.FIXTURES / "legacy_ja"


def _parse(path: Path):
    return parse_file(str(path), Hints(format="legacy-ja", path=str(path)))


@pytest.fixture(scope="module")
def seed():
    return _parse(SEED)


def _node(version, rule):
    return next(n for n in version.nodes if n.rule == rule)


def _independent_clause_ids(text: str) -> list[str]:
    """Clause starts found by whitespace tokenising: "309.2." or "309.2a", not right after the word rule."""
    body = text[text.index("-------- マジック・ザ・ギャザリング") :]
    tokens = body.split()
    return [
        tok.rstrip(".")
        for prev, tok in zip(tokens, tokens[1:], strict=False)
        if re.fullmatch(r"\d{3}\.\d+\.|\d{3}\.\d+[a-z]{1,2}", tok) and not prev.lower().endswith("rule")
    ]


def test_version_and_header_metadata(seed):
    assert not seed.errors
    (v,) = seed.versions
    assert (v.game, v.lang, v.label, v.effective) == ("mtg", "ja", "5.5.0.0", None)
    assert v.meta["title"] == "マジック総合ルール(私訳第 5.5.0.0 版)"
    assert v.meta["translator"] == "*ぱお*/米村 薫"
    assert "http://mjmj.info/data/CompRules_j.html" in v.meta["urls"]
    assert v.meta["introduction"].startswith("この文書は、マジック・ザ・ギャザリングの基本的なゲームを理解した人たち")


def test_clauses_run_in_document_order_from_100_1_to_410_8(seed):
    v = seed.versions[0]
    clauses = [n.rule for n in v.nodes if ruleid.is_clause(n.rule)]
    assert clauses[0] == "100.1" and clauses[-1] == "410.8"
    keys = [ruleid.sort_key(r) for r in clauses]
    assert keys == sorted(keys) and len(set(clauses)) == len(clauses)
    # Verified independently: a whitespace tokeniser with no sequence logic finds the same ids.
    independent = _independent_clause_ids(SEED.read_text(encoding="utf-8"))
    assert clauses == independent
    assert len(clauses) == len(independent) == 472


def test_inline_references_never_start_a_clause(seed):
    v = seed.versions[0]
    ids = [n.rule for n in v.nodes]
    assert "410.9" not in ids  # "rule 410.9 も参照" in 410.6
    assert ids.index("102.3g") == ids.index("102.3f") + 1  # cited early by 102.2b as "rule 102.3g 参照"
    assert _node(v, "102.2b").text.endswith("rule 102.3g 参照)")
    assert "rule 410.9 も参照。" in _node(v, "410.6").text
    assert [r.rule for r in _node(v, "410.6").references] == ["410.9"]
    assert _node(v, "409.1i").text.startswith("rule 409.1a から rule 409.1h で解説されたステップが完了したら")


def test_headings_100_to_410_carry_their_contents_titles(seed):
    v = seed.versions[0]
    contents = dict(v.meta["contents"])
    headings = [n for n in v.nodes if not ruleid.is_clause(n.rule)]
    assert [n.rule for n in headings if len(n.rule) == 1] == ["1", "2", "3", "4"]
    rules = [n for n in headings if len(n.rule) == 3]
    assert rules[0].rule == "100" and rules[-1].rule == "410"
    assert all(n.title == contents[n.rule] for n in headings if n.rule in contents)
    assert _node(v, "309").title == "ブロック・クリーチャー指定ステップ"
    assert _node(v, "3").title == "ターン進行"
    # 211 is not in the table of contents; its body line is its title.
    assert _node(v, "211").title == "[この節は他のルールの番号を維持するため空欄に保たれている]"
    expected = [rid for rid, _ in v.meta["contents"] if len(rid) == 3 and int(rid) <= 410] + ["211"]
    assert sorted(n.rule for n in rules) == sorted(expected)
    assert len(rules) == 49


def test_contents_list_is_read_whole(seed):
    contents = seed.versions[0].meta["contents"]
    text = SEED.read_text(encoding="utf-8")
    block = text[text.index("-------- もくじ --------") + 20 : text.index("-------- マジック・ザ・ギャザリング")]
    assert len(contents) == len(re.findall(r"(?<!\S)\d{1,3}\. ", block)) == 92
    assert contents[0] == ("0", "はじめに") and contents[-1] == ("7", "用語集")
    assert ("421", "'無限'ループの処理") in contents


def test_examples_and_translator_notes_are_kept_apart(seed):
    v = seed.versions[0]
    n = _node(v, "212.1c")
    assert n.notes == ["訳注:カード・タイプに限らず、サブタイプでも上記の記述は同様の意味を持つべきである。"]
    assert len(n.examples) == 2
    assert n.examples[0].startswith("「全ての土地は1/1のクリーチャーである。それらは土地でもある。」という能力によって")
    assert n.examples[1].startswith(
        "「全てのアーティファクトは1/1のアーティファクト・クリーチャーである」という能力によって"
    )
    assert "訳注" not in n.text and "例:" not in n.text
    assert _node(v, "101.4b").examples[0].startswith("双頭巨人戦で、ボブとクレアが先攻チームである。")
    assert _node(v, "100.5").notes == ["訳注:日本語版は http://mjmj.info/data/ でも公開されている。"]
    assert "(訳注:0も含む)" in _node(v, "104.1b").text  # a parenthesised note stays in its sentence
    total_examples = sum(len(n.examples) for n in v.nodes)
    assert total_examples == len(re.findall(r"\s例[:：]", SEED.read_text(encoding="utf-8"))) == 39


def test_last_clause_is_truncated_with_a_warning(seed):
    v = seed.versions[0]
    last = v.nodes[-1]
    assert last.rule == "410.8" and last.truncated
    assert last.text.endswith("このルールは、テキスト内の他のところに「場合／if」条件があ")
    assert not any(n.truncated for n in v.nodes[:-1])
    assert any("410.8" in d.message and "cut off" in d.message for d in seed.warnings)
    assert v.partial  # rules 411-609 and the glossary are missing
    assert all(n.line == 1 for n in v.nodes)
    assert v.meta["offsets"]["100.1"] < v.meta["offsets"]["410.8"]


# --- fixtures: one parsing rule each ---------------------------------------------------------


@pytest.fixture(scope="module")
def truncated():
    return _parse(FIXTURES / "truncated.txt")


def test_fixture_examples_notes_and_continuation(truncated):
    v = truncated.versions[0]
    assert [n.rule for n in v.nodes] == ["1", "100", "100.1", "100.1a", "100.1b", "100.2", "100.2a", "101", "101.1"]
    n = _node(v, "100.1a")
    assert (n.text, n.examples, n.notes) == (
        "2人対戦は2人で開始される。",
        ["ボブとアリスの対戦。"],
        ["訳注:原文では100.1bとなっている。"],
    )
    assert _node(v, "100.2a").text == "負けとなる。\n続きの段落である。"


def test_fixture_inline_references_stay_in_text(truncated):
    v = truncated.versions[0]
    assert _node(v, "100.1").text == "このルールは2人以上のゲームに適用される。rule 100.2a 参照。"
    assert _node(v, "100.2").text == "勝利条件がある(rule 101.1 参照)。 101.1 も参照。"
    assert _node(v, "100.1").parent == "100"


def test_fixture_truncation_marks_partial(truncated):
    v = truncated.versions[0]
    assert v.nodes[-1].truncated and v.partial and v.label == "1.2.3.4"
    assert [d.message for d in truncated.warnings] == ["text ends inside 101.1 (cut off mid-clause); kept as truncated"]


def test_fixture_complete_text_is_not_partial():
    result = _parse(FIXTURES / "complete.txt")
    v = result.versions[0]
    assert not v.partial and not any(n.truncated for n in v.nodes) and not result.diagnostics


def test_missing_title_is_an_error_naming_the_file():
    result = parse_text(
        "-------- もくじ -------- 1. ゲーム 100. 原則 -------- x -------- 1. ゲーム 100. 原則 100.1. 文。",
        Hints(format="legacy-ja", path="old.txt"),
    )
    assert [str(e) for e in result.errors] == [
        "old.txt:1: error: no '私訳第 N.N.N.N 版' title: cannot tell the version; give --version"
    ]


def test_glossary_heading_ends_the_rules_and_lines_are_counted():
    text = (
        "======== マジック総合ルール(私訳第 2.0.0.0 版) ========\n-------- もくじ -------- 1. ゲーム 100. 原則 7. 用語集"
        " -------- 総合ルール --------\n1. ゲーム 100. 原則\n100.1. 文である。\n7. 用語集 アーティファクト 説明。"
    )
    result = parse_text(text, Hints(format="legacy-ja", path="multi.txt"))
    v = result.versions[0]
    assert [(n.rule, n.line, n.text) for n in v.nodes] == [("1", 3, ""), ("100", 3, ""), ("100.1", 4, "文である。")]
    assert not v.partial and [d.message for d in result.warnings] == [
        "the glossary (用語集) is not read by this format"
    ]
