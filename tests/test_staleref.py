"""Stale references of a translation: a number the translators kept after the English renumbered.

A hand-made KB of two English editions (Handling Illegal Actions 728 -> 729 when a rule came before
it) and a translation of the newer one that still prints the old number; then the web pages on it.
"""

from __future__ import annotations

from datetime import date

import pytest

from ingest.common import find_references
from kb import ruleid
from kb.build import derive
from kb.model import ParsedVersion, ParseResult, RuleNode
from kb.store import Store
from kb.versions import staleref
from tests._webkb import make_generation
from web import create_app

EN_OLD_509_1 = 'The game returns to the moment before the declaration (see rule 728, "Handling Illegal Actions").'
EN_509_1 = EN_OLD_509_1.replace("728", "729")
JA_509_1 = "ゲームは指定の始まる前まで巻き戻される。(rule 728〔不正な処理の扱い〕参照。)"
JA_510_1 = "サブゲームについては rule 728〔サブゲーム〕参照。"  # its own 728 is Subgames: it says what it cites
JA_601_2 = "不正な処理は取り消す(rule 728 参照)。"  # no title: the English lineage shows that 729 was 728
JA_602_1 = "固定語の能力は rule 509.1 参照。"  # the English cites another clause, one that never was 509.1


def _version(lang: str, label: str, when: date, texts: dict[str, str], titles: dict[str, str]) -> ParseResult:
    """One version holding ``texts`` (clause id -> text) and headings ``titles``, in document order."""
    nodes = []
    for i, rule in enumerate(sorted(set(texts) | set(titles), key=ruleid.sort_key)):
        text = texts.get(rule, "")
        parent = ruleid.parent(rule) if ruleid.is_clause(rule) else None
        nodes.append(
            RuleNode(rule, text=text, title=titles.get(rule, ""), references=find_references(text), parent=parent)
        )
        nodes[-1].position, nodes[-1].line = i, i + 1
    return ParseResult(format="test", kind="cr", versions=[ParsedVersion("mtg", lang, label, when, nodes=nodes)])


EN_HEADS = {
    "509": "Declare Blockers Step",
    "510": "Combat Damage Step",
    "601": "Casting Spells",
    "602": "Activating Abilities",
}
JA_HEADS = {
    "509": "ブロック・クリーチャー指定ステップ",
    "510": "戦闘ダメージ・ステップ",
    "601": "呪文を唱えること",
    "602": "起動型能力の起動",
}


def _texts() -> list[ParseResult]:
    old, new = date(2023, 11, 17), date(2024, 6, 7)
    return [
        _version(
            "en",
            "20231117",
            old,
            {
                "509.1": EN_OLD_509_1,
                "510.1": "See rule 727 for subgames.",
                "601.2": "Undo illegal actions (see rule 728).",
                "602.1": "See rule 510.1 for anchor words.",
            },
            EN_HEADS | {"727": "Subgames", "728": "Handling Illegal Actions"},
        ),
        _version(
            "en",
            "20240607",
            new,
            {
                "509.1": EN_509_1,
                "510.1": "See rule 727 for station cards.",
                "601.2": "Undo illegal actions (see rule 729).",
                "602.1": "See rule 510.1 for anchor words.",
            },
            EN_HEADS | {"727": "Station Cards", "728": "Subgames", "729": "Handling Illegal Actions"},
        ),
        _version(
            "ja",
            "20240607.0",
            new,
            {"509.1": JA_509_1, "510.1": JA_510_1, "601.2": JA_601_2, "602.1": JA_602_1},
            JA_HEADS | {"727": "ステーション・カード", "728": "サブゲーム", "729": "不正な処理の扱い"},
        ),
    ]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return make_generation(tmp_path_factory.mktemp("stale-home"), results=_texts())


@pytest.fixture(scope="module")
def store(home):
    s = Store.open(str(home / "current" / "kb.sqlite"))
    yield s
    s.close()


