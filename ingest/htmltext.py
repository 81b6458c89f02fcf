"""Flatten an HTML element into lines of text: one line per block element or ``<br>``-separated run."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from bs4 import Comment, NavigableString, Tag

BLOCKS = frozenset({"p", "div", "li", "dd", "dt", "ul", "ol", "dl", "tr"})


def clean(s: str) -> str:
    """Collapse runs of white space to one space and strip the ends."""
    return re.sub(r"\s+", " ", s).strip()


def flatten(
    el: Tag,
    *,
    skip: Collection[str] = (),
    breaks: Collection[str] = ("br",),
    blocks: Collection[str] = BLOCKS,
    cut: Callable[[Tag], bool] | None = None,
) -> list[str]:
    """Text of ``el``, one entry per paragraph: a block element or a ``breaks`` tag ends a line.

    Elements named in ``skip`` are left out and do not end the line; an element for which ``cut``
    is true is left out and does end it (the viewer reads a nested clause element on its own).
    Comments are never text.
    """
    out: list[str] = []
    cur: list[str] = []

    def flush() -> None:
        if s := clean("".join(cur)):
            out.append(s)
        cur.clear()

    # An explicit stack, not recursion: a page may nest elements thousands deep.
    stack = [(iter(el.children), False)]  # (children left, whether the element is a block)
    while stack:
        children, is_block = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if is_block:
                flush()
        elif isinstance(child, Comment):
            continue
        elif isinstance(child, NavigableString):
            cur.append(str(child))
        elif child.name in skip:
            continue
        elif child.name in breaks or (cut is not None and cut(child)):
            flush()
        else:
            if child.name in blocks:
                flush()
            stack.append((iter(child.children), child.name in blocks))
    flush()
    return out
