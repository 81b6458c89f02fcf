"""A wiki article for reading: its lead and card boxes, paragraphs with their wiki links and cited rules."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote

_RULE = re.compile(r"(?<![\d.])(\d{3}\.\d{1,3}[a-z]{0,2})(?![\w.])")


def blocks(
    text: str, cards: list[dict], link: Callable[[str], tuple[str, bool] | None], titles: list[str]
) -> list[dict]:
    """The text as paragraphs (``segments``: ``[text, url_or_None, external]``) and card boxes."""
    lines = text.split("\n")
    out: list[dict] = []
    i = 0
    while i < len(lines):
        card = next((c for c in cards if lines[i].startswith(f"{c['name']} / {c['name_ja']}")), None)
        if card is not None:
            out.append(
                {"kind": "card", **{k: card.get(k, "") for k in ("name", "name_ja", "cost", "type", "text", "pt")}}
            )
            i += (
                1
                + bool(card.get("type"))
                + (card["text"].count("\n") + 1 if card.get("text") else 0)
                + bool(card.get("pt"))
            )
            continue
        if lines[i].strip():
            out.append({"kind": "para", "segments": segments(lines[i], link, titles)})
        i += 1
    return out


def segments(line: str, link: Callable[[str], tuple[str, bool] | None], titles: list[str]) -> list[list]:
    """Wiki page titles and cited rule numbers in a line, linked; the rest as text."""
    names = sorted({t for t in titles if t}, key=len, reverse=True)
    pattern = "|".join([re.escape(t) for t in names] + [_RULE.pattern])
    out: list[list] = []
    pos = 0
    for m in re.finditer(pattern, line) if pattern else ():
        target = link(m.group(0))
        if target is None:
            continue
        if m.start() > pos:
            out.append([line[pos : m.start()], None, False])
        out.append([m.group(0), target[0], target[1]])
        pos = m.end()
    if pos < len(line):
        out.append([line[pos:], None, False])
    return out


def wiki_url(base: str, title: str) -> str:
    return base + quote(title.replace(" ", "_"))


def lead_of(article: dict) -> str:
    """The text before the first heading (stored by the parser; else what the sections do not account for)."""
    extra = article.get("extra") or {}
    if "lead" in extra:
        return extra["lead"]
    rest = "\n".join(f"{s['title']}\n{s['text']}".strip() for s in article.get("sections", []))
    text = article.get("text", "")
    return text[: len(text) - len(rest)].rstrip("\n") if rest and text.endswith(rest) else ""
