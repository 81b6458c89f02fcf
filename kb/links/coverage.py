"""Coverage: which clauses of a version are cited by at least one test, per section and rule."""

from __future__ import annotations

from collections import Counter

from kb import ruleid
from kb.links.extract import FoundTest
from kb.store import NodeRecord, Store, VersionInfo

_COVERING = ("ok", "stale")  # a mis-numbered citation (mismatch) or a missing id (orphan) covers nothing


def coverage(
    citations: list[dict], tests: list[FoundTest], store: Store | None = None, version: VersionInfo | None = None
) -> dict:
    """Coverage JSON: per section and rule, covered and uncovered clauses; citations per test."""
    per_test, clauses = _cited(citations, tests)
    nodes = store.nodes(version) if store is not None and version is not None else None
    if nodes is not None:  # a stale id gone since it was written covers no clause of the version
        live = {n.rule for n in nodes}
        clauses = {r: v for r, v in clauses.items() if r in live}
    out = {
        "tests": len(tests),
        "tests_citing": sum(1 for n in per_test.values() if n),
        "uncited_tests": sorted(t for t, n in per_test.items() if n == 0),
        "citations_per_test": dict(sorted(per_test.items())),
        "clauses": dict(sorted(clauses.items(), key=lambda kv: ruleid.sort_key(kv[0]))),
        "status": dict(Counter(c.get("status", "ok") for c in citations)),
    }
    if nodes is not None:
        out.update(_of_version(nodes, set(clauses), version.label))
    return out


def _cited(citations: list[dict], tests: list[FoundTest]) -> tuple[Counter, dict[str, dict]]:
    """Citations per test, and per covered clause: its tests, their results and the citations' statuses."""
    per_test = Counter({t.id: 0 for t in tests})
    clauses: dict[str, dict] = {}
    for c in citations:
        if c["kind"] != "test":
            continue
        per_test[c["test"]] += 1
        status = c.get("status", "ok")
        if status not in _COVERING:
            continue
        entry = clauses.setdefault(c["rule"], {"tests": [], "pass": 0, "fail": 0, "skip": 0, "statuses": {}})
        if c["test"] not in entry["tests"]:
            entry["tests"].append(c["test"])
            if c.get("result"):
                entry[c["result"]] += 1
        entry["statuses"][status] = entry["statuses"].get(status, 0) + 1
    return per_test, clauses


def _of_version(nodes: list[NodeRecord], cited: set[str], label: str) -> dict:
    """How much of one version the cited clauses cover: in all, per section, per rule."""
    sections, rules = _buckets(nodes, cited)
    total = sum(s["total"] for s in sections.values())
    covered = sum(s["covered"] for s in sections.values())
    return {
        "version": label,
        "total": total,
        "covered": covered,
        "percent": _percent(covered, total),
        "sections": [
            {
                "section": k,
                "title": v["title"],
                "total": v["total"],
                "covered": v["covered"],
                "percent": _percent(v["covered"], v["total"]),
            }
            for k, v in sections.items()
        ],
        "rules": [{"rule": k, **v} for k, v in rules.items() if v["total"]],
        "uncovered": [r for v in rules.values() for r in v["uncovered"]],
    }


def _buckets(nodes: list[NodeRecord], cited: set[str]) -> tuple[dict[str, dict], dict[str, dict]]:
    """Clause counts per section (``5``) and per rule (``509``), with each rule's covered and uncovered clauses."""
    titles = {n.rule: n.title for n in nodes if not ruleid.is_clause(n.rule)}
    sections: dict[str, dict] = {}
    rules: dict[str, dict] = {}
    for n in nodes:
        if not ruleid.is_clause(n.rule) or ruleid.parse(n.rule) is None:
            continue
        rule = n.rule.split(".")[0]
        covered = n.rule in cited
        section = sections.setdefault(rule[0], {"title": titles.get(rule[0], ""), "total": 0, "covered": 0})
        entry = rules.setdefault(
            rule, {"title": titles.get(rule, ""), "total": 0, "covered": 0, "covered_clauses": [], "uncovered": []}
        )
        for bucket in (section, entry):
            bucket["total"] += 1
            bucket["covered"] += covered
        entry["covered_clauses" if covered else "uncovered"].append(n.rule)
    return sections, rules


def _percent(part: int, whole: int) -> float:
    return round(100 * part / whole, 1) if whole else 0.0
