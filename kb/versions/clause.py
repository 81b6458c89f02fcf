"""Read models shared by the CLI and the web app: a clause in context."""

from __future__ import annotations

from kb.errors import NotFound
from kb.store import Store, VersionInfo


def clause_view(store: Store, version: VersionInfo, rule: str) -> dict:
    """The ``show`` JSON of one node: text, examples, references, parent and children."""
    node = store.node(version, rule)
    if node is None:
        raise NotFound(f"{rule} is not in {version.game}/{version.lang}/{version.label}")
    children = store.children(version, rule)
    return {
        "game": version.game,
        "lang": version.lang,
        "version": version.label,
        "effective": version.effective.isoformat() if version.effective else None,
        "partial": version.partial,
        "rule": node.rule,
        "title": node.title,
        "text": node.text,
        "examples": node.examples,
        "notes": node.notes,
        "references": [r.rule for r in node.references],
        "reference_spans": [{"rule": r.rule, "raw": r.raw, "start": r.start, "end": r.end} for r in node.references],
        "parent": node.parent,
        "children": [c.rule for c in children],
        "truncated": node.truncated,
        "line": node.line,
    }
