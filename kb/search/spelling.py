"""English words typed wrong ("protecton from red", "comander damage"): the nearest word the rules use.

A Japanese name typed with an IME slip is read alike (kb.search.searcher, tier 2.65); an English word
with a letter missing, doubled, swapped or wrong finds nothing in the words' tiers, and the query's
meaning falls to the dense vector alone. Here a word no indexed text holds becomes the word of the
rules' names (the English words of headings and glossary terms) within one edit of it (two for words of
seven letters or more) that starts with the same letter, the most frequent one on a tie. Short words
(under five letters: ETB, CMC, SBA) and the thesaurus' own words are left as typed.

Candidates come from a symmetric-delete index (SymSpell's idea, one delete on each side): every word
of the vocabulary under itself and each of its one-letter deletions, looked up by the typed word and
each of its one-letter deletions, then checked by the edit distance.
"""

from __future__ import annotations

import re

from kb.versions.editorial import distance

MIN_LEN = 5  # shorter words are abbreviations and slang far more often than typos
MIN_DF = 2  # a word one text holds once is no word to correct others to
_WORD = re.compile(r"[A-Za-z]+")


def deletes(word: str) -> set[str]:
    """The word with each one of its letters left out."""
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


class Speller:
    """Corrections of English words against a vocabulary of word -> document frequency."""

    def __init__(self, vocab: dict[str, int], known: set[str] | frozenset[str] = frozenset()) -> None:
        self.vocab = vocab  # the words to correct to
        self.known = set(known) | set(vocab)  # the words any text holds: never corrected
        self.index: dict[str, list[str]] = {}
        for w, df in vocab.items():
            if df >= MIN_DF and len(w) >= MIN_LEN - 1 and w.isalpha():
                for d in deletes(w) | {w}:
                    self.index.setdefault(d, []).append(w)

    @classmethod
    def of_reader(cls, reader) -> Speller:
        """The index's unstemmed English words (field ``ew``, with how many documents hold each) that a title
        holds (field ``et``, stemmed): the names of rules, keywords and glossary terms, whose misspellings
        people type, and not the running text's every word ("hello" is no "hell", "weather" no "whether")."""
        titled = {t.decode("utf-8") for t, _ in reader.iter_field("et")}
        stem = reader.schema["et"].analyzer
        vocab, known = {}, set()
        for t, info in reader.iter_field("ew"):
            word = t.decode("utf-8")
            known.add(word)
            stems = [tok.text for tok in stem(word)]
            if stems and all(s in titled for s in stems):
                vocab[word] = info.doc_frequency()
        return cls(vocab, known)

    def correct(self, word: str) -> str | None:
        """The vocabulary's word for ``word`` (lower case), or None when it is known or has none near."""
        if len(word) < MIN_LEN or word in self.known or not word.isalpha():
            return None
        limit = 1 if len(word) < 7 else 2
        found = {c for d in deletes(word) | {word} for c in self.index.get(d, ())}
        near = [(distance(word, c), -self.vocab[c], c) for c in found if c[0] == word[0]]
        near = [n for n in near if n[0] <= limit]
        return min(near)[2] if near else None

    def text(self, text: str, keep=lambda word: False) -> tuple[str, list[tuple[str, str]]]:
        """``text`` with its unknown English words corrected, and the (typed, corrected) pairs; ``keep(word)``
        says a word to leave as typed (a thesaurus entry)."""
        fixes: list[tuple[str, str]] = []

        def fix(m: re.Match) -> str:
            typed = m.group(0)
            word = typed.lower()
            right = None if keep(word) else self.correct(word)
            if right is None:
                return typed
            fixes.append((typed, right))
            return right

        return _WORD.sub(fix, text), fixes
