"""The English Comprehensive Rules ingestor: all 120 real editions, hand-checked values, and fixtures."""

from __future__ import annotations

import re
from datetime import date, datetime
from functools import cache
from pathlib import Path

import pytest

import ingest
from ingest.common import Hints
from kb.textio import read_text
from tests import helpers
from tests.helpers import CR_EN, CR_JA_HEAD, english_notes

EDITIONS = sorted(CR_EN.glob("*.txt"))
FIXTURES = helpers.FIXTURES / "cr_en"
WRAPPED = FIXTURES / "wrapped_old_edition.txt"
MODERN_SOURCE = FIXTURES / "modern_edition.txt"  # a synthetic edition, stored under a neutral name


@pytest.fixture(scope="module")
def modern(tmp_path_factory) -> Path:
    """The synthetic edition under the official file-name shape, whose date is the version label."""
    path = tmp_path_factory.mktemp("official") / "MagicCompRules 20240802.txt"
    path.write_bytes(MODERN_SOURCE.read_bytes())
    return path


MANIFEST = english_notes()  # per edition: encoding, line endings, the sentence stating its date


@cache
def edition(name: str):
    """Decode and parse one real edition once per test session: (decoded text, ParseResult)."""
    path = CR_EN / name
    text = read_text(str(path)).text
    return text, ingest.parse_text(text, Hints(format="cr-en", path=str(path)))


def nodes_of(result) -> dict:
    (version,) = result.versions
    return {n.rule: n for n in version.nodes}


# --- the whole folder ---------------------------------------------------------------------------

# A clause id at the start of a line, however it is spaced: "100.1.", "509.1c", "305.3.After", "606. 8b".
_ID_LINE = re.compile(r"^\s*\d{3}\.(?: ?\d+[a-z]*|[a-z]+)\.?(?:\s|$|(?=[A-Z]))")


def independent_clause_count(text: str) -> int:
    """Lines that begin with a clause id between the first ``100.1`` and the Glossary heading.

    Hard-wrapped editions sometimes break a cross-reference as "See rule" / "103.4. …"; such a line
    follows a line ending in "rule(s)" and is not a clause.
    """
    lines = text.split("\n")
    first = next(i for i, line in enumerate(lines) if line.lstrip().startswith("100.1"))
    glossary = next(i for i in range(first, len(lines)) if lines[i].strip() == "Glossary")
    return sum(
        1 for i in range(first, glossary) if _ID_LINE.match(lines[i]) and not re.search(r"\brules?\s*$", lines[i - 1])
    )


def test_the_folder_holds_120_editions():
    assert len(EDITIONS) == 120
    assert EDITIONS[0].name == "MagicCompRules_1999-04-23.txt" and EDITIONS[-1].name == "MagicCompRules_2026-01-16.txt"


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.stem.split("_")[-1])
@pytest.mark.heavy
def test_every_edition_parses_fully(path: Path):
    text, result = edition(path.name)
    assert not result.errors, [str(d) for d in result.errors]
    (version,) = result.versions
    clauses = [n for n in version.nodes if "." in n.rule]
    assert len(clauses) == independent_clause_count(text)
    # label = the date in the file name; effective = the date of the "current/effective as of" line
    file_date = date.fromisoformat(path.stem.split("_")[-1])
    assert version.label == file_date.strftime("%Y%m%d")
    assert version.meta["file_date"] == file_date.isoformat()
    line = MANIFEST[path.name]["effective_line"]
    m = re.search(r"as of (\w+?) ?(\d{1,2}), (\d{4})", line)
    assert version.effective == datetime.strptime(" ".join(m.groups()), "%B %d %Y").date()
    assert version.meta["effective_line"] == line
    assert (version.game, version.lang, version.partial) == ("mtg", "en", False)
    assert version.terms and all(t.definition for t in version.terms)
    assert all(n.text or n.title for n in clauses)


# --- hand-checked values from real editions -----------------------------------------------------


def test_2024_06_07_declare_blockers():
    nodes = nodes_of(edition("MagicCompRules_2024-06-07.txt")[1])
    assert nodes["5"].title == "Turn Structure" and nodes["5"].line == 2093
    assert nodes["509"].title == "Declare Blockers Step" and nodes["509"].parent == "5"
    assert nodes["509.2"].text.startswith(
        "Second, for each attacking creature that’s become blocked, the active player "
        "announces that creature’s damage assignment order"
    )
    assert nodes["509.2"].examples == [
        "Vastwood Gorger is blocked by Llanowar Elves, Runeclaw Bear, and Serra Angel. Vastwood Gorger’s controller "
        "announces the Vastwood Gorger’s damage assignment order as Serra Angel, then Llanowar Elves, then Runeclaw Bear."
    ]
    # an indented paragraph runs on in the clause; "Example:" lines are kept apart
    assert nodes["509.1b"].text.endswith(
        "illegal.\nA restriction may be created by an evasion ability (a static ability "
        "an attacking creature has that restricts what can block it). If an attacking "
        "creature gains or loses an evasion ability after a legal block has been "
        "declared, it doesn’t affect that block. Different evasion abilities are "
        "cumulative."
    )
    refs = nodes["703.4j"].references
    assert [(r.rule, r.raw) for r in refs] == [("509.1", "rule 509.1")]