def test_a_reference_printed_with_the_old_number_is_found_by_its_title_and_lineage(store):
    ja = store.get_version("mtg", "ja", "20240607.0")
    fixes = {f["clause"]: f for f in staleref.stored(ja)["fixes"]}
    fix = fixes["509.1"]
    assert (fix["printed"], fix["meant"], fix["english"]) == ("728", "729", "509.1")
    assert fix["raw"] == "rule 728〔不正な処理の扱い〕" and JA_509_1[fix["start"] : fix["end"]] == fix["raw"]
    assert fix["evidence"] == ["title", "renumbered"]
    # Without a title, the English lineage alone shows it: 729 was 728 in the edition before.
    assert (fixes["601.2"]["printed"], fixes["601.2"]["meant"], fixes["601.2"]["evidence"]) == (
        "728",
        "729",
        ["renumbered"],
    )
    assert staleref.stored(ja)["checked"] == 4


def test_what_the_text_names_itself_or_the_english_lineage_does_not_explain_is_left_alone(store):
    fixes = {f["clause"] for f in staleref.stored(store.get_version("mtg", "ja", "20240607.0"))["fixes"]}
    assert "510.1" not in fixes  # 〔サブゲーム〕 is what its 728 is called: the translation says what it cites
    assert "602.1" not in fixes  # the English cites 510.1, which never was 509.1: no evidence, no change
    assert staleref.stored(store.get_version("mtg", "en", "20240607"))["fixes"] == []  # the English is the yardstick


def test_a_translation_without_an_exact_pairing_is_not_checked(tmp_path):
    texts = _texts()
    quote = texts[2].versions[0]  # the same text, dated after every English edition: its pairing is a guess
    quote.label, quote.effective = "20260807.0", date(2026, 8, 7)
    store = Store.create(str(tmp_path / "kb.sqlite"))
    for i, r in enumerate(texts):
        store.add(r, path=f"doc{i}", sha256=str(i))
    derive(store)
    v = store.get_version("mtg", "ja", "20260807.0")
    assert v.meta["renders"]["method"] == "newer than every held edition" and not v.meta["renders"]["exact"]
    assert staleref.stored(v)["fixes"] == [] and staleref.find(store, v) == []


@pytest.fixture(scope="module")
def client(home):
    return create_app(home, {"WARMUP": False}).test_client()


def test_the_clause_links_where_the_rule_is_meant_and_marks_the_text_as_printed(client):
    data = client.get("/api/mtg/ja/20240607.0/509.1").get_json()
    [stale] = [s for s in data["segments"] if s[3]]
    assert stale[0] == "rule 728〔不正な処理の扱い〕"  # the text as printed
    assert (stale[1], stale[2]) == ("/mtg/ja/20240607.0/729", "729")
    assert stale[3] == {"kind": "stale", "printed": "728", "meant": "729"}
    assert data["references"] == [
        {"rule": "729", "raw": "rule 728〔不正な処理の扱い〕", "url": "/mtg/ja/20240607.0/729", "printed": "728"}
    ]
    html = client.get("/mtg/ja/20240607.0/509.1").get_data(as_text=True)
    assert 'class="ref stale" href="/mtg/ja/20240607.0/729" data-rule="729">rule 728〔不正な処理の扱い〕</a>' in html
    assert "〔原文ママ。正しくは 729〕" in html


def test_one_page_lists_them_with_counts(client):
    data = client.get("/api/mtg/ja/20240607.0/references").get_json()
    assert (data["checked"], data["stale"], data["ids"]) == (4, 2, 2)
    assert data["by_change"] == [{"change": "728 → 729", "count": 2}]
    assert data["by_evidence"] == {"title": 1, "renumbered": 2}
    assert [r["clause_url"] for r in data["references"]] == [
        "/mtg/ja/20240607.0/509.1#509.1",
        "/mtg/ja/20240607.0/601.2#601.2",
    ]
    assert data["references"][0]["english_url"] == "/mtg/en/20240607/509.1"
    html = client.get("/mtg/ja/20240607.0/references").get_data(as_text=True)
    assert "古い番号のままの参照" in html and "<b>2</b> 件" in html
    assert client.get("/api/mtg/en/20240607/references").get_json()["edition"] is None  # nothing to check it against
