"""An undated tree's edition read from its citations' own words (kb.links.era): an engine last written in 2011,
exported without its history, cites 2011's numbering; its renumbered citations are stale, not mismatches."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.links import era, link
from kb.links.extract import scan_tree
from kb.links.resolve import Resolver
from tests._kbfixtures import store_of

# An old engine's keyword classes, each headed by its rule as the 2011-05-01 edition numbered and titled it,
# two with a clause pasted under the header (rules text of that edition), and one rule that kept its number.
OLD_TREE = {
    "keywords/Bushido.java": "// 702.42. Bushido\npublic final class Bushido {}\n",
    "keywords/Madness.java": "// 702.32. Madness\npublic final class Madness {}\n",
    "keywords/Modular.java": "// 702.40. Modular\npublic final class Modular {}\n",
    "keywords/Graft.java": "// 702.55. Graft\npublic final class Graft {}\n",
    "keywords/Flying.java": "// 702.9. Flying\npublic final class Flying {}\n",
    "keywords/Rebound.java": (
        "/**\n"
        " * 702.85. Rebound\n"
        " *\n"
        " * 702.85b Casting a card without paying its mana cost as the result of a\n"
        " * rebound ability follows the rules for paying alternative costs in rules\n"
        " * 601.2b and 601.2e-g.\n"
        " */\n"
        "public final class Rebound {}\n"
    ),
    "engine/Attach.java": (
        "class Attach {\n"
        "  void attach() {\n"
        "    // 613.6d If an Aura, Equipment, or Fortification becomes\n"
        "    // attached to an object or player, the Aura, Equipment, or\n"
        "    // Fortification receives a new timestamp at that time.\n"
        "    stamp();\n"
        "  }\n"
        "}\n"
    ),
}


@pytest.fixture(scope="module")
def store():
    return store_of("2011-05-01", "2026-01-16")


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _by(data: dict) -> dict[tuple[str, str], dict]:
    return {(c["file"].rsplit("/", 1)[-1], c["rule"]): c for c in data["citations"]}


def test_an_undated_tree_follows_the_edition_its_citations_fit(store, tmp_path):
    tree = _write(tmp_path, OLD_TREE)
    resolver = Resolver(store, "mtg")
    assert era.learn(resolver, scan_tree([str(tree)], "mtg").citations).label == "20110501"
    by = _by(link(store, [str(tree)], git=False))
    for file, rule, first in [
        ("Bushido.java", "702.42", "702.45"),
        ("Madness.java", "702.32", "702.35"),
        ("Modular.java", "702.40", "702.43"),
        ("Graft.java", "702.55", "702.58"),
    ]:
        c = by[(file, rule)]
        assert (c["status"], c["suggest"][:1], c["written_version"]) == ("stale", [first], "20110501"), c
        assert c["written_from"] == "tree" and "the edition this tree's citations follow" in c["note"]
    assert by[("Flying.java", "702.9")]["status"] == "ok"  # unchanged since 2011
    # a clause pasted with its id, gone since: stale (it was right when written), with where it went
    c = by[("Attach.java", "613.6d")]
    assert (c["status"], c["suggest"][:1]) == ("stale", ["613.7e"]), c
    assert "it was in 20110501" in c["note"]
    # the clause's own label: where it went, not the first clause of the rule it was in
    assert by[("Rebound.java", "702.85b")]["suggest"][:1] == ["702.88b"]
    # a wrapped line whose leading id continues the pasted sentence: the rules' own cross-references
    c = by[("Rebound.java", "601.2e")]
    assert (c["status"], c["suggest"][:1]) == ("stale", ["601.2f"]), c
    assert "the line is the text of the rules of 20110501" in c["note"]


def test_a_modern_tree_reads_an_old_number_by_its_own_words(store, tmp_path):
    # the same old headers among as many that fit today's numbering: the tree has no era (a few old numbers in
    # a modern engine are no edition of its own), but a line whose own words fit only an older edition's
    # clause was written against that edition: stale, with where the clause went
    modern = {
        f"now/{name}.java": f"// {rule}. {name}\nclass {name} {{}}\n"
        for rule, name in [
            ("702.45", "Bushido"),
            ("702.35", "Madness"),
            ("702.43", "Modular"),
            ("702.58", "Graft"),
            ("702.88", "Rebound"),
            ("702.21", "Ward"),
            ("702.42", "Entwine"),
            ("702.40", "Storm"),
            ("701.20", "Reveal"),
        ]
    }
    slips = {
        # a header naming a keyword the id never had: no edition fits, a mismatch
        "now/Flanking.java": "// 702.42. Flanking\nclass Flanking {}\n",
        # a header run on into the rule's first clause, as a paragraph pasted from the rules
        "now/Entwine.java": "/**\n * 702.40. Modular 702.40a Modular represents both a static ability\n */\nclass M {}\n",
        # a clause pasted mid-paragraph, its sentence running on below
        "now/Upkeep.java": (
            "/**\n * … each upkeep. 702.21b If a permanent has multiple instances of cumulative\n"
            " * upkeep, each triggers separately.\n */\nclass U {}\n"
        ),
        # a keyword action named on the line of its old id
        "now/Planes.java": "class P {\n  // see rule 701.20a: players planeswalk only in planar games\n}\n",
    }
    tree = _write(tmp_path, {**OLD_TREE, **modern, **slips})
    resolver = Resolver(store, "mtg")
    assert era.learn(resolver, scan_tree([str(tree)], "mtg").citations) is None
    by = _by(link(store, [str(tree)], git=False))
    c = by[("Bushido.java", "702.42")]
    assert (c["status"], c["suggest"][:1], c["written_version"]) == ("stale", ["702.45"], "20110501"), c
    assert "the newest edition its own words fit" in c["note"]
    c = by[("Flanking.java", "702.42")]
    assert (c["status"], c["written_version"]) == ("mismatch", None), c
    for file, rule in [("Entwine.java", "702.40"), ("Upkeep.java", "702.21b"), ("Planes.java", "701.20a")]:
        c = by[(file, rule)]
        assert (c["status"], c["written_version"]) == ("stale", "20110501"), c
    assert by[("Upkeep.java", "702.21b")]["suggest"][:1] == ["702.24b"]


def test_too_little_evidence_is_no_era(store, tmp_path):
    tree = _write(tmp_path, {k: v for k, v in OLD_TREE.items() if "Bushido" in k or "Madness" in k})
    resolver = Resolver(store, "mtg")
    assert era.learn(resolver, scan_tree([str(tree)], "mtg").citations) is None  # two headers prove nothing


def test_a_dated_citation_is_not_redated(store, tmp_path):
    files = dict(OLD_TREE)
    files["keywords/Bushido.java"] = "// written against 20260116: 702.42. Bushido\nclass Bushido {}\n"
    c = _by(link(store, [str(_write(tmp_path, files))], git=False))[("Bushido.java", "702.42")]
    assert c["written_from"] == "annotation" and c["status"] == "mismatch", c


def test_a_stale_id_gone_since_covers_nothing(store):
    from kb.links.coverage import coverage

    cited = [
        {"kind": "test", "test": "t#a", "rule": "613.6d", "status": "stale"},  # gone since 2011
        {"kind": "test", "test": "t#a", "rule": "613.7e", "status": "stale"},  # where it went: a live clause
    ]
    cov = coverage(cited, [], store, Resolver(store, "mtg").against)
    assert list(cov["clauses"]) == ["613.7e"] and cov["status"] == {"stale": 2}


def test_a_glossary_term_beside_an_old_id_dates_the_line(store, tmp_path):
    # "Mulligan" beside 103.4: the 2011 glossary sent the mulligan to 103.4, today's to 103.5. The comment is in
    # Polish, and the one keyword a Polish line names speaks of its id wherever it stands on the line.
    files = {
        "mulligan.test.js": "// Mulligan londyński (CR 103.4): dobierz 7, potem odłóż N na spód\ntest('m', () => {});\n",
        "infect.js": "// tokeny z infect: obrażenia do gracza dają znaki trucizny (przegrana przy 10) (CR 702.87)\n",
        # an English line that says nothing of the mulligan beside the id is read as it was
        "draw.js": "// Mulligan rules are elsewhere; each player draws seven cards (CR 103.4)\n",
        # a Drools rule named by its id and the engine's own words (no edition's 103.4 holds them)
        "rules.drl": 'rule "103.4 part 3c mulligan LONDON discard answer"\nwhen\nthen\nend\n',
        # a doc comment names no keyword, the declaration it documents does
        "keywords.rs": "enum Keyword {\n    /// CR 702.87 — damage dealt to players as poison counters.\n    Infect,\n}\n",
    }
    by = _by(link(store, [str(_write(tmp_path, files))], git=False))
    c = by[("mulligan.test.js", "103.4")]
    assert (c["status"], c["suggest"][:1], c["written_version"]) == ("stale", ["103.5"], "20110501"), c
    c = by[("infect.js", "702.87")]
    assert (c["status"], c["suggest"][:1], c["written_version"]) == ("stale", ["702.90"], "20110501"), c
    assert by[("draw.js", "103.4")]["written_version"] is None
    c = by[("rules.drl", "103.4")]
    assert (c["status"], c["suggest"][:1], c["written_version"]) == ("stale", ["103.5"], "20110501"), c
    c = by[("keywords.rs", "702.87")]
    assert (c["status"], c["suggest"][:1], c["written_version"]) == ("stale", ["702.90"], "20110501"), c


def test_a_line_in_another_language_is_foreign_and_code_is_not(store):
    resolver = Resolver(store, "mtg")
    assert resolver.foreign("Plot – rzut bez kosztu many – nie ma też wymagań kolorowych (CR 702.136)")
    assert not resolver.foreign("Plot lets you exile the card and cast it later without paying (CR 702.170)")
    assert not resolver.foreign("regenerationShields cantBeRegeneratedThisTurn (CR 701.19)")  # identifiers only


def test_an_old_keyword_section_and_an_action_named_beside_its_old_id_date_the_line(tmp_path):
    """Until 2009 the keyword abilities were rule 502 ("502.7f" was protection); in 2025-06 discard moved
    from 701.8 to 701.9. An undated line naming the ability or action beside its old id was written when the
    id meant it: stale, with where it went (not an orphan, not ok)."""
    store = store_of("2009-05-01", "2025-02-07", "2026-01-16")
    tree = _write(
        tmp_path,
        {
            "engine/Protection.cpp": (
                "// Comprehensive rule 502.7f : If a creature with protection attacks, it can't be blocked by "
                "creatures that have the stated quality.\nbool blocked();\n"
            ),
            "engine/Cleanup.cs": (
                "/// <summary>Discards a card from hand (CR 701.8), which is how cleanup is satisfied.</summary>\n"
                "void Discard() {}\n"
            ),
            "engine/Destroy.cs": "/// <summary>Destroys a permanent (CR 701.8).</summary>\nvoid Destroy() {}\n",
            "tests/regen.rs": 'fn t() {\n    assert!(ok, "bear has no damage after regeneration (CR 701.15a)");\n}\n',
        },
    )
    by = _by(link(store, [str(tree)], git=False))
    c = by[("Protection.cpp", "502.7f")]
    assert (c["status"], c["suggest"][:1], c["written_version"]) == ("stale", ["702.16f"], "20090501"), c
    c = by[("Cleanup.cs", "701.8")]
    assert (c["status"], c["suggest"][:1], c["written_version"]) == ("stale", ["701.9"], "20250207"), c
    assert by[("Destroy.cs", "701.8")]["status"] == "ok"  # destroy is 701.8 today
    c = by[("regen.rs", "701.15a")]  # the action named as a noun: regenerate was 701.15 until 2025-06
    assert (c["status"], c["suggest"][:1]) == ("stale", ["701.19a"]), c


def test_a_clause_of_a_pasted_paragraph_is_read_by_the_words_after_its_id(store, tmp_path):
    """A Javadoc pasting 2011's cycling rules as one paragraph, clauses run together: each id's own words follow
    it, and the words before it on its line are the clause before. 702.26b is where 702.29b is now, not 702.29a
    (whose words share its line)."""
    files = dict(OLD_TREE)
    files["keywords/Cycling.java"] = (
        "/**\n"
        " * 702.26. Cycling 702.26a Cycling is an activated ability that functions\n"
        " * only while the card with cycling is in a player's hand. \u201cCycling [cost]\u201d\n"
        " * means \u201c[Cost], Discard this card: Draw a card.\u201d 702.26b Although the\n"
        " * cycling ability can be activated only if the card is in a player's hand, it\n"
        " * continues to exist while the object is on the battlefield and in all other zones.\n"
        " * 702.26c Some cards with cycling have abilities that trigger when they're cycled.\n"
        " */\n"
        "public final class Cycling {}\n"
    )
    by = _by(link(store, [str(_write(tmp_path, files))], git=False))
    assert by[("Cycling.java", "702.26a")]["suggest"][:1] == ["702.29a"]
    assert by[("Cycling.java", "702.26b")]["suggest"][:1] == ["702.29b"], by[("Cycling.java", "702.26b")]
    assert by[("Cycling.java", "702.26c")]["suggest"][:1] == ["702.29c"]
