"""Cross references and bilingual pairs harvested from running text, and the structure checks."""

import pytest

from ingest.common import Hints, check_nodes, find_references, harvest_terms
from kb.model import RuleNode


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("(rule 728〔不正な処理の扱い〕参照。)", ["728"]),
        ("rule 509.1-3 で示された手順", ["509.1", "509.2", "509.3"]),
        ("See rules 601.2a–c.", ["601.2a", "601.2b", "601.2c"]),
        ("rules 601.2b and 601.2f–h apply", ["601.2b", "601.2f", "601.2g", "601.2h"]),
        ("rules 509.1 and 509.2", ["509.1", "509.2"]),
        ("総合ゲームルール 506.1により", ["506.1"]),
        ("see section 5", ["5"]),
        ("it costs 2.5 mana and 1000.12 life", []),
    ],
)
def test_references(text, rules):
    assert [r.rule for r in find_references(text)] == rules


def test_reference_span_points_into_the_text():
    text = "その後、アクティブ・プレイヤーが優先権を得る(rule 117〔タイミングと優先権〕参照)。"
    [ref] = find_references(text)
    assert text[ref.start : ref.end] == ref.raw == "rule 117〔タイミングと優先権〕"


def test_bilingual_pairs():
    terms = harvest_terms(
        "攻撃クリーチャーは、「ブロックされているクリーチャー／blocked creature」になる。ブロック強制（Blocking Requirement）は",
        "509.1h",
    )
    assert [(t.term, t.english) for t in terms] == [
        ("ブロックされているクリーチャー", "blocked creature"),
        ("ブロック強制", "Blocking Requirement"),
    ]
    assert terms[0].rule == "509.1h"


def test_duplicates_and_disorder_name_their_lines():
    nodes = [
        RuleNode("509.1", line=4),
        RuleNode("509.2", line=5),
        RuleNode("509.1b", line=6),
        RuleNode("509.2", line=7),
    ]
    found = [(d.line, d.message) for d in check_nodes(nodes, "x.txt")]
    assert found == [
        (6, "clause id 509.1b out of order (after 509.2)"),
        (7, "duplicate clause id 509.2 (first at line 5)"),
    ]


@pytest.mark.parametrize("label", ["../../etc", "a b", "<script>", "x/y", "." * 3, "9" * 41])
def test_a_version_label_that_is_no_url_segment_is_refused(tmp_path, label):
    from ingest import parse_file
    from kb.errors import InputError

    path = tmp_path / "viewer.txt"
    path.write_text("総合ルールビューア\n5. ターンの構造\n509. ブロック\n- 509.1 まず。\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"viewer.txt: bad --version"):
        parse_file(str(path), Hints(version=label))
    assert parse_file(str(path), Hints(version="20231117.1")).versions[0].label == "20231117.1"
