"""The search thesaurus: player words -> rules words, old <-> new vocabulary, Japanese <-> English.

Entries live in ``kb/data/thesaurus.tsv`` (documented there and in docs/search.md). Matching is on
analysed word keys, not on raw strings, so ``場`` rewrites ``場に出る`` but never ``場合``, and the
notation variants the analyzer folds (dots, long vowels, inflections) match too.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

from kb import analysis
from kb.analysis import BUILTIN_VOCAB, words

DATA = Path(__file__).resolve().parents[1] / "data"
DEFAULT_PATH = DATA / "thesaurus.tsv"
PLAYERS_PATH = DATA / "thesaurus-players.tsv"  # how players write: every line names its reason and source
KINDS = ("colloquial", "old", "ja-en")


def keys(text: str, vocab: frozenset[str] = BUILTIN_VOCAB) -> tuple[str, ...]:
    """Word keys of a phrase as the analyzer indexes them."""
    return tuple(w.key for w in words(text, vocab))


def analysis_fingerprint(vocab: frozenset[str]) -> str:
    """What word keys depend on: the vocabulary, the analysis code and Janome's version. Keys analysed
    under another fingerprint (an index built by older code) are analysed again, not trusted."""
    h = hashlib.sha256("\n".join(sorted(vocab)).encode())
    h.update(Path(analysis.__file__).read_bytes())
    h.update(version("janome").encode())
    return h.hexdigest()[:24]


def english_key(text: str) -> str:
    """Lower-cased, space-normalised English phrase."""
    return " ".join(re.findall(r"[a-z0-9']+", text.lower()))


@dataclass
class Thesaurus:
    """Rewrites of a query's word keys and translations between Japanese and English."""

    vocab: frozenset[str] = BUILTIN_VOCAB
    # keys -> {(replacement phrase, kind)}; kind "colloquial", "old" (old -> new) or "older" (new -> old)
    rewrites: dict[tuple[str, ...], set[tuple[str, str]]] = field(default_factory=dict)
    ja2en: dict[tuple[str, ...], set[str]] = field(default_factory=dict)
    en2ja: dict[str, set[str]] = field(default_factory=dict)
    # phrase -> its word keys: analysing two thousand glossary names with Janome costs a second, so the
    # index build writes the keys beside the index (KEYS_FILE) and each searcher start reads them.
    key_cache: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def load(
        cls,
        path: str | Path | None = None,
        vocab: frozenset[str] = BUILTIN_VOCAB,
        pairs: dict | None = None,
        key_cache: dict[str, list[str]] | None = None,
    ) -> Thesaurus:
        """Read the TSV files (default: thesaurus.tsv and thesaurus-players.tsv), plus ``pairs``:
        ja -> [english] from the KB's glossaries and running text; ``key_cache``: phrase -> word keys
        already analysed with ``vocab`` (as written at index build)."""
        th = cls(vocab=vocab, key_cache={k: tuple(v) for k, v in (key_cache or {}).items()})
        for p in [Path(path)] if path is not None else [DEFAULT_PATH, PLAYERS_PATH]:
            th._read(p, sourced=p.name == PLAYERS_PATH.name)
        for ja, ens in (pairs or {}).items():
            for en in ens:
                th.add_pair(ja, en)
        return th

    def _read(self, path: Path, *, sourced: bool) -> None:
        th = self
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 3 or cols[2] not in KINDS:
                raise ValueError(f"{path}:{lineno}: expected FROM<TAB>TO<TAB>KIND ({'|'.join(KINDS)})")
            if sourced and (len(cols) < 5 or not cols[3].strip() or not cols[4].strip()):
                raise ValueError(f"{path}:{lineno}: expected FROM<TAB>TO<TAB>KIND<TAB>REASON<TAB>SOURCE")
            src, dst, kind = cols[0].strip(), cols[1].strip(), cols[2].strip()
            if kind == "ja-en":
                th.add_pair(src, dst)
                continue
            th._add_rewrite(src, dst, kind)
            if kind == "old":
                th._add_rewrite(dst, src, "older")  # old texts stay findable with today's words

    def _keys(self, text: str) -> tuple[str, ...]:
        k = self.key_cache.get(text)
        if k is None:
            k = self.key_cache[text] = keys(text, self.vocab)
        return k

    def _add_rewrite(self, src: str, dst: str, kind: str) -> None:
        k = self._keys(src)
        if k:
            self.rewrites.setdefault(k, set()).add((dst, kind))

    def add_pair(self, ja: str, en: str) -> None:
        """Record a Japanese <-> English term pair."""
        k, e = self._keys(ja), english_key(en)
        if k and e and len(e) >= 3:
            self.ja2en.setdefault(k, set()).add(en)
            self.en2ja.setdefault(e, set()).add(ja)

    def _ja_first(self) -> dict:
        """ja2en keys by their first word (rebuilt when pairs were added since)."""
        if getattr(self, "_ja_index", (None, -1))[1] != len(self.ja2en):
            self._ja_index = (_by_first(self.ja2en), len(self.ja2en))
        return self._ja_index[0]

    def _en_first(self) -> dict:
        """en2ja phrases by their first word (rebuilt when pairs were added since)."""
        if getattr(self, "_en_index", (None, -1))[1] != len(self.en2ja):
            self._en_index = (_by_first(self.en2ja), len(self.en2ja))
        return self._en_index[0]

    def rewrite(self, qkeys: list[str], kinds: tuple[str, ...] = ("colloquial", "old")) -> list[tuple[int, int, str]]:
        """(start, length, phrase): spans of ``qkeys`` a rewrite of ``kinds`` matches, and the phrase to put there."""
        out = []
        for k, dsts in self.rewrites.items():
            for i in _find(qkeys, k):
                out.extend((i, len(k), dst) for dst, kind in sorted(dsts) if kind in kinds)
        return out

    def to_english(self, qkeys: list[str]) -> list[str]:
        """English terms for Japanese terms found in the query (longest matches)."""
        found = []
        # Only the entries starting with one of the query's words (the table holds thousands).
        firsts = self._ja_first()
        for k in sorted({k for q in set(qkeys) for k in firsts.get(q, ())}, key=firsts["#order"].__getitem__):
            ens = self.ja2en[k]
            if _find(qkeys, k):
                found.append((len(k), sorted(ens)))
        found.sort(key=lambda x: -x[0])
        return [en for _, ens in found[:3] for en in ens[:2]]

    def names_for(self, qkeys: list[str], query: str) -> list[str]:
        """Translations of a query that is, as a whole, a known term (追放 -> Exile, trample -> トランプル)."""
        return sorted(self.ja2en.get(tuple(qkeys), set()) | self.en2ja.get(english_key(query), set()))

    def to_japanese(self, query: str) -> list[str]:
        """Japanese terms for English terms found in the query (longest first)."""
        q = f" {english_key(query)} "
        firsts = self._en_first()
        cands = sorted({e for w in set(q.split()) for e in firsts.get(w, ())}, key=firsts["#order"].__getitem__)
        hits = [(len(e), sorted(self.en2ja[e])) for e in cands if f" {e} " in q]
        hits.sort(key=lambda x: -x[0])
        return [ja for _, jas in hits[:3] for ja in jas[:2]]


