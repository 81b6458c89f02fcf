"""The tests page and the clause's tests, end to end: scan an engine tree, save the links, serve them."""

from __future__ import annotations

import pytest

from kb.store import Store
from tests._webkb import make_generation
from web import create_app

ENGINE_TEST = '''
def test_declare_blockers():
    """CR 509.1a: the defending player chooses blockers."""


def test_requirements():
    """CR 509.1c: blocking requirements."""
'''


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    import kb.links

    root = tmp_path_factory.mktemp("web-links")
    engine = root / "engine"
    engine.mkdir()
    (engine / "test_combat.py").write_text(ENGINE_TEST, encoding="utf-8")
    home = make_generation(root / "home")
    store = Store.open(str(home / "current" / "kb.sqlite"), write=True)  # as `rulekb link --save` would
    kb.links.link(store, [str(engine)], against="20240607", save=True, git=False)
    store.commit()
    store.close()
    return create_app(home).test_client()


def test_tests_page_shows_coverage_and_the_orphan_with_its_suggestion(client):
    data = client.get("/api/tests").get_json()
    assert data["saved"] is True and data["against"] == "20240607"
    assert data["status_counts"] == {"ok": 1, "orphan": 1}
    orphan = data["problems"]["orphan"][0]
    assert (orphan["test"], orphan["rule"]) == ("test_combat.py::test_requirements", "509.1c")
    assert orphan["suggest_urls"][0]["url"] == "/mtg/en/20240607/509.1d"
    assert orphan["suggest_urls"][0]["text"].startswith("The defending player checks each creature")
    # the cited id is gone from 20240607: show what it said when it last existed
    assert orphan["clause_text_version"] == "20231117"
    assert orphan["clause_text"].startswith("The defending player checks each creature")
    assert data["uncovered"] == ["509.1", "509.1d", "509.2", "309.2"]
    page = client.get("/tests").get_data(as_text=True)
    orphans = page.split('id="orphan"', 1)[1].split("</section>", 1)[0]
    assert "test_combat.py::test_requirements" in orphans and 'href="/mtg/en/20240607/509.1d"' in orphans


def test_clause_page_lists_the_test_citing_it(client):
    data = client.get("/api/mtg/en/20240607/509.1a").get_json()
    assert [(t["test"], t["status"]) for t in data["tests"]] == [("test_combat.py::test_declare_blockers", "ok")]
    page = client.get("/mtg/en/20240607/509.1a").get_data(as_text=True)
    assert "test_combat.py::test_declare_blockers" in page and "test_combat.py:3" in page
    assert client.get("/api/mtg/en/20240607/509.2").get_json()["tests"] == []
