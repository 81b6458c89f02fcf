"""Turn texts plus offsets into segments the templates escape and mark up (never raw HTML)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from kb.model import Reference

SNIPPET_WIDTH = 160
SNIPPET_LEAD = 40


def _clean_spans(spans, length: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for span in spans or []:
        try:
            s, e = int(span[0]), int(span[1])
        except (TypeError, ValueError, IndexError):
            continue
        s, e = max(0, s), min(length, e)
        if s >= e:
            continue
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return sorted(out)


def highlight(text: str, spans, *, width: int = SNIPPET_WIDTH) -> list[list]:
    """A window of ``text`` around its first hit as ``[[text, is_hit], ...]`` with ellipses."""
    spans = _clean_spans(sorted(spans or [], key=lambda s: s[0] if s else 0), len(text))
    start = max(0, spans[0][0] - SNIPPET_LEAD) if spans else 0
    end = min(len(text), start + width)
    segs: list[list] = [["…", False]] if start > 0 else []
    pos = start
    for s, e in spans:
        if s >= end:
            break
        if s > pos:
            segs.append([text[pos:s], False])
        segs.append([text[max(s, pos) : min(e, end)], True])
        pos = min(e, end)
    if pos < end:
        segs.append([text[pos:end], False])
    if end < len(text):
        segs.append(["…", False])
    return segs


MIDDLE_DOTS = "・･"


def find_spans(text: str, needle: str) -> list[list[int]]:
    """Every case-insensitive occurrence of ``needle`` in ``text``, a middle dot allowed between letters."""
    chars = [c for c in needle if c not in MIDDLE_DOTS]
    if not chars:
        return []
    pattern = f"[{MIDDLE_DOTS}]?".join(re.escape(c) for c in chars)
    return [[m.start(), m.end()] for m in re.finditer(pattern, text, re.IGNORECASE)]


def reference_segments(
    text: str,
    refs: list[Reference],
    url_for: Callable[[str], str | None],
    fixes: dict[int, dict] | None = None,
    terms: list[tuple[int, int, str, str | None]] | None = None,
    term_url: Callable[[str], str] | None = None,
) -> list[list]:
    """``text`` as ``[[text, url_or_None, rule_or_None, mark_or_None], ...]``: each located reference links to
    its clause. A span in ``fixes`` (by start offset, kb.versions.staleref) prints an outdated number: it
    links to the rule meant, marked ``{"kind": "stale", "printed", "meant"}`` (the text stays as printed).
    ``terms`` (kb.versions.termlinks: start, end, term, defining rule) outside references link to
    ``term_url(term)``, marked ``{"kind": "term", "term", "rule"}``."""
    fixes = fixes or {}
    spans: list[tuple[int, int, str | None, str | None]] = []  # (start, end, term or None, rule)
    for ref in refs:
        if 0 <= ref.start < ref.end <= len(text) and text[ref.start : ref.end] == ref.raw:
            if spans and ref.start < spans[-1][1]:
                continue  # a range ("509.1-3") shares one span: link it to its first clause
            spans.append((ref.start, ref.end, None, ref.rule))
    spans.sort(key=lambda sp: sp[:2])
    if terms and term_url is not None:
        taken = [(s, e) for s, e, _, _ in spans]
        for s, e, term, rule in terms:
            if 0 <= s < e <= len(text) and not any(s < b and a < e for a, b in taken):
                spans.append((s, e, term, rule))
        spans.sort(key=lambda sp: sp[:2])
    segs: list[list] = []
    pos = 0
    for s, e, term, rule in spans:
        if s < pos:
            continue
        if s > pos:
            segs.append([text[pos:s], None, None, None])
        fix = fixes.get(s) if term is None else None
        if term is not None and term_url is not None:
            segs.append([text[s:e], term_url(term), None, {"kind": "term", "term": term, "rule": rule}])
        elif fix is not None:
            mark = {"kind": "stale", "printed": fix["printed"], "meant": fix["meant"]}
            segs.append([text[s:e], url_for(fix["meant"]), fix["meant"], mark])
        else:
            segs.append([text[s:e], url_for(rule), rule, None])
        pos = e
    if pos < len(text):
        segs.append([text[pos:], None, None, None])
    return segs


def excerpt(text: str, n: int = 80, *, cut: bool = False) -> str:
    """``text`` on one line, at most ``n`` characters; ``cut`` says ``text`` is already the head of a longer one."""
    text = " ".join(text.split())
    if len(text) > n:
        return text[: n - 1] + "…"
    return text + "…" if cut else text


def percent(x: float | None) -> str:
    """A similarity as a percentage that never rounds a difference away: 0.997 -> 99.7%, 1.0 -> 100%."""
    p = (x or 0.0) * 100
    if p >= 100:
        return "100%"
    if p >= 99:
        return f"{math.floor(p * 10) / 10:.1f}%"
    return f"{p:.0f}%"
