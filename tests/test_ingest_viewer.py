"""The rules-viewer ingestor on seeds 000/003, a hand-written HTML page, and format detection."""

from pathlib import Path

import pytest

import ingest
from ingest import viewer
from ingest.common import Hints
from tests import helpers
from tests.helpers import CORPUS

FIXTURES = helpers.FIXTURES / "viewer"
SEED_509 = CORPUS / "000_69c867f839c48ea8.txt"
SEED_510 = CORPUS / "003_1192bed475bff8cb.txt"


def parse(path: Path, **hints):
    return ingest.parse_file(str(path), Hints(format="viewer", **hints))


def nodes_of(result):
    (version,) = result.versions
    return {n.rule: n for n in version.nodes}


def test_seed_509_clauses_and_version():
    result = parse(SEED_509)
    (version,) = result.versions
    assert (version.game, version.lang, version.label, version.partial) == ("mtg", "ja", "20231117.0", True)
    assert version.meta["version_source"] == "viewer default"
    assert not result.errors
    clauses = [n.rule for n in version.nodes if "." in n.rule]
    assert len(clauses) == 26
    assert clauses[0] == "509.1" and clauses[-1] == "509.7"
    assert "509.1i" in clauses and "509.5g" in clauses and "509.1l" not in clauses


def test_seed_509_headings_have_titles_and_tree():
    nodes = nodes_of(parse(SEED_509))
    assert nodes["5"].title == "ターンの構造"
    assert nodes["509"].title == "ブロック・クリーチャー指定ステップ"
    assert nodes["509"].parent == "5"
    assert nodes["509.1c"].parent == "509.1"
    assert nodes["509.2"].parent == "509"
    assert nodes["509.1"].line == 4


def test_seed_509_continuation_and_example():
    node = nodes_of(parse(SEED_509))["509.1b"]
    first, cont = node.text.split("\n")
    assert first.startswith("防御プレイヤーは、自分がコントロールしている")
    assert cont.startswith("この制限は回避能力")
    assert node.examples == [
        "攻撃クリーチャーが飛行とシャドーを持っていた場合、飛行を持っていてシャドーを持っていないクリーチャーはそれをブロックできない。"
    ]


def test_seed_509_references():
    nodes = nodes_of(parse(SEED_509))
    refs = {rule: [r.rule for r in n.references] for rule, n in nodes.items()}
    assert "728" in refs["509.1"]
    assert nodes["509.1"].references[0].raw == "rule 728〔不正な処理の扱い〕"
    assert refs["509.4a"] == ["509.1", "509.2", "509.3", "603"]
    assert refs["509.5c"] == ["509.1h"]
    assert refs["509.1g"] == ["506.4"]
    assert refs["509.1e"] == ["605"]


def test_seed_509_terms():
    (version,) = parse(SEED_509).versions
    pairs = {(t.term, t.english, t.rule) for t in version.terms}
    assert ("ブロックされているクリーチャー", "blocked creature", "509.1h") in pairs
    assert ("ブロックされなかったクリーチャー", "unblocked creature", "509.1h") in pairs
    # the trailing clause comma goes on both sides
    assert ("[クリーチャー]がブロックするたび", "Whenever [a creature] blocks", "509.5a") in pairs
    assert all(t.source == "inline" for t in version.terms)


def test_seed_510_examples():
    result = parse(SEED_510)
    nodes = nodes_of(result)
    assert len([r for r in nodes if "." in r]) == 10
    assert nodes["510"].title == "戦闘ダメージ・ステップ"
    assert len(nodes["510.1c"].examples) == 4
    assert all(e.startswith("攻撃クリーチャー《") for e in nodes["510.1c"].examples)
    assert len(nodes["510.2"].examples) == 1
    assert [r.rule for r in nodes["510.4"].references] == ["702.7", "702.4"]


def test_version_hint_and_marker_in_text():
    text = SEED_510.read_text(encoding="utf-8")
    hinted = viewer.parse(text, Hints(version="20240209.0"))
    assert hinted.versions[0].label == "20240209.0"
    assert hinted.versions[0].meta["version_source"] == "hint"
    marked = viewer.parse(text + "\n総合ルール 20250207.0 準拠\n", Hints())
    assert marked.versions[0].label == "20250207.0"
    assert marked.versions[0].meta["version_source"] == "text"
    assert not marked.diagnostics
    default = viewer.parse(text, Hints(path="x.txt"))
    assert [d.level for d in default.diagnostics] == ["warning"]


def test_example_then_paragraph_continues_the_example():
    text = "総合ルールビューア\n509. 見出し\n- 509.1 本文。\n例：一つ目の例。\n例の続き。\n- 509.2 次。\n"
    nodes = nodes_of(viewer.parse(text, Hints()))
    assert nodes["509.1"].text == "本文。"
    assert nodes["509.1"].examples == ["一つ目の例。\n例の続き。"]


