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


def html(nodes: list[dict], *, open_all: bool = False, open_top: bool = False) -> Markup:
    """The ``<li>`` items of the contents list: sections and rules fold in ``<details>`` (open when
    ``open_all``; the top entries alone with ``open_top``), clauses nest in plain lists. Written out here
    rather than by a recursive template macro, which took most of a cold contents page's time (3,000 entries)."""
    out: list[str] = []
    for entry in tree(nodes, open_all=open_all):
        entry["open"] = entry["open"] or open_top
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


# -- a large table of contents by part -----------------------------------------------------------------
def part_of(rule: str, split: set[str]) -> str:
    """The part an entry belongs to: its section (``7``), or its rule (``702``) when its section is split."""
    head = rule.split(".")[0]
    return head if head[:1] in split and len(head) > 1 else head[:1]


def parts(nodes: list[dict], base_url: str, per_part: int) -> list[dict]:
    """The parts of a contents list, in order: one per section, and one per rule in a section of more
    than ``per_part`` entries (section 7 of a whole edition: 1,500 entries). Every entry is in one part."""
    sizes: dict[str, int] = {}
    for n in nodes:
        sizes[n["rule"][:1]] = sizes.get(n["rule"][:1], 0) + 1
    split = {s for s, size in sizes.items() if size > per_part}
    titles = {n["rule"]: n["title"] or n["excerpt"] for n in nodes if n["depth"] < 2}
    out: dict[str, dict] = {}
    for n in nodes:
        key = part_of(n["rule"], split)
        if key not in out:
            out[key] = {"key": key, "title": titles.get(key, ""), "entries": 0, "url": f"{base_url}?part={key}"}
            out[key]["section"] = key[:1]
        out[key]["entries"] += 1
    return list(out.values())


def part_nodes(nodes: list[dict], key: str, parts_: list[dict]) -> list[dict]:
    """The entries of one part (see ``parts``)."""
    split = {p["section"] for p in parts_ if len(p["key"]) > 1}
    return [n for n in nodes if part_of(n["rule"], split) == key]


def outline_html(nodes: list[dict], parts_: list[dict]) -> Markup:
    """The folded contents: each section with its rules as links, each part a ``<details>`` whose entries
    are loaded when opened (app.js) or read on the part's own page."""
    rules: dict[str, list[dict]] = {}
    for n in nodes:
        if n["depth"] == 1:
            rules.setdefault(n["rule"][:1], []).append(n)
    by_section: dict[str, list[dict]] = {}
    for p in parts_:
        by_section.setdefault(p["section"], []).append(p)
    out: list[str] = []
    for section, members in by_section.items():
        if len(members) == 1 and members[0]["key"] == section:
            p = members[0]
            out.append(f'<li class="d0" data-rule="{escape(section)}">')
            out.append(_part_summary(p))
            out.append("<ul>" + "".join(f"<li>{_link(r)}</li>" for r in rules.get(section, [])) + "</ul>")
            out.append(
                f'<p><a href="{escape(p["url"])}">{escape(section)} の目次をすべて表示</a></p></div></details></li>'
            )
            continue
        head = next((n for n in nodes if n["rule"] == section), None)
        title = escape(head["title"] or head["excerpt"]) if head else ""
        total = sum(p["entries"] for p in members)
        members = [p for p in members if p["key"] != section]  # the heading alone: this summary shows it
        out.append(
            f'<li class="d0" data-rule="{escape(section)}"><details><summary><span class="rid">{escape(section)}</span>'
            f" {title} <small>（{total} 項目、規則ごと）</small></summary><ul>"
        )
        for p in members:
            out.append(f'<li class="d1" data-rule="{escape(p["key"])}">{_part_summary(p)}')
            out.append(
                f'<p><a href="{escape(p["url"])}">{escape(p["key"])} の目次をすべて表示</a></p></div></details></li>'
            )
        out.append("</ul></details></li>")
    return Markup("".join(out))


def _part_summary(p: dict) -> str:
    return (
        f'<details class="part" data-src="{escape(p["url"])}" id="part-{escape(p["key"])}"><summary>'
        f'<span class="rid">{escape(p["key"])}</span> {escape(p["title"])} <small>（{p["entries"]} 項目）</small>'
        '</summary><div class="part-body">'
    )
