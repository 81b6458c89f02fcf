"""Citations resolved against a partial version fall back to the newest version holding the clause."""

from tests.conftest import rulekb_json


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
