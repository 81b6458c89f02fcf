"""Turn a user's text into Whoosh queries: tiers of ever looser matches, a loose fallback, highlights.

User text is never handed to Whoosh's query parser: queries are built from analysed words, so
``" ( ) AND OR NOT * : ~ ^`` are plain characters. Layers, each measured in bench/relevance.py:
words (Janome keys, katakana compounds and parts) -> readings (kana input, same-reading slips) ->
thesaurus rewrites (player words, old vocabulary) -> JA<->EN terms -> character bigrams (fallback).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from whoosh.analysis import StemmingAnalyzer
from whoosh.query import And, DisjunctionMax, Or, Phrase, Prefix, Query, Term

from kb import ruleid
from kb.analysis import (
    PASSIVE,
    Word,
    bigrams,
    fold_kana,
    is_kana_only,
    kanji_numerals,
    normalize_mapped,
    title_key,
    to_katakana,
    words,
)
from kb.errors import RulekbError
from kb.search.index import KEYS_FILE, TERMS_FILE
from kb.search.thesaurus import Thesaurus, analysis_fingerprint, english_key

MAX_QUERY = 1000
MAX_UNITS = 12
ALL_LAYERS = frozenset({"reading", "thesaurus", "translate", "bigram", "priors", "dense", "learned"})
HAS_JA = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
_RULE_IN_TEXT = re.compile(rf"(?<![\d.])([1-9]\d{{2}}\.\d{{1,3}}{ruleid.LETTER}{{0,2}})(?![\w.])")
_NEGATION = re.compile(r"(?:[がはも]|され|させ|し|でき|れ|い|き|け|さ)?(?:てい|て)?(?:な[いかくけ]|ず|ません|無)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_english = StemmingAnalyzer()
# Word keys (base forms, okurigana dropped) that wrap a question: 教えて, 知りたい, 分からない, 意味, やり方, ルール.
_ASKING = frozenset(["教", "知", "分", "わかる", "意味", "やり方", "仕方", "方法", "ルル", "規則"])
# (game, what names it, what to drop from the query: nicknames the rules texts never use)
GAME_HINTS = [
    ("dm", re.compile(r"デュエマ|デュエル[・･]?マスターズ|\bDM\b", re.I), re.compile(r"デュエマ|\bDM\b", re.I)),
    ("mtg", re.compile(r"\bMTG\b|マジック|\bmagic: the gathering\b", re.I), re.compile(r"\bMTG\b", re.I)),
]

Tiers = list[tuple[float, Query]]
View = tuple[list[Query], float]  # one way to say the query, as units, and its boost


def clean_query(query: str) -> str:
    """Check a user's query and return it without control characters or outer spaces."""
    if not isinstance(query, str):
        raise RulekbError("the query must be text")
    if len(query) > MAX_QUERY:
        raise RulekbError(f"query too long ({len(query)} characters; at most {MAX_QUERY})")
    text = _CONTROL.sub(" ", query).strip()
    if not text:
        raise RulekbError("empty query: type a word, a phrase or a rule number")
    return text


def is_rule_query(text: str) -> bool:
    """True when the whole text names a clause (``509.1c``, ``ルール509.1c``, ``CR 509.1c``)."""
    return ruleid.parse(ruleid.normalize(text)) is not None


# What people type around a rule number: "CR", "rule", "r", "第…項", "…条", "…とは", a game's name, a version.
_REF_BEFORE = re.compile(
    r"^(?:(?:rules?|r|cr|c\.r\.|comprehensive rules?|総合(?:ゲーム)?ルール|ルール|mtg|magic|マジック|dm|デュエマ|"
    r"デュエル[・･]?マスターズ|第|(?P<version>\d+\.\d+\.\d+\.\d+|(?:19|20)\d{6}(?:\.\d)?))\s*)+"
)
_GAME_NAMES = r"mtg|magic|マジック|dm|デュエマ|デュエル[・･]?マスターズ"
_REF_AFTER = re.compile(
    r"(?:\s*(?:項|条|番|とは|って(?:何|なに)|の?(?:ルール|内容|意味)|を?(?:見せて|教えて|参照)|"
    rf"\(?(?:{_GAME_NAMES})\)?(?:の)?)[?？]?)+$"
)
# Duel Masters' rules are its 総合ゲームルール; Magic's Japanese rules are its 総合ルール
_REF_GAME = [
    ("dm", re.compile(r"^(?:\(?dm|デュエマ|デュエル|総合ゲームルール)")),
    ("mtg", re.compile(r"^(?:\(?mtg|magic|マジック|cr$|c\.r\.$|comprehensive)")),  # Magic's CR; DM's are Japanese
]


