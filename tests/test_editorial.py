"""Editorial vs substantive clause changes: the classifier on real wording changes, and its key in diff and history."""

from __future__ import annotations

from collections import Counter

import pytest

from kb.versions import diffparts, editorial, history
from kb.versions.compare import diff_versions
from tests._kbfixtures import store_of

# A vocabulary as a store gives it: how many stored texts use each word.
VOCAB = Counter({"prototyped": 12, "protoyped": 1, "block": 300, "black": 200, "planeswalkers": 90})


def reasons(old: str, new: str, vocab: Counter | None = VOCAB) -> list[str] | None:
    return editorial.classify(old, new, vocab)


# -- editorial: the clause says the same thing -----------------------------------------------------
@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        (  # 112.5, 2018-01 -> 2018-04: the pronoun update, verbs agreeing
            "A player may activate a loyalty ability of a permanent he or she controls any time he or she has priority "
            "and the stack is empty during a main phase of his or her turn.",
            "A player may activate a loyalty ability of a permanent they control any time they have priority "
            "and the stack is empty during a main phase of their turn.",
            "pronoun",
        ),
        (  # 104.3b: "he or she" -> "that player"
            "If a player's life total is 0 or less, he or she loses the game the next time a player would receive priority.",
            "If a player's life total is 0 or less, that player loses the game the next time a player would receive "
            "priority.",
            "pronoun",
        ),
        (  # 104.3c: a verb further along agrees with the new pronoun
            "If a player is required to draw more cards than are left in his or her library, he or she draws the "
            "remaining cards, and then loses the game.",
            "If a player is required to draw more cards than are left in their library, they draw the remaining cards "
            "and then lose the game.",
            "pronoun",
        ),
        (  # 2008 editions: quotes and apostrophes came through as "?"
            "A player can't cast a spell that says \"Flash\" unless it's their turn.",
            "A player can?t cast a spell that says ?Flash? unless it?s their turn.",
            "typography",
        ),
        (
            'Battle cry is a triggered ability. "Battle cry" means it.',
            "Battle cry is a triggered ability. “Battle cry” means it.",
            "typography",
        ),
        (  # a renumbered cross-reference
            "Some effects let a player take an extra turn (see rule 500.7).",
            "Some effects let a player take an extra turn (see rule 500.8).",
            "reference",
        ),
        (  # 701.26f, 2017-09: the history remark dropped
            "If an effect would have a player both draw and discard, this is a change from before. "
            "This is a change from previous rules.",
            "If an effect would have a player both draw and discard, this is a change from before.",
            "note",
        ),
        (
            "Each player may look at their hand.",
            "Each player may look at their hand. See rule 402, “Hand.”",
            "note",
        ),
        (  # 702.160a, 2025-02: a misspelling put right
            "A protoyped permanent has the alternative power, toughness and mana cost.",
            "A prototyped permanent has the alternative power, toughness and mana cost.",
            "typo",
        ),
        (
            "An attacking creature can be blocked by planewalkers.",
            "An attacking creature can be blocked by planeswalkers.",
            "typo",
        ),
        (  # 202.3, 2021-04: a term renamed everywhere
            "The converted mana cost of an object is a number equal to the total amount of mana in its mana cost.",
            "The mana value of an object is a number equal to the total amount of mana in its mana cost.",
            "rename",
        ),
        (  # 310.4b, 2025-02: "enters" for "enters the battlefield"
            "This permanent enters the battlefield with a number of defense counters on it.",
            "This permanent enters with a number of defense counters on it.",
            "rename",
        ),
        (  # 702.141a, 2021-04: the sorcery-speed wording
            "Exile this card from your graveyard. Activate this ability only any time you could cast a sorcery.",
            "Exile this card from your graveyard. Activate only as a sorcery.",
            "rename",
        ),
        (  # 111.4: an example sentence inside the rule text changed
            "A token's name is the same as its subtypes. A Goblin Scout creature token, for example, is named Goblin "
            "Scout.",
            "A token's name is the same as its subtypes. A Soldier creature token, for example, is named Soldier.",
            "example",
        ),
        (
            "Some prevention effects refer to damage-for example, a fixed amount.",
            "Some prevention effects refer to damage?for example, a fixed amount.",
            "typography",
        ),
    ],
)
def test_editorial_changes_are_told_apart_with_their_reason(old, new, why):
    found = reasons(old, new)
    assert found is not None and why in found