def test_html_page():
    result = parse(FIXTURES / "509_page.html")
    (version,) = result.versions
    assert version.label == "20231117.0" and version.meta["version_source"] == "text"
    assert not result.errors
    nodes = {n.rule: n for n in version.nodes}
    # the sidebar table of contents and breadcrumb add nothing
    assert list(nodes) == ["5", "509", "509.1", "509.1a", "509.1b", "509.1c", "509.1h", "509.4a"]
    assert nodes["509"].title == "ブロック・クリーチャー指定ステップ"
    assert nodes["509.1"].text.startswith("まず、防御プレイヤーは")
    assert nodes["509.1"].text.endswith("(rule 728〔不正な処理の扱い〕参照。)")
    assert nodes["509.1b"].text.count("\n") == 1
    assert nodes["509.1b"].examples[0].startswith("攻撃クリーチャーが飛行とシャドー")
    assert [r.rule for r in nodes["509.1"].references] == ["728"]
    # a glossary link to a rule counts as a reference even though the text does not spell it out
    assert "702.111" in [r.rule for r in nodes["509.1c"].references]
    assert [r.rule for r in nodes["509.4a"].references] == ["509.1", "509.2", "509.3", "603"]
    assert ("ブロックされているクリーチャー", "blocked creature") in {(t.term, t.english) for t in version.terms}


def test_html_print_page_without_anchors():
    result = parse(FIXTURES / "510_print.html")
    (version,) = result.versions
    assert version.meta["version_source"] == "text" and version.label == "20231117.0"  # from "和訳 20231117.0 版"
    assert not result.errors
    nodes = {n.rule: n for n in version.nodes}
    # clauses found by the id their text starts with; the side menu's "510.1 (目次)" is not one
    assert list(nodes) == ["5", "510", "510.1", "510.1a", "510.1c", "510.1e", "510.2", "510.4"]
    assert nodes["510.1"].text.endswith("宣言する。")  # nested <li> clauses are not swallowed
    assert [e[:12] for e in nodes["510.1c"].examples] == ["攻撃クリーチャー《巨森を", "攻撃クリーチャー《超大な"]
    assert nodes["510.2"].text.startswith("次に、") and len(nodes["510.2"].examples) == 1  # <div data-rule><p>510.2 …
    assert [r.rule for r in nodes["510.1e"].references] == ["728"]
    assert [r.rule for r in nodes["510.4"].references] == ["702.7", "702.4"]


def test_html_nested_clause_elements_are_read_on_their_own():
    html = (
        "<html><body><main><h2>509. 見出し</h2>"
        '<div id="509.1"><p>509.1 本文<!-- メモ -->。<br>次の段落。</p>'
        '<div id="509.1a"><p>509.1a 下位の本文。</p></div><p>例：例文。</p></div>'
        "</main></body></html>"
    )
    nodes = nodes_of(viewer.parse(html, Hints(version="20231117.0")))
    assert list(nodes) == ["509", "509.1", "509.1a"]
    assert nodes["509.1"].text == "本文。\n次の段落。"
    assert nodes["509.1"].examples == ["例文。"]
    assert nodes["509.1a"].text == "下位の本文。"


def _seed_as_html(wrap: str) -> str:
    import html

    lines = SEED_509.read_text(encoding="utf-8").splitlines()
    if wrap == "pre":
        body = "<pre>" + "\n".join(html.escape(ln) for ln in lines) + "</pre>"
    else:  # one <p> per line, the cross reference linked as the viewer does
        body = "\n".join(f"<p>{html.escape(ln)}</p>" for ln in lines)
        body = body.replace("rule 728〔不正な処理の扱い〕", '<a href="/cr/r/728">rule 728〔不正な処理の扱い〕</a>')
    return f'<!DOCTYPE html>\n<html lang="ja">\n<head><title>総合ルールビューア</title></head>\n<body>\n{body}\n</body></html>\n'


@pytest.mark.parametrize("wrap", ["pre", "p"])
def test_viewer_text_wrapped_in_html_is_read_like_the_text(tmp_path, wrap):
    path = tmp_path / f"viewer_{wrap}.html"
    path.write_text(_seed_as_html(wrap), encoding="utf-8")
    nodes = nodes_of(parse(path))
    text_nodes = nodes_of(parse(SEED_509))
    assert list(nodes) == list(text_nodes)
    assert nodes["5"].title == "ターンの構造"
    assert nodes["509.1b"].text == text_nodes["509.1b"].text
    assert nodes["509.1b"].examples == text_nodes["509.1b"].examples
    assert [r.rule for r in nodes["509.1"].references] == ["728"]
    assert nodes["509.1"].line == 8  # its line in the HTML source


def test_a_viewer_page_without_clauses_is_an_error(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("総合ルールビューア\nこんにちは\n", encoding="utf-8")
    result = ingest.parse_file(str(path))
    assert result.versions == []
    assert [d.level for d in result.diagnostics] == ["error"]
    assert "not a viewer text" in result.diagnostics[0].message
