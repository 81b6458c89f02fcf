"""The version diff: its parts on hand-built items, and golden diffs of real adjacent editions."""

from __future__ import annotations

import pytest

from kb.errors import InputError, NotFound
from kb.model import Reference
from kb.versions import diffparts, matcher
from kb.versions.compare import diff_versions
from kb.versions.diff import diff_items, forced_for, load_forced
from tests._kbfixtures import WIKI_QUOTE, build_store, store_of
from tests.helpers import SEEDS


def item(rule: str, text: str = "", title: str = "", refs: tuple[str, ...] = (), pos: int = 0) -> diffparts.Item:
    from kb import ruleid

    h = f"{rule}:{title}:{text}"  # tests use the text itself as the content hash
    return diffparts.make_item(rule, ruleid.parent(rule), h, pos, title, text, [], [Reference(r, r) for r in refs])


def items(*specs) -> list[diffparts.Item]:
    return [item(*s, pos=i) if isinstance(s, tuple) else item(s, pos=i) for i, s in enumerate(specs)]


PRIORITY = "the active player gets priority. Players may cast spells and activate abilities."


# -- parts ------------------------------------------------------------------------------------
def test_similarity_is_one_for_equal_text_and_low_for_unrelated():
    a = item("100.1", "These Magic rules apply to any Magic game with two or more players.")
    b = item("100.2", "These Magic rules apply to any Magic game with two or more players.")
    c = item("100.3", "To play, each player needs their own deck of traditional Magic cards.")
    assert diffparts.similarity(a, b) == 1.0
    assert diffparts.similarity(a, c) < 0.3


def test_reference_masking_makes_a_renumbered_citation_compare_equal():
    old = item("509.1", "The game returns to the moment before the declaration (see rule 728).", refs=("rule 728",))
    new = item("509.1", "The game returns to the moment before the declaration (see rule 733).", refs=("rule 733",))
    change = diffparts.describe(old, new)
    assert change["kind"] == "edited" and change["reference_only"] is True and change["text_changed"] is False
    assert ["-", "728"] in change["inline"] and ["+", "733"] in change["inline"]


def test_typography_only_change_is_neither_a_text_nor_a_reference_change():
    old = item("702.90a", 'Battle cry is a triggered ability. "Battle cry" means it.')
    new = item("702.90a", "Battle cry is a triggered ability. “Battle cry” means it.")
    change = diffparts.describe(old, new)
    assert change["typography_only"] is True and change["reference_only"] is False and change["text_changed"] is False


def test_inline_diff_english_words_join_back_to_both_texts():
    old, new = "Fourth, the active player gets priority.", "Second, the active player gets priority."
    ops = diffparts.inline_diff(old, new, japanese=False)
    assert ops[0] == ["-", "Fourth"] and ops[1] == ["+", "Second"]
    assert "".join(t for op, t in ops if op != "+") == old
    assert "".join(t for op, t in ops if op != "-") == new


def test_inline_diff_japanese_uses_words_not_characters():
    ops = diffparts.inline_diff(
        "防御プレイヤーはブロック・クリーチャーを指定する。", "攻撃プレイヤーはブロック・クリーチャーを指定する。"
    )
    assert ["-", "防御"] in ops and ["+", "攻撃"] in ops
    # 2人 -> 3人 is one word changed (not the digit alone, not the sentence)
    ops = diffparts.inline_diff(
        "2人対戦とは、2人で開始されるゲームのことである。", "多人数戦とは、3人以上で開始されるゲームのことである。"
    )
    assert ["-", "2人"] in ops and ["+", "3人以上"] in ops


