"""How sure a page of hits is: a query nothing in the rules answers says so instead of listing guesses.

Every query gets hits: the loose tier matches any one word and the dense layer always has nearest
neighbours, so 今日のランチ or 😀 used to list fifty "results". A page is *high* confidence when its
evidence is words: a hit matched all of the query's words or more (tier 2 and above: all words, a
phrase, a name, a heading; or a rule number). Below that (some of the words, one word, meaning
alone) the query's meaning must be close to a clause: e5's cosines are compressed (0.80-0.92), and
nonsense sits at 0.81-0.86 where real questions in other words sit at 0.86-0.92. A query with no
letter of any script (emoji, punctuation) is never high.

Thresholds were set on bench/queries.tsv and a list of 40 off-topic queries written for it (not on the
frozen blind set): 4 of the 201 answered queries there fall below them, 39 of the 40 off-topic ones do.
Without the dense layer (no embedder) only the word evidence counts.
"""

from __future__ import annotations

import unicodedata

HIGH, LOW = "high", "low"
WORDS_TIER = 2.0  # all of the query's words, or better
SOME_WORDS_COSINE = 0.86  # with some of the words (tiers 1.0-2.0): the meaning must be at least this close
MEANING_COSINE = 0.87  # with one word or meaning alone


def has_letters(text: str) -> bool:
    """True when the text has a letter or digit of any script (not only emoji, symbols, punctuation)."""
    return any(unicodedata.category(ch)[0] in "LN" for ch in text)


def confidence(text: str, tier: float | None, cosine: float | None, rule: bool) -> str:
    """``high`` or ``low`` for a page whose best word tier is ``tier`` and best dense cosine ``cosine``."""
    if rule:
        return HIGH
    if not has_letters(text):
        return LOW
    if tier is not None and tier >= WORDS_TIER:
        return HIGH
    if cosine is None:  # no dense layer: the words decide alone
        return HIGH if tier is not None and tier >= 1.0 else LOW
    if tier is not None and tier >= 1.0:
        return HIGH if cosine >= SOME_WORDS_COSINE else LOW
    return HIGH if cosine >= MEANING_COSINE else LOW
