"""Coverage: which clauses of a version are cited by at least one test, per section and rule."""

from __future__ import annotations

from collections import Counter

from kb import ruleid
from kb.links.extract import FoundTest
from kb.store import Store, VersionInfo

_COVERING = ("ok", "stale")  # a mis-numbered citation (mismatch) or a missing id (orphan) covers nothing


def coverage(
    citations: list[dict], tests: list[FoundTest], store: Store | None = None, version: VersionInfo | None = None
) -> dict:
    """Coverage JSON: per section and rule, covered and uncovered clauses; citations per test."""
    per_test = Counter({t.id: 0 for t in tests})
    clauses: dict[str, dict] = {}
    for c in citations:
        if c["kind"] != "test":
            continue
        per_test[c["test"]] += 1
        if c.get("status", "ok") not in _COVERING:
            continue
        entry = clauses.setdefault(c["rule"], {"tests": [], "pass": 0, "fail": 0, "skip": 0, "statuses": {}})
        if c["test"] not in entry["tests"]:
            entry["tests"].append(c["test"])
            if c.get("result"):
                entry[c["result"]] += 1
        entry["statuses"][c.get("status", "ok")] = entry["statuses"].get(c.get("status", "ok"), 0) + 1
    out = {
        "tests": len(tests),
        "tests_citing": sum(1 for n in per_test.values() if n),
        "uncited_tests": sorted(t for t, n in per_test.items() if n == 0),
        "citations_per_test": dict(sorted(per_test.items())),
        "clauses": dict(sorted(clauses.items(), key=lambda kv: ruleid.sort_key(kv[0]))),
        "status": dict(Counter(c.get("status", "ok") for c in citations)),
    }
    if store is None or version is None:
        return out
    nodes = store.nodes(version)
    titles = {n.rule: n.title for n in nodes if not ruleid.is_clause(n.rule)}
    sections: dict[str, dict] = {}
    rules: dict[str, dict] = {}
    for n in nodes:
        if not ruleid.is_clause(n.rule) or ruleid.parse(n.rule) is None:
            continue
        rule = n.rule.split(".")[0]
        section = rule[0]
        cited = n.rule in clauses
        for key, bucket, title in ((section, sections, titles.get(section, "")), (rule, rules, titles.get(rule, ""))):
            entry = bucket.setdefault(
                key, {"title": title, "total": 0, "covered": 0, "covered_clauses": [], "uncovered": []}
            )
            entry["total"] += 1
            entry["covered"] += cited
            if bucket is rules:
                entry["covered_clauses" if cited else "uncovered"].append(n.rule)
    total = sum(s["total"] for s in sections.values())
    covered = sum(s["covered"] for s in sections.values())
    out.update(
        {
            "version": version.label,
            "total": total,
            "covered": covered,
            "percent": round(100 * covered / total, 1) if total else 0.0,
            "sections": [
                {
                    "section": k,
                    "title": v["title"],
                    "total": v["total"],
                    "covered": v["covered"],
                    "percent": round(100 * v["covered"] / v["total"], 1),
                }
                for k, v in sections.items()
            ],
            "rules": [
                {
                    "rule": k,
                    "title": v["title"],
                    "total": v["total"],
                    "covered": v["covered"],
                    "covered_clauses": v["covered_clauses"],
                    "uncovered": v["uncovered"],
                }
                for k, v in rules.items()
                if v["total"]
            ],
            "uncovered": [r for v in rules.values() for r in v["uncovered"]],
        }
    )
    return out
