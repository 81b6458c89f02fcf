"""Snippets and highlights of search hits: where the query's words are in a text, in its original offsets.

Kept apart from kb.analysis on purpose: that module's bytes fingerprint every analysis a KB carries
(the thesaurus keys, the index's analysed texts), and how a hit is shown must be free to change
without making every built KB analyse its texts again.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict

from kb.analysis import _DOTS, _E_ROW, _O_ROW, _U_ROW, normalize_mapped

_KATAKANA = re.compile(r"[\u30a1-\u30fa]")
_ASCII_WORD = re.compile(r"[a-z0-9]")


def _canon(norm: str) -> tuple[str, list[int]]:
    """A normalised text as highlights compare it: no ・, katakana long vowels folded (プレーヤー =
    プレイヤー); with the index in ``norm`` of each kept character."""
    out: list[str] = []
    where: list[int] = []
    for i, c in enumerate(norm):
        if c == _DOTS:
            continue
        prev = out[-1] if out else ""
        if _KATAKANA.match(prev) and (
            c == "ー" or (c == "イ" and prev in _E_ROW) or (c == "ウ" and (prev in _O_ROW or prev in _U_ROW))
        ):
            continue
        out.append(c)
        where.append(i)
    return "".join(out), where


def _worth_marking(lit: str) -> bool:
    """A literal worth a highlight: not a lone kana, long-vowel mark or Latin letter (every ー, every s)."""
    if not lit:
        return False
    return len(lit) > 1 or bool(re.match(r"[\u4e00-\u9fff\u3400-\u4dbf々0-9]", lit))


MARKED_CHARS = 600_000  # characters of texts kept with their highlight forms: ~43 bytes each, ~26 MB
_marked: OrderedDict[str, tuple] = OrderedDict()
_marked_chars = 0
_marked_lock = threading.Lock()


def _marked_text(text: str) -> tuple[str, list[int], list[int], str, list[int]]:
    """A text as highlights read it (normalised, its canonical form, the offsets of both), computed
    once per text: a search's hits are mostly clauses earlier searches showed (median 106 characters).
    Kept least recently used first out within ``MARKED_CHARS``; a text over a hundredth of that is not
    kept. Read-only."""
    global _marked_chars
    with _marked_lock:
        found = _marked.get(text)
        if found is not None:
            _marked.move_to_end(text)
            return found
    norm, starts, ends = normalize_mapped(text)
    canon, where = _canon(norm)
    found = (norm, starts, ends, canon, where)
    if len(text) <= MARKED_CHARS // 100:
        with _marked_lock:
            if text not in _marked:
                _marked[text] = found
                _marked_chars += len(text)
                while _marked_chars > MARKED_CHARS:
                    old, _ = _marked.popitem(last=False)
                    _marked_chars -= len(old)
    return found


def highlight_spans(text: str, lits: list[str]) -> list[list[int]]:
    """[start, end] spans of ``lits`` in ``text``, original offsets, longest literal first.

    Matching ignores width, case and ・ and folds katakana long vowels, so ``ブロッククリーチャー``
    marks the whole ``ブロック・クリーチャー`` and ``S・トリガー`` its ``S`` too. A Latin literal
    starts at a word start and marks the whole word (``block`` marks ``blocked``)."""
    norm, starts, ends, canon, where = _marked_text(text)
    taken = [False] * len(canon)
    spans = []
    for lit in sorted(dict.fromkeys(lits), key=lambda w: -len(w)):
        lit = _canon(normalize_mapped(lit)[0])[0].strip()
        if not _worth_marking(lit):
            continue
        latin = bool(_ASCII_WORD.match(lit[0]))
        i = canon.find(lit)
        while i >= 0:
            j = i + len(lit)
            if latin:
                if i > 0 and _ASCII_WORD.match(canon[i - 1]):
                    i = canon.find(lit, i + 1)
                    continue
                while j < len(canon) and _ASCII_WORD.match(canon[j]):
                    j += 1
            if not any(taken[i:j]):
                taken[i:j] = [True] * (j - i)
                last = where[j - 1]
                # The long vowels folded away right after the match belong to it (クリーチャ|ー).
                while last + 1 < (where[j] if j < len(canon) else len(norm)) and norm[last + 1] != _DOTS:
                    last += 1
                spans.append([starts[where[i]], ends[last]])
            i = canon.find(lit, j)
    return sorted(spans)


SNIPPET_SCAN = 30_000
_SENTENCE_END = re.compile(r"[。．！？!?]|\.(?=\s)|\n")
_WORD_GAP = re.compile(r"[\s、，,]")


def _cut_before(text: str, pos: int, reach: int) -> int:
    """A start at or before ``pos``: after a sentence end within ``reach``, else after a space or 、."""
    lo = max(0, pos - reach)
    ends = [m.end() for m in _SENTENCE_END.finditer(text, lo, pos)]
    if ends:
        return ends[-1] + (1 if ends[-1] < len(text) and text[ends[-1]] == " " else 0)
    gaps = [m.end() for m in _WORD_GAP.finditer(text, lo, pos)]
    return gaps[-1] if gaps else pos - reach // 2  # no boundary near: a little context before


def _cut_after(text: str, pos: int, reach: int) -> int:
    """An end at or after ``pos``: a sentence end within ``reach``, else before a space or 、, else ``pos``."""
    m = _SENTENCE_END.search(text, pos, min(len(text), pos + reach))
    if m:
        return m.end()
    gaps = [g.start() for g in _WORD_GAP.finditer(text, max(0, pos - reach), pos)]
    return gaps[-1] if gaps else pos


def snippet_for(text: str, lits: list[str], width: int = 160) -> tuple[str, int, list[list[int]]]:
    """A slice of ``text`` around the first highlight, cut at sentence or word boundaries (the whole
    text when it is short), its start, and the highlight offsets inside it."""
    spans = highlight_spans(text[:SNIPPET_SCAN], lits)  # a snippet comes from the head of a huge text
    if len(text) <= width + width // 4:
        start, end = 0, len(text)
    else:
        first = spans[0][0] if spans else 0
        start = 0 if first < width // 2 else _cut_before(text, first, width // 2)
        end = min(len(text), start + width)
        if end < len(text):
            end = _cut_after(text, end, width // 4)
            if end <= first:
                end = min(len(text), start + width)
    marks = [[a - start, b - start] for a, b in spans if a >= start and b <= end]
    return text[start:end], start, marks
