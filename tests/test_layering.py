"""The layers: ``ingest`` parses texts, ``kb`` stores and searches them, ``web`` shows them.

Only the two entry points that wire the layers together (``kb.cli`` and ``kb.build``) may import
``ingest`` or ``web`` from ``kb``; ``web`` never parses a text, so it never imports ``ingest``; and
``ingest`` knows nothing of the store or the web (it may use ``kb``'s rule-id helpers and model).

Inside ``kb`` the rooms stack (``KB_LAYERS``, lowest first): a module imports only from its own room
or the rooms below it, and no modules of kb, ingest or web import each other in a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import ROOT

ENTRY_POINTS = {"kb.cli", "kb.build"}
# kb's rooms, lowest first: each may import only from itself and the rooms before it.
KB_LAYERS = (
    (
        "kb.errors",
        "kb.model",
        "kb.ruleid",
        "kb.textio",
        "kb.loadtime",
        "kb.analysis",
        "kb.snippets",
        "kb.children",
    ),  # core, stdlib
    ("kb.store",),  # every SQL statement
    ("kb.home", "kb.remote"),  # the data home: generations of a store and an index; its running server
    ("kb.versions",),  # order, editions, diff, lineage, history, align, glossary, clause views
    ("kb.search",),  # index, query, retrieval, ranking, results
    ("kb.links",),  # engine citations, judged against versions, suggested through search
    ("kb.build", "kb.parsecache", "kb.cli", "kb.clierrors", "kb.__main__"),  # the faces
)
INGEST_MAY_USE = {"kb.ruleid", "kb.model", "kb.errors", "kb.textio"}


def imports_of(path: Path) -> set[str]:
    """Every module a file imports, at any depth (function-local imports count too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def module_imports(path: Path, known: set[str]) -> set[str]:
    """The known modules a file imports: ``from kb.versions import diff`` is kb.versions.diff, not its package."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            subs = {f"{node.module}.{alias.name}" for alias in node.names} & known
            found |= subs
            if len(subs) < len(node.names):
                found.add(node.module)
    return found & known


def modules(package: str) -> list[tuple[str, Path]]:
    out = []
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        out.append((".".join(parts[:-1] if parts[-1] == "__init__" else parts), path))
    return out


def top(name: str) -> str:
    return name.split(".")[0]


@pytest.mark.parametrize(("name", "path"), modules("kb"), ids=lambda v: v if isinstance(v, str) else "")
def test_kb_imports_ingest_or_web_only_from_its_entry_points(name, path):
    crossing = sorted(m for m in imports_of(path) if top(m) in ("ingest", "web"))
    assert not crossing or name in ENTRY_POINTS, f"{name} imports {crossing}"


@pytest.mark.parametrize(("name", "path"), modules("web"), ids=lambda v: v if isinstance(v, str) else "")
def test_web_never_imports_ingest(name, path):
    assert not [m for m in imports_of(path) if top(m) == "ingest"], name


@pytest.mark.parametrize(("name", "path"), modules("ingest"), ids=lambda v: v if isinstance(v, str) else "")
def test_ingest_uses_only_kb_helpers(name, path):
    used = {m for m in imports_of(path) if top(m) in ("kb", "web")}
    # ``from kb import ruleid`` shows up as both ``kb`` and ``kb.ruleid``; judge the dotted names.
    wrong = sorted(m for m in used if m != "kb" and not any(m == ok or m.startswith(ok + ".") for ok in INGEST_MAY_USE))
    assert not wrong, f"{name} imports {wrong}"


def test_the_rule_sees_a_crossing(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from ingest import parse_data\n    import web.server\n", encoding="utf-8")
    assert {"ingest", "ingest.parse_data", "web.server"} <= imports_of(bad)


def room(name: str) -> int:
    """The index of the kb room a module belongs to."""
    for i, names in enumerate(KB_LAYERS):
        if any(name == n or name.startswith(n + ".") for n in names):
            return i
    raise AssertionError(f"{name} belongs to no room of KB_LAYERS: add it")


def graph() -> dict[str, set[str]]:
    every = {name: path for package in ("kb", "ingest", "web") for name, path in modules(package)}
    return {name: module_imports(path, set(every)) - {name} for name, path in every.items()}


@pytest.mark.parametrize(("name", "path"), modules("kb"), ids=lambda v: v if isinstance(v, str) else "")
def test_kb_imports_only_from_its_room_and_below(name, path):
    if name == "kb":
        return
    mine = room(name)
    known = {n for n, _ in modules("kb")} - {"kb"}
    upward = sorted(m for m in module_imports(path, known) if room(m) > mine)
    assert not upward, f"{name} (room {mine}) imports {upward} from rooms above it"


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle found by a depth-first walk (each reported once, from where it was entered)."""
    state: dict[str, int] = {}
    found: list[list[str]] = []

    def walk(v: str, path: list[str]) -> None:
        state[v] = 1
        path.append(v)
        for w in sorted(edges.get(v, ())):
            if state.get(w) == 1:
                found.append(path[path.index(w) :] + [w])
            elif w not in state:
                walk(w, path)
        path.pop()
        state[v] = 2

    for v in sorted(edges):
        if v not in state:
            walk(v, [])
    return found


def test_no_module_imports_itself_through_others():
    assert cycles(graph()) == []


def test_the_circle_finder_sees_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert room("kb.versions.diff") < room("kb.search.index") < room("kb.cli")


# -- SQL lives in kb.store --------------------------------------------------------------------------
# Modules whose statements have not moved yet: the search rewrite (issue 19) moves kb.search's into kb.store.
SQL_PENDING = {"kb.search.index"}


def sql_uses(path: Path) -> list[str]:
    """Where a file reaches past the Store to SQLite: a ``.conn`` attribute or ``sqlite3.connect``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr == "conn":
            found.append((node.lineno, ".conn"))
        elif (
            isinstance(node, ast.Attribute)
            and node.attr == "connect"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sqlite3"
        ):
            found.append((node.lineno, "sqlite3.connect"))
    return [f"line {n}: {what}" for n, what in sorted(found)]


OUTSIDE_STORE = [(n, p) for pkg in ("kb", "ingest", "web") for n, p in modules(pkg) if not n.startswith("kb.store")]


@pytest.mark.parametrize(("name", "path"), OUTSIDE_STORE, ids=lambda v: v if isinstance(v, str) else "")
def test_sql_lives_in_the_store(name, path):
    uses = sql_uses(path)
    if name in SQL_PENDING:
        assert uses, f"{name} no longer reaches SQLite: drop it from SQL_PENDING"
    else:
        assert not uses, f"{name} runs SQL outside kb.store (add a Store method): {uses}"


def test_the_sql_finder_sees_a_connection(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import sqlite3\ndb = sqlite3.connect(':memory:')\nstore.conn.execute('SELECT 1')\n")
    assert sql_uses(bad) == ["line 2: sqlite3.connect", "line 3: .conn"]
