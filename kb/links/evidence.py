"""What a citation's own words say: the stems of its line, test name and file, weighed by how rare each
is in the rules, and how well they fit a clause.

Words the rules never use (engine identifiers, card names) weigh nothing: only the rules' vocabulary
can speak for or against a clause. A rare word ("7c", "sacrifice", "life") weighs more than a common
one ("player", "card").
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

# Words that say nothing about which clause is meant (English glue, test vocabulary).
_STOP_WORDS = """a an the and or of to in on for with by at as is are be been being it its this that these those from
    into not no if then than when while which who whom what where how so but also only any all each every
    other another same such can cannot will would may might must should could do does did has have had
    test tests testing should given case cases check checks rule rules cr c r see per via we our you your
    i me my mtg magic comprehensive implement implements implemented handle handles handled correctly
    work works todo note fixme example examples e g ie eg etc vs"""
STOP = frozenset(_STOP_WORDS.split())
_ID = re.compile(r"(?<![\w.])[1-9]\d\d(?:[._ ]\d{1,3}[a-z]{0,2}(?![a-z]))?(?![\w])")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_TOKEN = re.compile(r"[a-z0-9]+")


_IRREGULAR = {"won": "win", "lost": "lose", "dealt": "deal", "paid": "pay", "chosen": "choose", "drawn": "draw"}


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A rough stem, enough to meet inflections: provoked/provoke, vigilant/vigilance, dashed/dash, starting/start."""
    w = word.lower()
    w = _IRREGULAR.get(w, w)
    if w.isdigit() or len(w) <= 3:
        return w
    for suffix in ("ings", "ing", "ied", "ies", "ed", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith(("ss", "us", "is")):
            w = w[: -len(suffix)] + ("y" if suffix in ("ied", "ies") else "")
            break
    for suffix in ("ance", "ence", "ant", "ent"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            w = w[: -len(suffix)]
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]  # tapped -> tapp -> tap
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


_ANNOTATION = re.compile(r"(?i)\b(?:written|checked|updated)\s+(?:against|for)\b[^,;:)]*|\b(?:19|20)\d\d-?\d\d-?\d\d\b")


def stems(text: str) -> list[str]:
    """Content stems of some prose or an identifier (camelCase and snake_case split; clause ids, dates and
    "written against" annotations dropped)."""
    text = _ID.sub(" ", _CAMEL.sub(" ", _ANNOTATION.sub(" ", text).replace("_", " ")))
    # a lone letter is no word ("can't", "it's", a file named t.py); a long number is no word either
    return [
        stem(t)
        for t in _TOKEN.findall(text.lower())
        if t not in STOP and not (t.isdigit() and len(t) > 2) and not (len(t) == 1 and t.isalpha())
    ]


_CUE = re.compile(r"(?i)\b(?:c\.?r\.?|rules?|comprehensive rules)\b\.?")


def spaced(text: str) -> str:
    """Identifiers written as words: ``battle_cry_count`` -> battle cry count, ``clashLog`` -> clash Log."""
    return _CAMEL.sub(" ", text).replace("_", " ")


def without_ids(text: str) -> str:
    """Prose with its clause ids, dates and citation cue words taken out (what a search for the clause uses)."""
    return _CUE.sub(" ", _ID.sub(" ", _ANNOTATION.sub(" ", text)))


def test_name(test_id: str) -> str:
    """The last part of a test id (``path::Class::test_fn``, ``Class#method``, ``describe > it``)."""
    for sep in ("::", "#", " > "):
        test_id = test_id.rsplit(sep, 1)[-1]
    return test_id


def file_words(path: str) -> str:
    """A file's name without its extension and the usual test affixes."""
    name = os.path.splitext(os.path.basename(path))[0]
    return re.sub(r"(?i)^test_?|_?tests?$|\.(?:test|spec)$", "", name)


class Weights:
    """Inverse document frequency of stems over a version's clauses (0 for a stem the rules never use)."""

    def __init__(self, docs: Iterable[frozenset[str]]):
        df: Counter = Counter()
        n = 0
        for doc in docs:
            df.update(doc)
            n += 1
        self._idf = {w: math.log((n + 1) / (c + 0.5)) for w, c in df.items()}

    def of(self, word: str) -> float:
        return self._idf.get(word, 0.0)


def line_words(parts: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Stem -> how much the citation stands behind it (its own line 1.0, the file name less)."""
    out: dict[str, float] = {}
    for text, weight in parts:
        for s in stems(text):
            out[s] = max(out.get(s, 0.0), weight)
    return out


def mass(words: dict[str, float], idf: Weights) -> float:
    """How much the words could say at all."""
    return sum(w * idf.of(s) for s, w in words.items())


def fit(words: dict[str, float], doc: frozenset[str], idf: Weights) -> float:
    """Share of the words' weight found in ``doc`` (0..1; 0 when the words say nothing)."""
    total = mass(words, idf)
    if total <= 0:
        return 0.0
    return sum(w * idf.of(s) for s, w in words.items() if s in doc) / total
