"""Defined terms in rule text: which words link, where, and to what (kb.versions.termlinks, web pages)."""

from __future__ import annotations

from datetime import date

import pytest

from ingest.common import find_references
from kb.model import ParsedVersion, ParseResult, RuleNode, Term
from kb.store import Store
from kb.versions import termlinks
from kb.versions.termlinks import Matcher
from tests._webkb import make_generation
from web import create_app


def test_japanese_terms_match_longest_first_and_never_inside_a_longer_katakana_word():
    m = Matcher("ja", {"ブロック", "ブロック・クリーチャー", "タップ", "戦場"})
    text = "ブロック・クリーチャーをアンタップし、戦場に出す。タップする。ブロックする。"
    assert [(text[s:e], k) for s, e, k in m.find(text)] == [
        ("ブロック・クリーチャー", "ブロック・クリーチャー"),  # not ブロック inside it
        ("戦場", "戦場"),  # タップ inside アンタップ is no use of タップ
        ("タップ", "タップ"),
        ("ブロック", "ブロック"),
    ]


def test_english_terms_are_whole_words_plurals_too_and_names_match_as_spelled():
    m = Matcher("en", {"deathtouch", "double", "creature", "case"}, proper={"case": "Case"})
    text = "Creatures with deathtouch; a double-faced card; in that case, sacrifice a Case. (See “Double.”)"
    assert [text[s:e] for s, e, _ in m.find(text)] == ["Creatures", "deathtouch", "Case"]


def _node(rule, text="", title="", parent=None):
    return RuleNode(rule=rule, text=text, title=title, references=find_references(text), parent=parent)


def _kb() -> list[ParseResult]:
    nodes = [
        _node("702", title="キーワード能力"),
        _node("702.2", title="接死／Deathtouch", parent="702"),
        _node("702.2a", "接死は常在型能力である。", parent="702.2"),
        _node(
            "702.2b",
            "接死を持つ発生源からダメージを与えられたクリーチャーは破壊される。接死は重複しない。",
            parent="702.2",
        ),
        _node("702.19", title="トランプル／Trample", parent="702"),
        _node("702.19a", "トランプルを持つクリーチャーが接死も持つなら、致死ダメージは1点である。", parent="702.19"),
        _node("732", title="不正な処理の扱い"),
    ]
    for i, n in enumerate(nodes):
        n.position, n.line = i, i + 1
    terms = [
        Term(
            term="接死", english="Deathtouch", definition="キーワード能力。rule 702.2〔接死〕参照。", source="glossary"
        ),
        Term(term="トランプル", english="Trample", definition="rule 702.19〔トランプル〕参照。", source="glossary"),
        # the definition prints 731, but the bracketed title names 732 (a stale number: the title decides)
        Term(term="不正な処理", definition="rule 731〔不正な処理の扱い〕参照。", source="glossary"),
        Term(
            term="与える", definition="ダメージを与えること。", source="glossary"
        ),  # an everyday word, no rule named after it
        Term(term="あなた、あなたの", definition="その能力のコントローラー。", source="glossary"),  # several spellings
    ]
    version = ParsedVersion("mtg", "ja", "20260116.0", date(2026, 1, 16), nodes=nodes, terms=terms)
    return [ParseResult(format="test", kind="cr", versions=[version])]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return make_generation(tmp_path_factory.mktemp("terms-home"), results=_kb())


def test_the_vocabulary_names_the_clause_each_term_is_defined_by(home):
    store = Store.open(str(home / "current" / "kb.sqlite"))
    v = store.get_version("mtg", "ja", "20260116.0")
    assert termlinks.vocabulary(store, v) == {"接死": "702.2", "トランプル": "702.19", "不正な処理": "732"}
    store.close()


def test_each_term_links_once_per_clause_and_not_inside_the_rule_it_defines(home):
    client = create_app(home, {"WARMUP": False}).test_client()
    data = client.get("/api/mtg/ja/20260116.0/702.19a").get_json()
    marked = [(t, url, mark["term"], mark["rule"]) for t, url, _, mark in data["segments"] if mark]
    assert marked == [("接死", "/glossary/mtg/ja/%E6%8E%A5%E6%AD%BB", "接死", "702.2")]  # not トランプル in 702.19a
    rule_page = client.get("/api/mtg/ja/20260116.0/702.2").get_json()
    b = next(d for d in rule_page["descendants"] if d["rule"] == "702.2b")
    assert not any(seg[3] for seg in b["segments"])  # 702.2b is inside 接死's own rule
    html = client.get("/mtg/ja/20260116.0/702.19a").get_data(as_text=True)
    assert (
        '<a class="term" href="/glossary/mtg/ja/%E6%8E%A5%E6%AD%BB" data-term="接死" data-defined="702.2">接死</a>'
        in html
    )


def test_a_term_links_to_its_glossary_entry_page(home):
    client = create_app(home, {"WARMUP": False}).test_client()
    entry = client.get("/api/glossary/mtg/ja/接死").get_json()
    assert (entry["term"], entry["counterpart"], entry["definition"]) == (
        "接死",
        "Deathtouch",
        "キーワード能力。rule 702.2〔接死〕参照。",
    )
    assert entry["cites"] == [{"rule": "702.2", "url": "/mtg/ja/20260116.0/702.2", "printed": None}]
    assert entry["counterpart_url"] is None  # the KB has no English entry "Deathtouch" to link to
    page = client.get("/glossary/mtg/ja/接死").get_data(as_text=True)
    assert '<h1 lang="ja">接死' in page and 'href="/mtg/ja/20260116.0/702.2"' in page
    missing = client.get("/glossary/mtg/ja/存在しない語")
    assert missing.status_code == 404 and "用語集に「存在しない語」はありません" in missing.get_data(as_text=True)
