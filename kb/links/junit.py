"""Read JUnit XML (pytest, Maven Surefire, Gradle, Cucumber) into pass/fail/skip per test."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from kb.errors import InputError
from kb.links.extract import FoundTest

_RANK = {"fail": 3, "pass": 2, "skip": 1}


@dataclass
class Case:
    """One ``<testcase>``."""

    classname: str
    name: str
    result: str  # "pass" | "fail" | "skip"


def read(path: str) -> list[Case]:
    """The test cases of one JUnit XML file; InputError (with line) if it is not one."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise InputError(
            f"not valid XML: {exc.msg if hasattr(exc, 'msg') else exc}", path=path, line=exc.position[0]
        ) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=path) from None
    if root.tag not in ("testsuites", "testsuite"):
        raise InputError(
            f"not JUnit XML (root element <{root.tag}>, expected <testsuites> or <testsuite>)", path=path, line=1
        )
    cases = []
    for tc in root.iter("testcase"):
        tags = {child.tag for child in tc}
        if tags & {"failure", "error"}:
            result = "fail"
        elif "skipped" in tags:
            result = "skip"
        else:
            result = "pass"
        cases.append(Case(tc.get("classname", ""), tc.get("name", ""), result))
    return cases


def _bare(name: str) -> str:
    """A case name without parameters: test_x[1-2] -> test_x, testFoo() -> testFoo."""
    return re.sub(r"(?:\[.*\]|\(.*\))\s*$", "", name).strip()


def _tail(classname: str) -> str:
    return re.split(r"[.$/]|::", classname)[-1] if classname else ""


def results(cases: list[Case], tests: list[FoundTest]) -> dict[str, str]:
    """Test id -> pass/fail/skip (the worst of its cases: a failing parameter fails the test)."""
    exact: dict[tuple[str, str], list[FoundTest]] = {}
    by_tail: dict[tuple[str, str], list[FoundTest]] = {}
    by_name: dict[str, list[FoundTest]] = {}
    by_id = {t.id: [t] for t in tests}  # cargo nextest / jest name cases by the full test path
    for t in tests:
        exact.setdefault((t.classname, t.name), []).append(t)
        by_tail.setdefault((_tail(t.classname), t.name), []).append(t)
        by_name.setdefault(t.name, []).append(t)
    out: dict[str, str] = {}
    for case in cases:
        name = _bare(case.name)
        hits = (
            exact.get((case.classname, name))
            or exact.get((case.classname, case.name))
            or by_tail.get((_tail(case.classname), name))
            or by_id.get(name)
        )
        if not hits:
            only = by_name.get(name) or by_name.get(case.name) or []
            hits = only if len(only) == 1 else []
        for t in hits:
            if _RANK[case.result] > _RANK.get(out.get(t.id, ""), 0):
                out[t.id] = case.result
    return out
