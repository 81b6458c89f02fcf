"""Format detection (``ingest.detect``): every kind of real text goes to its own ingestor, and every
other ingestor's sniffer refuses it outright (0.0), so no text is read by the wrong parser."""

from __future__ import annotations

import pytest

import ingest
from kb.textio import read_text
from tests.helpers import CORPUS, CR_EN, CR_JA_FULL, CR_JA_HEAD, CR_JA_TAIL, DM_RULES, FIXTURES

SAMPLES = [
    (CORPUS / "000_69c867f839c48ea8.txt", "viewer"),  # rules viewer, 509
    (CORPUS / "003_1192bed475bff8cb.txt", "viewer"),  # rules viewer, 510
    (CORPUS / "001_7d107e230c311bb9.txt", "pukiwiki"),  # Duel Masters wiki source
    (CORPUS / "002_52ff311794a719e8.txt", "mtgwiki"),  # MTG Wiki page quoting the CR
    (FIXTURES / "mtgwiki" / "blocking_requirement.html", "mtgwiki"),  # MTG Wiki as HTML
    (CORPUS / "004_141578bca00711b0.txt", "legacy-ja"),  # the 2008 private translation 5.5
    (CR_EN / "MagicCompRules_1999-04-23.txt", "cr-en"),  # the oldest edition
    (CR_EN / "MagicCompRules_2008-10-01.txt", "cr-en"),  # mojibake apostrophes
    (CR_EN / "MagicCompRules_2026-01-16.txt", "cr-en"),
    (CR_JA_FULL, "cr-ja"),  # the whole Japanese CR
    (CR_JA_HEAD, "cr-ja"),  # its head piece
    (CR_JA_TAIL, "cr-ja"),  # its tail piece (no title)
    (DM_RULES / "DM_SogoGameRule_Ver1.48_20251217_dm_rule.md", "dm-rules"),
]


@pytest.mark.parametrize(("path", "fmt"), SAMPLES, ids=[p.name for p, _ in SAMPLES])
def test_each_text_goes_to_its_own_ingestor_and_no_other_claims_it(path, fmt):
    text = read_text(str(path)).text
    assert ingest.detect(text, path.name)[0] == fmt
    assert ingest.detect(text, "")[0] == fmt  # the content decides, not the file name
    for other in ingest.FORMATS:
        score = ingest.format_module(other).sniff(text, path.name)
        assert (score >= 0.9) if other == fmt else (score == 0.0), other


def test_english_rules_need_both_their_title_and_their_clauses():
    from ingest import cr_en

    text = read_text(str(CR_EN / "MagicCompRules_2026-01-16.txt")).text
    assert cr_en.sniff(text.replace("Comprehensive Rules", "Rules"), "x.txt") == pytest.approx(0.6)  # clauses only
    assert cr_en.sniff("Comprehensive Rules\n\nno clauses here at all\n", "x.txt") == 0.0  # the title only


def test_mediawiki_source_is_not_taken_for_the_duel_masters_wiki():
    from ingest import pukiwiki

    mediawiki = "== ルール ==\n*[[ブロック]]\n*[[攻撃]]\n-[[a]]\n-[[b]]\n[[c]][[d]][[e]]\n{{#cr:509.1h}}\n"
    assert pukiwiki.sniff(mediawiki, "x.txt") == 0.0
