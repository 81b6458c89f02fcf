"""A small hand-made KB for the web tests (ja and en editions, an article, terms, hostile markup)."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from ingest.common import find_references
from kb.build import derive
from kb.model import Article, ParsedVersion, ParseResult, RuleNode, Term
from kb.store import Store

XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def _node(rule: str, text: str = "", title: str = "", examples=(), parent: str | None = None, pos: int = 0) -> RuleNode:
    return RuleNode(
        rule=rule,
        text=text,
        title=title,
        examples=list(examples),
        references=find_references(text),
        parent=parent,
        position=pos,
        line=pos + 1,
    )


def _version(game, lang, label, nodes, *, effective=None, partial=False, terms=()) -> ParsedVersion:
    for i, n in enumerate(nodes):
        n.position, n.line = i, i + 1
    return ParsedVersion(
        game=game, lang=lang, label=label, effective=effective, partial=partial, nodes=list(nodes), terms=list(terms)
    )


JA_509_1_2023 = (
    "まず、防御プレイヤーはブロック・クリーチャーを指定する。このターン起因処理はスタックを用いない。"
    "(rule 728〔不正な処理の扱い〕参照。)"
)
JA_509_1_2026 = JA_509_1_2023.replace("728", "733")
JA_509_1C = "防御プレイヤーは、自分がコントロールしている各クリーチャーがブロック強制に従っているかどうかを調べる。"
EN_509_1 = (
    "First, the defending player declares blockers. This turn-based action doesn't use the stack. "
    'To declare blockers, the defending player follows the steps below, in order. (See rule 728, "Handling Illegal Actions.")'
)


def versions() -> list[ParseResult]:
    """The documents of the test KB, as parsers would produce them."""
    ja_2023 = _version(
        "mtg",
        "ja",
        "20231117.0",
        [
            _node("5", title="ターンの構造"),
            _node("509", title="ブロック・クリーチャー指定ステップ", parent="5"),
            _node("509.1", JA_509_1_2023, parent="509"),
            _node(
                "509.1a",
                "防御プレイヤーは、どのクリーチャーがブロックするかを選ぶ。",
                parent="509.1",
                examples=["例：プレイヤーはブロック・クリーチャーを1体選ぶ。"],
            ),
            _node("509.1c", JA_509_1C, parent="509.1"),
            _node("509.2", "次に、ブロックされているクリーチャーの順番を決める。", parent="509"),
            _node("510", title="戦闘ダメージ・ステップ", parent="5"),
            _node("510.1", "戦闘ダメージを割り振る。" + XSS, parent="510"),
            _node("728", title="不正な処理の扱い"),
        ],
        effective=date(2023, 11, 17),
        partial=True,
        terms=[
            Term(term="ブロックされているクリーチャー", english="blocked creature", rule="509.1", source="inline"),
            Term(term="ブロック・クリーチャー", english="blocking creature", rule="509.1a", source="inline"),
        ],
    )
    ja_2026 = _version(
        "mtg",
        "ja",
        "20260807.0",
        [
            _node("509.1", JA_509_1_2026),
            _node("509.1c", JA_509_1C),
        ],
        partial=True,
    )
    en_2023 = _version(
        "mtg",
        "en",
        "20231117",
        [
            _node("5", title="Turn Structure"),
            _node("509", title="Declare Blockers Step", parent="5"),
            _node("509.1", EN_509_1, parent="509"),
            _node(
                "509.1a",
                "The defending player chooses which creatures that they control, if any, will block.",
                parent="509.1",
            ),
            _node(
                "509.1c",
                "The defending player checks each creature they control to see whether it's affected by any requirements.",
                parent="509.1",
            ),
            _node("728", title="Handling Illegal Actions"),
        ],
        effective=date(2023, 11, 17),
        terms=[
            Term(
                term="Blocking Creature",
                english="Blocking Creature",
                definition="A creature that blocks. See rule 509.",
            ),
        ],
    )
    en_2024 = _version(
        "mtg",
        "en",
        "20240607",
        [
            _node("5", title="Turn Structure"),
            _node("509", title="Declare Blockers Step", parent="5"),
            _node("509.1", EN_509_1.replace("728", "729"), parent="509"),
            _node(
                "509.1a",
                "The defending player chooses which creatures they control, if any, will block.",
                parent="509.1",
            ),
            _node(
                "509.1d",
                "The defending player checks each creature they control to see whether it's affected by any requirements.",
                parent="509.1",
            ),
            _node("509.2", "A brand new clause about blocking.", parent="509"),
            _node("309.2", "Dungeon is a card type seen only on nontraditional Magic cards."),
            _node("729", title="Handling Illegal Actions"),
        ],
        effective=date(2024, 6, 7),
    )
    old = _version(
        "mtg",
        "ja",
        "5.5.0.0",
        [
            _node("3", title="ターン進行"),
            _node("309", title="ブロック・クリーチャー指定ステップ", parent="3"),
            _node("309.1", "防御プレイヤーはブロック・クリーチャーを指定する。", parent="309"),
        ],
    )
    old.meta["estimated"] = {"best": "20231117"}  # as the versions service records it
    dm = _version(
        "dm",
        "ja",
        "1.48",
        [
            _node("506", title="ブロック・クリーチャー指定ステップ"),
            _node("506.1", "ブロッカーを持つクリーチャーでブロックできる。", parent="506"),
        ],
        effective=date(2025, 12, 17),
    )
    article = Article(
        title="ブロック強制",
        game="mtg",
        lang="ja",
        text="ブロック強制（Blocking Requirement）は、クリーチャーを強制的にブロックさせる効果の総称。",
        cites=["509.1", "509.1c"],
        cites_version="20260807.0",
    )
    return [
        ParseResult(format="test", kind="cr", versions=[ja_2023]),
        ParseResult(format="test", kind="quote", versions=[ja_2026], articles=[article]),
        ParseResult(format="test", kind="cr", versions=[en_2023]),
        ParseResult(format="test", kind="cr", versions=[en_2024]),
        ParseResult(format="test", kind="cr", versions=[old]),
        ParseResult(format="test", kind="cr", versions=[dm]),
    ]


def make_generation(
    home: Path, name: str = "gen-a", results: list[ParseResult] | None = None, *, index: bool = False
) -> Path:
    """Write a store (and, with ``index``, its search index) into ``home/name``; point ``home/current`` at it."""
    gen = home / name
    gen.mkdir(parents=True)
    store = Store.create(str(gen / "kb.sqlite"))
    for i, result in enumerate(results if results is not None else versions()):
        store.add(result, path=f"doc{i}.txt", sha256=f"{name}-{i}")
    derive(store)  # as every build does: dates placed, translations paired, lineage built
    store.commit()
    if index:
        from kb.search.index import build_index

        build_index(store, gen / "index")
    store.close()
    tmp = home / ".current-tmp"
    os.symlink(name, tmp)
    os.replace(tmp, home / "current")
    return home