def _by_first(entries) -> dict:
    """Entries by their first word, and under "#order" each entry's place in the table (ties keep it)."""
    out: dict = {"#order": {}}
    for i, e in enumerate(entries):
        out.setdefault(e[0] if isinstance(e, tuple) else e.split()[0], []).append(e)
        out["#order"][e] = i
    return out


def _find(seq: list[str], sub: tuple[str, ...]) -> list[int]:
    n = len(sub)
    return [i for i in range(len(seq) - n + 1) if tuple(seq[i : i + n]) == sub]


def mine_renames(aligned, tokens, *, min_count: int = 4, share: float = 0.3) -> list[tuple[str, str, int]]:
    """Old -> new wordings mined from aligned clause pairs (the lineage of edited and moved clauses).

    For each pair with a small difference, every word or word pair only in the old text is counted
    with every one only in the new text; a rename is a pair seen at least ``min_count`` times that
    accounts for at least ``share`` of both sides' appearances, best for its old side
    (English: "in play" -> battlefield, "tribal" -> kindred, "converted mana cost" -> "mana value").
    """
    pairs: Counter = Counter()
    olds: Counter = Counter()
    news: Counter = Counter()
    for old_text, new_text in aligned:
        ta, tb = tokens(old_text), tokens(new_text)
        if not (1 <= len(set(ta) - set(tb)) <= 4 and 1 <= len(set(tb) - set(ta)) <= 4):
            continue  # a rewrite, not a rename
        a, b = _grams(ta), _grams(tb)
        only_old, only_new = a - b, b - a
        olds.update(only_old)
        news.update(only_new)
        pairs.update((x, y) for x in only_old for y in only_new)
    best: dict[str, tuple[int, str]] = {}
    for (x, y), n in pairs.items():
        if n < min_count or n < share * olds[x] or n < share * news[y] or not (_wordy(x) and _wordy(y)):
            continue
        if x.replace("_", "") == y.replace("_", "") or set(x.split()) & set(y.split()):
            continue  # formatting, or a longer phrase around the same word
        # ties go to one word over a phrase, then to the longer word ("battlefield" over "onto")
        if x not in best or _rank(n, y) > _rank(*best[x]):
            best[x] = (n, y)
    return sorted(((x, y, n) for x, (n, y) in best.items()), key=lambda r: (-r[2], r[0]))


def _rank(n: int, gram: str) -> tuple:
    return (n, -len(gram.split()), len(gram), gram)


def _grams(toks: list[str]) -> set[str]:
    return set(toks) | {f"{a} {b}" for a, b in zip(toks, toks[1:], strict=False)}


def _wordy(gram: str) -> bool:
    return all(re.fullmatch(r"[a-z]{3,}|[\u3040-\u30ff\u4e00-\u9fff]+", w) for w in gram.split())