# -- substantive: the rule says something else ---------------------------------------------------
@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "Each player shuffles their deck. Then each player may cut it.",
            "Each player shuffles their deck. Then each player may shuffle it.",
        ),
        ("A player can cast the spell.", "A player can't cast the spell."),  # a negation is never a typo
        (
            "An attacking creature can be blocked by a black creature.",
            "An attacking creature can be blocked by a block creature.",
        ),
        ("The number of phases is two.", "The number of phases is three."),
        ("The active player untaps the land.", "The active player untaps lands."),  # one land or all of them
        ("A creature is untapped.", "A creature is untapped and isn't controlled by either player."),
        (  # 205.3i, 2025-04: a name added to a list: the rule says more
            "Artifacts have their own unique set of subtypes: Attraction, Blood, Bobblehead, Clue.",
            "Artifacts have their own unique set of subtypes: Attraction, Blood, Bobblehead, Clue, Town.",
        ),
        (
            "Cards played from a library are revealed.",
            "Cards cast from a library are revealed.",
        ),  # play -> cast: a real change
        (  # a "See rule" sentence is a note, but a changed rule sentence around it is not
            "A player may mulligan once. See rule 103.4.",
            "A player may mulligan any number of times. See rule 103.5.",
        ),
    ],
)
def test_substantive_changes_are_not_editorial(old, new):
    assert reasons(old, new) is None


def test_typo_fixes_need_the_vocabulary_to_know_a_misspelling():
    old, new = "A protoyped permanent.", "A prototyped permanent."
    assert reasons(old, new, None) is None
    assert reasons(old, new, Counter({"protoyped": 40, "prototyped": 40})) is None  # both common: two words


def test_japanese_text_is_editorial_only_for_typography_references_and_notes():
    assert (
        editorial.classify(
            "「飛行」を持つクリーチャーは、ルール702.9を見よ。", "“飛行”を持つクリーチャーは、ルール702.9を見よ。"
        )
        is not None
    )
    assert (
        editorial.classify("このクリーチャーは、ルール702.9を見よ。", "このクリーチャーは、ルール702.10を見よ。")
        is not None
    )
    assert editorial.classify("攻撃クリーチャーを指定する。", "防御クリーチャーを指定する。") is None


def test_an_example_only_change_is_editorial_and_an_addition_is_not():
    def item(rule: str, text: str, examples: list[str]) -> diffparts.Item:
        return diffparts.make_item(rule, None, f"{text}|{examples}", 0, "", text, examples, [])

    a = item("702.19b", "Trample is a static ability.", ["Example: A 3/3 creature with trample is blocked."])
    b = item("702.19b", "Trample is a static ability.", ["Example: A 5/5 creature with trample is blocked."])
    c = item("702.19b", "Trample is a static ability that modifies combat damage assignment.", [])
    assert diffparts.describe(a, b)["editorial"] is True
    assert diffparts.describe(a, c)["editorial"] is False
    assert diffparts.describe(None, a)["editorial"] is False and diffparts.describe(a, None)["editorial"] is False


# -- in the diff, the lineage and the history of real editions -------------------------------------
@pytest.fixture(scope="module")
def pronoun_store():
    return store_of("2018-01-19", "2018-04-27")


def test_diff_of_the_pronoun_update_edition_marks_its_edits_editorial(pronoun_store):
    data = diff_versions(pronoun_store, "mtg", "en", "20180119", "20180427", inline=False)
    by_rule = {c["old_rule"]: c for c in data["changes"]}
    assert by_rule["112.5"]["editorial"] is True and by_rule["112.5"]["reference_only"] is False
    assert by_rule["106.3"]["editorial"] is False  # "A spell or ability that produces mana instructs a player to add"
    assert all("editorial" in c and "reference_only" in c for c in data["changes"])
    edited = [c for c in data["changes"] if c["kind"] == "edited" and c["text_changed"]]
    assert data["summary"]["editorial"] == sum(c["editorial"] for c in data["changes"])
    assert sum(c["editorial"] for c in edited) > 0.8 * len(edited)  # the edition was mostly "his or her" -> "their"


def test_lineage_stores_the_editorial_flag_and_history_events_carry_it(pronoun_store):
    rows = dict(
        pronoun_store.conn.execute(
            "SELECT old_rule, editorial FROM lineage WHERE old_rule IN ('112.5', '106.3') AND kind='edited'"
        ).fetchall()
    )
    assert rows == {"112.5": 1, "106.3": 0}
    h = history.history(pronoun_store, "mtg", "en", "112.5", inline=False)
    assert [(e["kind"], e["editorial"]) for e in h["events"]] == [("created", False), ("edited", True)]
    h = history.history(pronoun_store, "mtg", "en", "106.3", inline=False)
    assert h["events"][-1]["kind"] == "edited" and h["events"][-1]["editorial"] is False


def test_the_build_keeps_the_vocabulary_and_a_new_connection_reads_it_unchanged(pronoun_store):
    from kb.store import Store

    counted = editorial._count_words(pronoun_store)
    again = Store.open(pronoun_store.path)  # another process, say: `rulekb history` after the build
    try:
        assert again.get_meta(editorial._VOCABULARY_META)  # kept by kb.build.derive
        assert editorial.vocabulary(again) == counted and counted["their"] > 0
    finally:
        again.close()