def test_japanese_diff_words_join_back_to_any_text_even_a_long_one():
    from kb.analysis import SUDACHI_CHUNK, diff_words

    for text in [
        "",
        "ａｂｃ１２３　全角とＡＳＣＩＩ",
        "行1\n行2",
        "攻撃クリーチャー・ブロック。" * (SUDACHI_CHUNK // 5),
    ]:
        assert "".join(diff_words(text)) == text


def test_matcher_prefers_the_renumbered_clause_over_an_unrelated_one_with_the_same_id():
    old = items(
        ("509", "", "Declare Blockers Step"),
        ("509.2", "Second, the active player announces damage assignment order."),
        ("509.4", "Fourth, " + PRIORITY),
    )
    new = items(("509", "", "Declare Blockers Step"), ("509.2", "Second, " + PRIORITY))
    changes = diff_items(old, new, inline=False)
    assert [(c["kind"], c["old_rule"], c["new_rule"]) for c in changes] == [
        ("removed", "509.2", None),
        ("moved", "509.4", "509.2"),
    ]


def test_matcher_never_pairs_equal_boilerplate_across_sections_without_context():
    old = items(
        ("502", "", "Untap Step"),
        ("502.3", "Third, " + PRIORITY),
        ("503", "", "Upkeep Step"),
        ("503.1", "Upkeep trigger text here."),
    )
    new = items(
        ("503", "", "Upkeep Step"),
        ("503.1", "Upkeep trigger text here."),
        ("9", "", "Casual Variants"),
        ("901.9", "Third, " + PRIORITY),
        ("902.4", "Fourth, " + PRIORITY),
    )
    m = matcher.match(old, new)
    assert "502.3" not in m.o2n  # equal text, but another section, a near twin, and nothing around it agrees


def test_matcher_pairs_a_long_distinctive_clause_moved_to_another_section():
    text = "If a player realizes that they can't legally take an action after starting to do so, the entire action is reversed."
    old = items(("4", "", "Spells"), ("422.1", text), ("422.2", "Another unrelated clause about mana abilities here."))
    new = items(("7", "", "Additional Rules"), ("714.1", text.replace("they", "he or she")))
    assert matcher.match(old, new).o2n == {"422.1": "714.1"}


def test_forced_matches_override_and_declare_removals():
    old = items(("100.1", "Alpha text about the game rules."), ("100.2", "Beta text about deck building."))
    new = items(("100.1", "Alpha text about the game rules."), ("100.9", "Something completely different here."))
    m = matcher.match(old, new, forced=[("100.2", "100.9")])
    assert m.o2n["100.2"] == "100.9"
    m = matcher.match(old, new, forced=[("100.1", "")])
    assert "100.1" not in m.o2n


def test_forced_matches_file_parses_and_bad_file_names_itself(tmp_path):
    assert isinstance(load_forced(), list)  # the shipped file is valid TOML
    good = tmp_path / "f.toml"
    good.write_text('[[match]]\ngame="mtg"\nlang="en"\nold="1"\nnew="2"\nold_rule="100.1"\nnew_rule="100.2"\n')
    assert forced_for("mtg", "en", "1", "2", load_forced(good)) == [("100.1", "100.2")]
    bad = tmp_path / "bad.toml"
    bad.write_text("[[match]\n")
    with pytest.raises(InputError, match="bad.toml"):
        load_forced(bad)


# -- golden diffs of real editions ----------------------------------------------------------------
@pytest.fixture(scope="module")
def foundations():
    store = store_of("2024-06-07", "2025-02-07")
    return diff_versions(store, "mtg", "en", "20240607", "20250207")


def test_foundations_removes_damage_assignment_order_and_moves_the_trigger_rules(foundations):
    got = {
        (c["kind"], c["old_rule"], c["new_rule"])
        for c in foundations["changes"]
        if (c["old_rule"] or c["new_rule"]).startswith("509.")
    }
    for old in ("509.2", "509.2a", "509.3", "509.3a"):
        assert ("removed", old, None) in got
    for letter in "abcdefg":
        assert ("moved", f"509.5{letter}", f"509.3{letter}") in got
    assert ("moved", "509.5", "509.3") in got and ("moved", "509.4", "509.2") in got
    assert not any(k == "edited" and o == "509.2" for k, o, _ in got)  # not "509.2 edited"
    by_old = {c["old_rule"]: c for c in foundations["changes"]}
    assert all(not by_old[f"509.5{x}"]["text_changed"] and by_old[f"509.5{x}"]["similarity"] == 1.0 for x in "abcdefg")
    assert by_old["509.1i"]["kind"] == "edited" and by_old["509.1i"]["reference_only"]  # "See rule 509.4" -> 509.2a


def test_foundations_summary_counts_match_the_changes(foundations):
    s = foundations["summary"]
    assert s["moved"] == sum(c["kind"] == "moved" for c in foundations["changes"]) >= 11
    assert s["removed"] >= 4 and foundations["old"] == "20240607" and foundations["new"] == "20250207"


def test_the_2009_renumbering_moves_clauses_across_sections():
    store = store_of("2009-05-01", "2009-07-08")
    d = diff_versions(store, "mtg", "en", "20090501", "latest", inline=False)
    moves = {c["old_rule"]: c for c in d["changes"] if c["kind"] == "moved"}
    assert moves["422"]["new_rule"] == "714"  # Handling Illegal Actions
    assert moves["422.1"]["new_rule"] == "714.1" and moves["422.1"]["text_changed"]  # "playing" became "casting"
    assert moves["309"]["new_rule"] == "509"  # Declare Blockers Step
    assert moves["309.2d"]["new_rule"] == "509.1f" and not moves["309.2d"]["text_changed"]
    assert moves["309.2b"]["new_rule"] == "509.1d"
    # the old 509 ("Ending the Turn") is not the new 509 ("Declare Blockers Step")
    assert not any(c["kind"] == "edited" and c["old_rule"] == "509" for c in d["changes"])
    assert d["summary"]["moved"] > 900


def test_japanese_quote_shows_only_a_reference_change_and_no_removals(tmp_path):
    store = build_store([SEEDS / "000_69c867f839c48ea8.txt", WIKI_QUOTE], tmp_path / "ja.sqlite")
    d = diff_versions(store, "mtg", "ja", "20231117.0", "20260807.0")
    c = {c["old_rule"]: c for c in d["changes"]}["509.1"]
    assert c["kind"] == "edited" and c["reference_only"] and ["+", "733"] in c["inline"]
    assert not any(x["kind"] == "removed" for x in d["changes"])  # the quote is partial: absence is no removal


def test_unknown_version_is_not_found():
    store = store_of("2024-06-07", "2025-02-07")
    with pytest.raises(NotFound):
        diff_versions(store, "mtg", "en", "20240607", "19990101")


def test_diff_does_not_depend_on_the_hash_seed():
    """Equal feature counts once came out in set order, which differs per process: the same diff
    removed 410.4a in one run and 410.8 in another."""
    import json
    import os
    import subprocess
    import sys

    store = store_of("2009-05-01", "2009-07-08")
    code = (
        "import json, sys; from kb.store import Store; from kb.versions.compare import diff_versions\n"
        "s = Store.open(sys.argv[1])\n"
        "r = diff_versions(s, 'mtg', 'en', '20090501', '20090708', inline=False)\n"
        "print(json.dumps([(c['kind'], c['old_rule'], c['new_rule']) for c in r['changes']]))"
    )
    runs = set()
    for seed in ("1", "2", "3"):
        proc = subprocess.run(
            [sys.executable, "-c", code, store.path],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        runs.add(proc.stdout)
    assert len(runs) == 1 and len(json.loads(runs.pop())) > 1000