def test_2025_02_07_rule_509_3_after_damage_assignment_order_went_away():
    nodes = nodes_of(edition("MagicCompRules_2025-02-07.txt")[1])
    assert nodes["509.2"].text == "Second, the active player gets priority. (See rule 117, “Timing and Priority.”)"
    assert (
        nodes["509.3"].text
        == "Triggered abilities that trigger on blockers being declared may have different trigger conditions."
    )
    assert nodes["509.3"].line == 2349


def test_1999_04_23_first_edition():
    text, result = edition("MagicCompRules_1999-04-23.txt")
    (version,) = result.versions
    assert sum(1 for n in version.nodes if "." in n.rule) == 347
    assert version.effective == date(1999, 4, 23) and version.meta["effective_line_no"] == 3372
    nodes = nodes_of(result)
    assert nodes["5"].title == "Additional Combat Rules"
    assert nodes["214.7"].title == "Creatures"
    assert nodes["214.7b"].text == "Plurality and gender are ignored when determining creature types."
    assert nodes["214.7b"].examples == ["Ogre, Ogres, Ogress, and Ogresses all count as the same creature type, Ogre."]
    # hard-wrapped: the continuation lines are joined into the clause
    assert nodes["100.2"].text.startswith(
        "In constructed-deck play, each player needs his or her own deck of at least "
        "sixty cards with no more than four copies"
    )
    terms = {t.term: t for t in version.terms}
    assert terms["Ante"].definition.startswith("(Obsolete) ") and "Ante" in version.meta["obsolete_terms"]
    assert (
        terms["Zone"].definition == 'A zone is any place that Magic cards can be during a game. See rule 217, "Zones."'
    )


def test_glossary_term_and_aliases_2024_06_07():
    (version,) = edition("MagicCompRules_2024-06-07.txt")[1].versions
    terms = {t.term: t for t in version.terms}
    assert terms["Active Player"].definition == "The player whose turn it is. See rule 102.1."
    assert terms["Active Player"].source == "glossary" and terms["Active Player"].line == 6728
    assert terms["Ability"].definition.split("\n")[:2] == [
        "1. Text on an object that explains what that object does or can do.",
        "2. An activated or triggered ability on the stack. This kind of ability is an object.",
    ]
    assert version.meta["aliases"]["Control, Controller"] == ["Control", "Controller"]
    # the credits are not glossary: the last term is the last glossary entry
    assert version.terms[-1].term == "Zone-Change Triggers"


def test_real_typos_are_repaired_with_warnings():
    result = edition("MagicCompRules_2005-08-01.txt")[1]
    assert "clause id 605.2c read as 609.2c" in [d.message for d in result.warnings]
    nodes = nodes_of(result)
    assert nodes["609.2c"].text == "The deploy creatures option isn't normally used in the Teams variant."
    assert nodes["605.2c"].text == "The deploy creatures option isn't used in the Free-for-All variant."
    result = edition("MagicCompRules_2021-06-09.txt")[1]  # "Ability1. Text on …": term and first sense fused
    terms = {t.term: t for t in result.versions[0].terms}
    assert terms["Ability"].definition.startswith("1. Text on an object")


# --- fixtures: the parsing rules one by one -----------------------------------------------------


def parse_fixture(path: Path, **hints):
    return ingest.parse_file(str(path), Hints(format="cr-en", **hints))


def test_contents_list_is_not_nodes():
    (version,) = parse_fixture(WRAPPED).versions
    assert [n.rule for n in version.nodes if "." not in n.rule] == ["1", "100", "101", "3", "306"]
    assert version.nodes[0].line == 26  # the "1. The Game" that opens the rules, not the one in the contents


def test_wrapped_lines_join_and_a_wrapped_cross_reference_is_not_a_clause():
    result = parse_fixture(WRAPPED)
    nodes = nodes_of(result)
    assert result.versions[0].meta["wrapped"] is True
    assert nodes["100.1"].text == (
        "These Magic rules assume a game between two players. Optional rules allow for more "
        "players but aren't discussed here."
    )
    assert nodes["100.2"].text.endswith("See rule 100.1. for the number of players.")
    assert nodes["100.2"].line == 33 and nodes["100.3"].text == "There is no maximum deck size."
    assert nodes["101.2"].title == "Actions That Use Priority" and nodes["101.2"].text == ""
    # a heading with its first clause on the very next line (no blank line between)
    assert (nodes["101"].line, nodes["101.1"].line, nodes["101.1"].parent) == (38, 39, "101")
    assert [r.rule for r in nodes["101.2a"].references] == ["101.1"]


