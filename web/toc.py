"""The table of contents as a tree (sections > rules > clauses > sub-clauses), whole or filtered."""

from __future__ import annotations

import re
import unicodedata

from markupsafe import Markup, escape

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


_HIRAGANA = {c: c + 0x60 for c in range(0x3041, 0x3097)}
_DROPPED = re.compile(r"[\u30fb\s]")


def fold(s: str) -> str:
    """What the contents filter compares (web/static/fold.js does the same in the browser): NFKC (full
    width letters and digits narrow, half-width katakana full), lower case, hiragana as katakana
    (ぶろっく finds ブロック), no middle dots or spaces (ブロッククリーチャー finds ブロック・クリーチャー)."""
    s = unicodedata.normalize("NFKC", s).lower().translate(_HIRAGANA)
    return _DROPPED.sub("", s)


def matching(nodes: list[dict], q: str) -> list[dict]:
    """The entries whose id starts with ``q`` (``509.1``, ``５０９``) or whose words contain it however it
    is written (``fold``), with their ancestors so that each match keeps its place in the tree."""
    rule = ruleid.normalize(q)
    needle = fold(q)
    hits = {
        n["rule"]
        for n in nodes
        if n["rule"].startswith(rule)
        or (needle and (needle in fold(n["title"] or "") or needle in fold(n["excerpt"] or "")))
    }
    keep = set(hits)
    for r in hits:
        keep.update(ruleid.ancestors(r) if ruleid.parse(r) else [])
    return [n for n in nodes if n["rule"] in keep]


def html(nodes: list[dict], *, open_all: bool = False) -> Markup:
    """The ``<li>`` items of the contents list: sections and rules fold in ``<details>`` (open when
    ``open_all``), clauses nest in plain lists. Written out here rather than by a recursive template
    macro, which took most of a cold contents page's time (3,000 entries)."""
    out: list[str] = []
    for entry in tree(nodes, open_all=open_all):
        _item(entry, out)
    return Markup("".join(out))


def _link(n: dict) -> str:
    return f'<a href="{escape(n["url"])}"><span class="rid">{escape(n["rule"])}</span> {escape(n["title"] or n["excerpt"])}</a>'


def _item(n: dict, out: list[str]) -> None:
    out.append(f'<li class="d{n["depth"]}" data-rule="{escape(n["rule"])}">')
    if n["children"] and n["depth"] < 2:
        label = "の規則を全文で読む" if n["depth"] == 1 else "の規則一覧"
        out.append(
            f'<details{" open" if n["open"] else ""}><summary><span class="rid">{escape(n["rule"])}</span> '
            f'{escape(n["title"] or n["excerpt"])}</summary><ul><li class="self"><a href="{escape(n["url"])}">'
            f'<span class="rid">{escape(n["rule"])}</span> {label}</a></li>'
        )
        _children(n, out)
        out.append("</ul></details>")
    elif n["children"]:
        out.append(_link(n) + "<ul>")
        _children(n, out)
        out.append("</ul>")
    else:
        out.append(_link(n))
    out.append("</li>")


def _children(n: dict, out: list[str]) -> None:
    for child in n["children"]:
        _item(child, out)