@dataclass(frozen=True)
class RuleReference:
    """A query that names one clause, with what it says around the number (CR 704.5a, dm 101.1, 704.5a項)."""

    rule: str
    game: str | None = None
    version: str | None = None


def rule_reference(text: str) -> RuleReference | None:
    """The clause a query names when the rest is only what people type around a rule number ("r704.5a",
    "第704.5a項", "704.5a とは", "rules 704.5a", "704.5 a", "dm 101.1", "5.5.0.0 409.1"), else None."""
    s = unicodedata.normalize("NFKC", text).strip().lower()
    before = _REF_BEFORE.match(s)
    words = s[before.end() :] if before else s
    words = _REF_AFTER.sub("", words).strip().rstrip(".")
    words = re.sub(r"^(\d{3}\.\d{1,3})\s+([a-z])$", r"\1\2", words)  # 704.5 a
    if not words or ruleid.parse(words) is None or words != ruleid.normalize(words):
        return None
    after = _REF_AFTER.search(s[before.end() :] if before else s)
    said = (s[: before.end()] if before else "") + " " + (after.group(0) if after else "")
    game = next((g for g, name in _REF_GAME if any(name.match(w) for w in said.split())), None)
    version = before.group("version") if before else None
    return RuleReference(words, game, version)


QUOTES = re.compile(r'["“”＂]([^"“”＂]+)["“”＂]')


def quoted(text: str) -> list[str]:
    """The "quoted phrases" of a query, in order."""
    return [m.strip() for m in QUOTES.findall(text) if m.strip()]


def bigram_query(text: str) -> Query | None:
    """Docs holding every character bigram of the text (the last resort for unknown words)."""
    grams = list(dict.fromkeys(g for g, _, _ in bigrams(text)))
    if not grams:
        return None
    return And([Term("jb", g) for g in grams[:24]])


def en_terms(text: str) -> list[str]:
    """The distinct English stems of the text, in order."""
    return list(dict.fromkeys(t.text for t in _english(text)))


def singular(key: str) -> str | None:
    """An English name key in the singular (layers → layer, abilities → ability), or None: the rules' headings
    and glossary entries name things in the plural and the singular alike (Layer, State-Based Actions)."""
    if not key.isascii() or len(key) < 4 or key[-1] != "s" or key.endswith(("ss", "us", "is")):
        return None
    return key[:-3] + "y" if key.endswith("ies") else key[:-1]


@dataclass
class _Views:
    """The ways one query is said, as the layers add them (a view: units, one per word, and a boost)."""

    text: str  # the query, kanji numerals as digits
    norm: str  # its normalised form
    qwords: list[Word]  # its own words, less a question's wrapper
    native: list[View] = field(default_factory=list)  # said in the texts' own words
    translated: list[View] = field(default_factory=list)  # through the JA<->EN term table
    older: list[View] = field(default_factory=list)  # today's words in old vocabulary
    renamed: list[View] = field(default_factory=list)  # English wordings the editions replaced
    lits: set[str] = field(default_factory=set)  # highlight literals
    names: list[str] = field(default_factory=list)  # translations of the whole query as a term
    aliases: list[str] = field(default_factory=list)  # the rules' words for a whole query of player words (サクる)
    tkeys: list[str] = field(default_factory=list)  # the keys to translate (the katakana reading of kana input)

    def __post_init__(self) -> None:
        self.qkeys = [w.key for w in self.qwords]
        self.tkeys = self.tkeys or self.qkeys