def test_examples_and_their_continuation_lines(modern):
    nodes = nodes_of(parse_fixture(WRAPPED))
    assert nodes["101.2a"].text == "The active player gets priority first. This is an exception to rule 101.1."
    assert nodes["101.2a"].examples == [
        "A player who is dissatisfied with his or her hand may mulligan, shuffling the hand "
        "back into the deck and drawing a new hand."
    ]
    nodes = nodes_of(parse_fixture(modern))
    assert nodes["509.2"].examples == [
        "Vastwood Gorger is blocked by Llanowar Elves, Runeclaw Bear, and Serra Angel.\n"
        "Vastwood Gorger’s controller announces the damage assignment order as Serra "
        "Angel, then Llanowar Elves, then Runeclaw Bear."
    ]
    assert "Example" not in nodes["509.2"].text


def test_glossary_senses_aliases_obsolete_and_credits_skipped(modern):
    (version,) = parse_fixture(modern).versions
    terms = {t.term: t for t in version.terms}
    assert list(terms) == ["Ability", "Active Player", "Bury", "Control, Controller"]
    assert terms["Ability"].definition == (
        "1. Text on an object that explains what that object does or can do.\n"
        "2. An activated or triggered ability on the stack. This kind of ability is "
        "an object.\nSee rule 113, “Abilities.”"
    )
    assert terms["Bury"].definition == "(Obsolete) A term that meant “put [a permanent] into its owner’s graveyard.”"
    assert version.meta["obsolete_terms"] == ["Bury"]
    assert version.meta["aliases"] == {"Control, Controller": ["Control", "Controller"]}
    assert not any("Garfield" in t.definition or "Garfield" in t.term for t in version.terms)
    assert not any("Garfield" in n.text for n in version.nodes)
    (old,) = parse_fixture(WRAPPED).versions
    terms = {t.term: t for t in old.terms}
    assert terms["Ability"].definition == (
        '"Ability" and "effect" are often confused with one another. An instruction in '
        "a card's text is an ability.\nA card may have one or more abilities or no "
        "abilities at all. See section 4."
    )
    assert old.meta["aliases"] == {"You/Your": ["You", "Your"]} and old.meta["obsolete_terms"] == ["Ante"]


def test_label_from_file_name_else_effective_date(modern):
    (version,) = parse_fixture(modern).versions
    assert (version.label, version.effective, version.meta["file_date"]) == ("20240802", date(2024, 8, 9), "2024-08-02")
    (version,) = parse_fixture(WRAPPED).versions
    assert (version.label, version.effective, version.meta["file_date"]) == ("20010723", date(2001, 7, 23), None)
    (version,) = parse_fixture(modern, version="20240809").versions
    assert version.label == "20240809"


def test_typo_repairs_in_fixtures(modern):
    result = parse_fixture(WRAPPED)
    assert not result.errors
    assert [(d.line, d.message) for d in result.warnings] == [
        (62, "clause id 306.b read as 306.2b"),
        (66, "clause id 306.1c read as 306.2c"),
    ]
    assert [n.rule for n in result.versions[0].nodes if n.rule.startswith("306.")] == [
        "306.1",
        "306.2",
        "306.2a",
        "306.2b",
        "306.2c",
    ]
    result = parse_fixture(modern)
    assert not result.errors
    assert [d.message for d in result.warnings] == [
        "clause id 509.1b read as 509.1c",
        "clause id 605.2c read as 609.2c",
    ]
    assert nodes_of(result)["509.1c"].text == "If an effect says a creature must block, see rule 509.1c."


def test_unrepairable_clause_is_kept_as_text_with_a_warning():
    text = "1. Game\n\n100. General\n\n100.1. One.\n\n100.2. Two.\n\n100.1. Again one.\n\nGlossary\n"
    result = ingest.parse_text(text, Hints(format="cr-en", path="rules_2020-01-01.txt"))
    assert not result.errors
    nodes = nodes_of(result)
    assert list(nodes) == ["1", "100", "100.1", "100.2"]
    assert nodes["100.2"].text == "Two.\n100.1. Again one."
    assert "duplicate" in result.warnings[0].message and result.warnings[0].line == 9
    # no date anywhere: the user must name the version
    result = ingest.parse_text(text, Hints(format="cr-en", path="rules.txt"))
    assert [d.message for d in result.errors] == ["no edition date in the file name or the text; give --version"]
    assert not ingest.parse_text(text, Hints(format="cr-en", path="rules.txt", version="20200101")).errors


def test_clauses_of_a_rule_whose_heading_is_missing_keep_their_ids():
    text = "These rules are effective as of May 1, 2020.\n1. Game\n\n100. General\n\n100.1. One.\n\n100.2. Two.\n\n101.1. Three.\n\n101.2. Four.\n\nGlossary\n\nCredits\n"
    result = ingest.parse_text(text, Hints(format="cr-en", path="rules_2020-01-01.txt"))
    assert not result.errors and not result.warnings
    assert [(n.rule, n.parent) for n in result.versions[0].nodes][-2:] == [("101.1", "1"), ("101.2", "1")]


@pytest.mark.parametrize(
    "text",
    [
        "just some random text\nwith two lines\n",
        read_text(str(CR_JA_HEAD)).text,
    ],
    ids=["random", "japanese"],
)
def test_forced_format_on_other_text_reports_no_clauses(text):
    result = ingest.parse_text(text, Hints(format="cr-en", path="in.txt"))
    assert not result.versions
    assert any(d.message.startswith("no clauses found") for d in result.errors)
