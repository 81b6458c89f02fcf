"""Citations resolved against a partial version fall back to the newest version holding the clause."""

from tests.helpers import rulekb_json


def test_clause_missing_from_a_partial_version_is_not_an_orphan(built_home, tmp_path):
    (tmp_path / "test_block.py").write_text(
        'def test_evasion():\n    """CR 509.1b: restrictions on blocking."""\n\n\ndef test_missing():\n    """CR 510.9: no such clause."""\n'
    )
    data = rulekb_json("link", str(tmp_path), "--no-git", home=built_home)
    assert data["against"] == "20260807.0"
    by_rule = {c["rule"]: c for c in data["citations"]}
    assert by_rule["509.1b"]["status"] == "ok"
    assert "20260807.0 is partial; resolved against 20231117.0" in by_rule["509.1b"]["note"]
    assert by_rule["510.9"]["status"] == "orphan"
    assert by_rule["509.1b"]["test"] == "test_block.py::test_evasion"


def test_a_partial_translation_resolves_against_the_english_edition_it_renders():
    from kb.links.extract import Cite
    from kb.links.resolve import Resolver
    from tests._kbfixtures import store_of

    store = store_of("2021-02-02", "2026-01-16", japanese=True)
    r = Resolver(store, "mtg", "20260116.0")  # the Japanese pieces hold no 704 and no 702.91
    assert (r.against.lang, r.against.label) == ("en", "20260116")
    assert r.note == "ja 20260116.0 is partial; resolved against en 20260116, the English edition it renders"

    def status(rule: str) -> str:
        return r.resolve(Cite(file="t.py", line=1, rule=rule, raw=rule, context=f"CR {rule}"), [rule])["status"]

    assert [status("704.5a"), status("702.91a"), status("510.9")] == ["ok", "ok", "orphan"]
    # Without an English edition of that date the version itself is used (see the test above).
    assert Resolver(store, "mtg", "20260807.0").against.label == "20260807.0"