class QueryBuilder:
    """Build the tiers of queries for user text from the index's vocabulary and JA<->EN tables."""

    def __init__(
        self,
        vocab,
        thesaurus: Thesaurus,
        renames: list[tuple[list[str], list[str]]],
        layers: frozenset[str],
        current_reader: Callable[[], object | None],
    ):
        self.vocab = vocab
        self.thesaurus = thesaurus
        self.renames = renames
        self.layers = layers
        # This thread's reader of the default-scope index, or None when there is none.
        self.current_reader = current_reader
        self._readings_cache: dict[str, str | None] = {}

    @classmethod
    def from_index(
        cls, index_dir: str | Path, vocab, layers: frozenset[str], current_reader: Callable[[], object | None]
    ) -> QueryBuilder:
        """A builder reading the terms table (JA<->EN pairs, mined renames) written beside the index."""
        pairs_path = Path(index_dir) / TERMS_FILE
        table = json.loads(pairs_path.read_text(encoding="utf-8")) if pairs_path.exists() else {}
        keys_path = Path(index_dir) / KEYS_FILE
        analysed = json.loads(keys_path.read_text(encoding="utf-8")) if keys_path.exists() else {}
        if analysed.get("fingerprint") != analysis_fingerprint(vocab):
            analysed = {}  # analysed by other code or another vocabulary: analyse again
        thesaurus = Thesaurus.load(vocab=vocab, pairs=table.get("ja2en", {}), key_cache=analysed.get("keys"))
        renames = [(old.split(), new.split()) for old, new, _n in table.get("renames", [])]
        renames.sort(key=lambda r: -len(r[0]))  # the longest old wording first
        return cls(vocab, thesaurus, renames, layers, current_reader)

    def build(self, text: str) -> tuple[Tiers, Query | None, list[str]]:
        """(tiers, loose, highlight literals) for user text.

        Each layer adds views of the query (``_Views``); ``_tiers`` turns them into tiers, best first.
        Tiers: 2.8 a heading, article or glossary term named exactly as the query, 2.7 one named by
        the query's translation, 2.6 one whose name starts with the query (an incomplete or shortened
        name), 2.5 the query's own words as a phrase, 2 every unit of a native view, 1.6 all units but
        one (questions carry words the clause lacks), 1.3 every unit of a translated view, 1.25 an
        English wording the editions replaced (mined renames), 1.2 every unit of today's words put in
        old vocabulary; loose = any unit of any view.
        """
        v = self._own_words(text)
        if "reading" in self.layers:
            self._readings(v)
        if "thesaurus" in self.layers:
            self._rewrites(v)
        self._english(v)
        if "translate" in self.layers:
            self._translations(v)
        for rule in _RULE_IN_TEXT.findall(v.norm):
            v.native.append(([Term("rule", rule, boost=20.0)], 1.0))
        tiers = self._tiers(v)
        views = v.native + v.translated + v.older + v.renamed[:4]
        loose = Or([_boosted(u, b) for units, b in views for u in units]) if views else None
        lits = v.lits - {"", PASSIVE}
        return tiers, loose, sorted(lits, key=lambda w: (-len(w), w))  # longest first; stable across runs

    # -- one method per layer: each adds views (and highlight literals) to ``v`` ------------------
    def _own_words(self, text: str) -> _Views:
        """Layer "words": the query's own Janome keys, less the wrapper of a question."""
        text = kanji_numerals(text)
        qwords = words(text, self.vocab)
        # "…について教えて", "…の意味を知りたい": the wrapper of a question is no word to find.
        qwords = [w for w in qwords if w.key not in _ASKING] or qwords
        v = _Views(text, normalize_mapped(text)[0], qwords)
        v.lits = {w.key for w in qwords} | {p for w in qwords for p, _, _ in w.parts}
        v.lits |= {normalize_mapped(text[w.start : w.end])[0] for w in qwords}
        if qwords:
            v.native.append((self._units(qwords), 1.0))
        return v

    def _readings(self, v: _Views) -> None:
        """Layer "reading": kana-only input read as katakana words and as one whole reading."""
        if not is_kana_only(v.text):
            return
        kata = to_katakana(v.norm.replace(" ", ""))
        kw = words(kata, self.vocab)
        if kw:
            v.native.append((self._units(kw), 0.9))
            v.tkeys = [w.key for w in kw]  # とらんぷる is トランプル: translate that too
        v.native.append(([Term("jr", fold_kana(kata))], 1.2))
        v.lits.add(kata)

    def _rewrites(self, v: _Views) -> None:
        """Layer "thesaurus": player and old words put in today's rules words, and today's in old ones."""
        analyse = lambda t: words(t, self.vocab)  # noqa: E731
        rewrites = self.thesaurus.rewrite(v.qkeys)
        # The whole query is a player's word: the heading or entry named by the rules' word is named.
        v.aliases = [dst for i, n, dst in rewrites if i == 0 and n == len(v.qkeys)]
        for alt, dsts in _rewritten(v.qwords, rewrites, analyse):
            v.native.append((self._units(alt), 0.9))
            v.lits.update(normalize_mapped(d)[0] for d in dsts)
        # Today's word in an old text's words (追放 -> ゲームから取り除く): below today's texts.
        for alt, dsts in _rewritten(v.qwords, self.thesaurus.rewrite(v.qkeys, ("older",)), analyse):
            v.older.append((self._units(alt), 0.8))
            v.lits.update(normalize_mapped(d)[0] for d in dsts)

    def _english(self, v: _Views) -> None:
        """The query's English stems, and (layer "thesaurus") the wordings the editions replaced."""
        en = en_terms(v.text)[:MAX_UNITS]
        if not en:
            return
        v.native.append(([Term("en", t) for t in en], 1.0))
        v.lits.update(re.findall(r"[a-z]{3,}", v.norm))
        if "thesaurus" not in self.layers:
            return
        # Wordings the editions replaced, mined from the lineage ("tribal" -> kindred).
        for old, new in self.renames:
            for i in range(len(en) - len(old) + 1):
                if en[i : i + len(old)] == old:
                    stems = dict.fromkeys(en[:i] + new + en[i + len(old) :])
                    view = ([Term("en", t) for t in stems], 0.9)
                    # A wording today's texts no longer use is searched as today's at once.
                    (v.native if self._obsolete(old) else v.renamed).append(view)
                    break

    def _translations(self, v: _Views) -> None:
        """Layer "translate": the query's terms in the other language (JA<->EN term table)."""
        th = self.thesaurus
        for term in dict.fromkeys(th.to_english(v.qkeys) + th.to_english(v.tkeys)):
            v.translated.append(([Term("en", t) for t in en_terms(term)], 0.5))
            v.lits.update(term.lower().split())
        for term in th.to_japanese(v.text):
            v.translated.append((self._units(words(term, self.vocab)), 0.6))
            v.lits.add(normalize_mapped(term)[0])
        names = th.names_for(v.qkeys, v.text) or th.names_for(v.tkeys, v.text)
        if HAS_JA.search(v.text):
            # ない is no word key, so ブロックされたクリーチャー has the keys of ブロックされていないクリーチャー too:
            # keep the names whose Japanese side negates as the query does (Blocked, not Unblocked Creature).
            negates = bool(self.negated(v.text))
            names = [
                n
                for n in names
                if any(bool(self.negated(ja)) == negates for ja in th.en2ja.get(english_key(n), {v.text}))
            ] or names
        v.names = names

    def _tiers(self, v: _Views) -> Tiers:
        """The views as tiers of ever looser matches, best first."""
        native = [(u, b) for u, b in v.native if u]
        translated = [(u, b) for u, b in v.translated if u]
        older = [(u, b) for u, b in v.older if u]
        tkey = title_key(v.text)
        one = singular(tkey)
        tiers: Tiers = [(2.8, Or([Term("tk", tkey), Term("tk", one)]) if one else Term("tk", tkey))]
        # 2.5: the words in the query's order, next to each other (a gap of one word allowed).
        phrases = []
        ja_keys = list(dict.fromkeys(v.qkeys))[:MAX_UNITS]
        if len(ja_keys) > 1 and HAS_JA.search(v.text):
            phrases.append(Phrase("ja", ja_keys, slop=2))
        raw = re.findall(r"[a-z0-9']+", v.norm)[:MAX_UNITS]
        if len(raw) > 1:
            phrases.append(Phrase("ew", raw))
        if phrases:
            tiers.append((2.5, Or(phrases) if len(phrases) > 1 else phrases[0]))
        if len(tkey) >= 2:
            # A heading or term whose name starts with the query (ダイレクトアタック -> ダイレクトアタックステップ).
            tiers.append((2.6, Prefix("tk", tkey)))
        if native:
            tiers.append((2.0, _all_of(native)))
            fewer = [(u[:i] + u[i + 1 :], b) for u, b in native[:2] if 3 <= len(u) <= 8 for i in range(len(u))]
            if fewer:
                tiers.append((1.6, _all_of(fewer)))
        if v.names or v.aliases:
            # The query is a known term: the heading or glossary entry named by its translation, or by
            # the rules' word for it (サクる -> 生け贄に捧げる, EDH -> 統率者戦).
            tiers.append((2.7, Or([Term("tk", title_key(n)) for n in dict.fromkeys(v.names + v.aliases)])))
        if translated:
            tiers.append((1.3, _all_of(translated)))
        if v.renamed:
            tiers.append((1.25, _all_of(v.renamed[:4])))
        if older:
            tiers.append((1.2, _all_of(older)))
        tiers.sort(key=lambda t: -t[0])
        return tiers

    def negated(self, text: str) -> list[str]:
        """The words the query negates, as written (ブロック in ブロックされなかった): the analyzer drops
        ない, so the index cannot tell them from the affirmed ones; kb.search.ranking.agrees reads the texts."""
        out = []
        for w in words(text, self.vocab):
            if w.key != PASSIVE and _NEGATION.match(text, w.end) and HAS_JA.search(text[w.start : w.end]):
                out.append(text[w.start : w.end])
        return out

    def reading_of(self, text: str) -> str | None:
        """The folded reading of text that is one name, in kana or in words with readings
        (回避脳力 and かいひのうりょく read カイヒノリョク, as 回避能力 does); None for anything else."""
        if text in self._readings_cache:
            return self._readings_cache[text]
        if len(self._readings_cache) > 8192:  # names repeat from query to query; queries rarely do
            self._readings_cache.clear()
        self._readings_cache[text] = out = self._reading(text)
        return out

    def _reading(self, text: str) -> str | None:
        norm = normalize_mapped(text)[0]
        if is_kana_only(text):
            return fold_kana(to_katakana(re.sub(r"[\s・･]", "", norm))) or None
        ws = words(text, self.vocab)
        if not ws or not all(w.reading for w in ws):
            return None
        if re.sub(r"[\s・･]", "", "".join(text[w.start : w.end] for w in ws)) != re.sub(r"[\s・･]", "", text):
            return None  # particles or symbols between the words: not one name
        return fold_kana("".join(w.reading for w in ws))

    def phrase(self, phrase: str) -> Query | None:
        """Documents holding ``phrase`` as written: its Japanese words in order, its English words in order."""
        alts: list[Query] = []
        keys = [w.key for w in words(phrase, self.vocab) if HAS_JA.search(w.key)]
        if keys:
            alts.append(Phrase("ja", keys, slop=1) if len(keys) > 1 else Term("ja", keys[0]))
        latin = re.findall(r"[a-z0-9']+", normalize_mapped(phrase)[0])
        if latin and not keys:
            alts.append(Phrase("ew", latin) if len(latin) > 1 else Term("ew", latin[0]))
        if not alts:
            return None
        return alts[0] if len(alts) == 1 else Or(alts)

    def _obsolete(self, stems: list[str]) -> bool:
        """True when the default scope hardly uses a wording any more (a handful of clauses at most)."""
        reader = self.current_reader()
        if reader is None:
            return False
        return min(reader.doc_frequency("en", t) for t in stems) <= 5

    def _units(self, ws: list[Word]) -> list[Query]:
        """One query per distinct word: its key in the Japanese fields, its reading, its parts."""
        out = []
        # A pasted paragraph is searched by its first MAX_UNITS distinct words: enough to find it.
        for w in list(dict((w.key, w) for w in ws).values())[:MAX_UNITS]:
            alts: list[Query] = [Term("ja", w.key), Term("jt", w.key, boost=1.5), Term("jx", w.key, boost=0.3)]
            if "reading" in self.layers and w.reading:
                alts.append(Term("jr", w.reading, boost=0.3))
            if w.parts:
                alts.append(And([Term("ja", p) for p, _, _ in w.parts], boost=0.3))  # recall only
            out.append(DisjunctionMax(alts, tiebreak=0.1))
        return out


def _all_of(views: list[View]) -> Query:
    """Docs matching every unit of at least one view."""
    return Or([And(u, boost=b) if len(u) > 1 else _boosted(u[0].copy(), b) for u, b in views])


def _rewritten(qwords: list[Word], rewrites: list[tuple[int, int, str]], analyse) -> list[tuple[list[Word], list[str]]]:
    """Word lists with each rewrite applied alone, and with all non-overlapping ones applied together."""
    out = [(qwords[:i] + analyse(dst) + qwords[i + n :], [dst]) for i, n, dst in rewrites[:6]]
    if len(rewrites) > 1:
        combined: list[Word] = []
        used: list[str] = []
        pos = 0
        for i, n, dst in sorted(rewrites):
            if i < pos:
                continue
            combined += qwords[pos:i] + analyse(dst)
            used.append(dst)
            pos = i + n
        out.append((combined + qwords[pos:], used))
    return out


def _boosted(q: Query, boost: float) -> Query:
    """A copy of ``q`` with its boost multiplied by ``boost``."""
    q = q.copy()
    q.boost = q.boost * boost
    return q
