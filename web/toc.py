"""The table of contents as a tree (sections > rules > clauses > sub-clauses), whole or filtered."""

from __future__ import annotations

from kb import ruleid


def tree(nodes: list[dict], *, open_all: bool = False) -> list[dict]:
    """Nest the flat, depth-tagged contents list: each entry gains ``children`` and ``open``."""
    roots: list[dict] = []
    stack: list[dict] = []
    for n in nodes:
        entry = {**n, "children": [], "open": open_all}
        while stack and stack[-1]["depth"] >= n["depth"]:
            stack.pop()
        (stack[-1]["children"] if stack else roots).append(entry)
        stack.append(entry)
    return roots


def matching(nodes: list[dict], q: str) -> list[dict]:
    """The entries whose id starts with ``q`` (``509.1``, ``５０９``) or whose words contain it, with their
    ancestors so that each match keeps its place in the tree."""
    rule = ruleid.normalize(q)
    needle = q.casefold()
    hits = {n["rule"] for n in nodes
            if n["rule"].startswith(rule) or needle in (n["title"] or "").casefold()
            or needle in (n["excerpt"] or "").casefold()}  # fmt: skip
    keep = set(hits)
    for r in hits:
        keep.update(ruleid.ancestors(r) if ruleid.parse(r) else [])
    return [n for n in nodes if n["rule"] in keep]
