"""The layers: ``ingest`` parses texts, ``kb`` stores and searches them, ``web`` shows them.

Only the two entry points that wire the layers together (``kb.cli`` and ``kb.build``) may import
``ingest`` or ``web`` from ``kb``; ``web`` never parses a text, so it never imports ``ingest``; and
``ingest`` knows nothing of the store or the web (it may use ``kb``'s rule-id helpers and model).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import ROOT

ENTRY_POINTS = {"kb.cli", "kb.build"}
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
