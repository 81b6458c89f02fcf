"""Japanese analysis for Whoosh: normalisation, Janome words, katakana compounds, readings, bigrams.

Whoosh has no char-filter stage, so normalisation happens inside the tokenizer, and every token
keeps offsets into the ORIGINAL text (highlights must not drift once NFKC changes lengths).

Pipeline (kuromoji's search chain, in Python): NFKC + lower case -> Janome -> katakana runs
(``ブロック・クリーチャー``, ``ブロッククリーチャー``) merged into one compound and also split into its
parts -> base forms for inflected words -> particles, auxiliaries and symbols dropped -> katakana
long-vowel folding (``プレーヤー`` = ``プレイヤー``).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass, field

from whoosh.analysis import Token, Tokenizer

from kb.loadtime import one_time_load


def _wordlist(s: str) -> frozenset[str]:
    return frozenset(s.split())


# Katakana words of the rules that Janome does not know; the build adds those it learns from the texts.
BUILTIN_VOCAB = _wordlist(
    "クリーチャー ブロック マナ コスト プレイヤー プレーヤー プレインズウォーカー パーマネント ダメージ ステップ "
    "フェイズ ターン カード トークン スタック ライブラリー アンタップ タップ エンチャント アーティファクト "
    "インスタント ソーサリー バトル ライフ コントロール オーナー シールド ゾーン パワー タフネス タイプ "
    "サブタイプ キーワード カウンター アクティブ デッキ ゲーム ルール メイン コンバット トランプル"
)

_KATA_RUN = re.compile(r"^[\u30a1-\u30fa\u30fc\u30fb]+$")
_KANA_ONLY = re.compile(r"^[\u3041-\u3096\u30a1-\u30fa\u30fc\u30fb\s]+$")
_COMBINING_MARKS = {"\u3099", "\u309a", "\uff9e", "\uff9f", "\u309b", "\u309c"}
_DOTS = "\u30fb"  # NFKC maps the half-width ･ to ・
_E_ROW = set("エケセテネヘメレゲゼデベペェ")
_O_ROW = set("オコソトノホモヨロゴゾドボポョォ")
_U_ROW = set("ウクスツヌフムユルグズヅブプュゥ")

# Dropped parts of speech (Janome / IPADIC first two fields) and stop words (base forms).
_DROP_POS = {"助詞", "助動詞", "記号", "フィラー", "接続詞", "連体詞", "感動詞", "その他"}
_DROP_POS2 = {("動詞", "非自立"), ("動詞", "接尾"), ("名詞", "非自立"), ("名詞", "代名詞"), ("形容詞", "非自立")}
_PASSIVE = {"れる", "られる"}
PASSIVE = "れる"  # the one key for the passive auxiliary
STOP_WORDS = _wordlist(
    "する ある いる なる できる せる させる こと もの よう ため とき 時 これ それ あれ この その "
    "どう 何 なに どこ いつ だれ 誰 どれ ない 無い いう よる おく"
)


def to_katakana(s: str) -> str:
    """Hiragana to katakana (other characters unchanged)."""
    return "".join(chr(ord(c) + 0x60) if "\u3041" <= c <= "\u3096" else c for c in s)


def fold_kana(s: str) -> str:
    """Fold long-vowel spellings: drop ー, イ after an e-row kana, ウ after an o/u-row kana."""
    out: list[str] = []
    for c in s:
        if c == "ー":
            continue
        prev = out[-1] if out else ""
        if (c == "イ" and prev in _E_ROW) or (c == "ウ" and (prev in _O_ROW or prev in _U_ROW)):
            continue
        out.append(c)
    return "".join(out) or s


_OKURIGANA = re.compile(r"^(.*[\u4e00-\u9fff々])[\u3041-\u3096]+$")


_INNER_OKURIGANA = re.compile(r"(?<=[\u4e00-\u9fff々])[\u3041-\u3096]+(?=[\u4e00-\u9fff々])")


def okurigana_stem(key: str) -> str:
    """Drop okurigana: trailing kana after kanji (支払う/支払い/支払わ -> 支払, so verb forms and their
    nouns meet) and kana between kanji (打ち消す/打消す -> 打消, 生け贄/生贄 -> 生贄: the spellings
    IMEs and writers choose between)."""
    m = _OKURIGANA.match(key)
    key = m.group(1) if m else key
    return _INNER_OKURIGANA.sub("", key) if key[:1] >= "\u4e00" else key


_KANJI_DIGITS = {c: i for i, c in enumerate("〇一二三四五六七八九")}
_KANJI_NUMBER = re.compile(r"[〇一二三四五六七八九十百]+(?=枚|点|個|体|回|人|つ|色|ターン|マナ|以上|以下|未満)")


def _kanji_value(s: str) -> int:
    total, digit = 0, 0
    for c in s:
        if c in _KANJI_DIGITS:
            digit = digit * 10 + _KANJI_DIGITS[c]
        else:
            total += (digit or 1) * (10 if c == "十" else 100)
            digit = 0
    return total + digit


def kanji_numerals(text: str) -> str:
    """Kanji numerals before a counter as digits, the way the rules write them: 七枚 -> 7枚, 二十点 -> 20点."""
    return _KANJI_NUMBER.sub(lambda m: str(_kanji_value(m.group(0))), text)


def title_key(s: str) -> str:
    """A whole title or term as one comparable key: NFKC, lower case, no dots or spaces, folded."""
    return fold_kana(re.sub(r"[\s・]+", "", normalize_mapped(s)[0]))


def is_kana_only(s: str) -> bool:
    """True for text written only in kana (what a user types before converting to kanji)."""
    return bool(_KANA_ONLY.match(s)) and bool(s.strip())


def normalize_mapped(text: str) -> tuple[str, list[int], list[int]]:
    """NFKC + lower case, with each output character's [start, end) in the original text."""
    if text.isascii():
        low = text.lower()
        return low, list(range(len(text))), list(range(1, len(text) + 1))
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for i, ch in enumerate(text):
        if ch in _COMBINING_MARKS and out:
            # Half-width ｶﾞ is two characters: fold the voicing mark into the previous kana.
            combined = unicodedata.normalize("NFKC", out[-1] + ch)
            if len(combined) == 1:
                out[-1] = combined
                ends[-1] = i + 1
                continue
        n = ch if ch.isascii() else unicodedata.normalize("NFKC", ch)
        for c in n.lower():
            out.append(c)
            starts.append(i)
            ends.append(i + 1)
    return "".join(out), starts, ends


@dataclass(slots=True)
class Word:
    """One indexed word: its key, reading key, span in the original text and compound parts."""

    key: str
    reading: str
    start: int
    end: int
    pos: str
    parts: list[tuple[str, int, int]] = field(default_factory=list)


_janome = None
_janome_lock = threading.Lock()
_cache: OrderedDict[str, tuple] = OrderedDict()
_CACHE_SIZE = 16  # one document's fields are analysed back to back: a tiny cache tokenises each text once


def _janome_tokens(norm: str) -> list[tuple[str, str, str, str]]:
    """(surface, part of speech, base form, reading) for a normalised text; Janome created lazily."""
    global _janome
    with _janome_lock:
        if _janome is None:
            with one_time_load():
                from janome.tokenizer import Tokenizer as _JT

                tokenizer = _JT()
                tokenizer.tokenize("最初の一回")  # the first call loads more of the dictionary
                _janome = tokenizer
        return [(t.surface, t.part_of_speech, t.base_form, t.reading) for t in _janome.tokenize(norm)]


_sudachi_dict = None
_sudachi_local = threading.local()
SUDACHI_CHUNK = 4000  # characters per call: Sudachi refuses an input over about 49 KB


def sudachi_tokenizer(mode: str = "C"):
    """This thread's Sudachi tokenizer in split ``mode`` ("A", "B" or "C") over the one shared dictionary
    (sudachidict-core, loaded on first use); a tokenizer is not safe to share between threads."""
    global _sudachi_dict
    toks = _sudachi_local.__dict__.setdefault("toks", {})
    tok = toks.get(mode)
    if tok is None:
        from sudachipy import Dictionary, SplitMode

        with _janome_lock:
            if _sudachi_dict is None:
                with one_time_load():
                    _sudachi_dict = Dictionary()
        tok = toks[mode] = _sudachi_dict.tokenizer(mode=getattr(SplitMode, mode))
    return tok


def diff_words(text: str) -> list[str]:
    """Words of ``text`` as written, for word-level diffs: Sudachi's middle units (mode B: 2人, 適用,
    プレイヤー), which join back to ``text`` exactly. A tenth of Janome's cost: the whole of the 2008
    translation against today's text word by word took 2.6 s with Janome (issue 20)."""
    tok = sudachi_tokenizer("B")
    out: list[str] = []
    for i in range(0, len(text), SUDACHI_CHUNK):
        out.extend(m.surface() for m in tok.tokenize(text[i : i + SUDACHI_CHUNK]))
    return out


def _analyse(text: str) -> tuple[str, list[int], list[int], list[tuple[int, int, str, str, str]]]:
    """Normalise and tokenise once per text: (norm, starts, ends, [(s, e, pos, base, reading)])."""
    with _janome_lock:
        hit = _cache.get(text)
    if hit is not None:
        return hit
    norm, starts, ends = normalize_mapped(text)
    toks = []
    pos = 0
    for surface, ps, base, reading in _janome_tokens(norm):
        s = pos if norm.startswith(surface, pos) else norm.find(surface, pos)
        if s < 0:
            s = pos
        pos = s + len(surface)
        toks.append((s, pos, ps, base, reading))
    result = (norm, starts, ends, toks)
    with _janome_lock:  # web requests analyse queries from several threads
        _cache[text] = result
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return result


def split_katakana(piece: str, vocab: frozenset[str]) -> list[tuple[int, int]]:
    """Spans of ``piece`` split into known katakana words (fewest parts); [] when no full cover."""
    n = len(piece)
    if n < 4:
        return []
    best: list[list[tuple[int, int]] | None] = [None] * (n + 1)
    best[0] = []
    for i in range(n):
        if best[i] is None:
            continue
        for j in range(i + 2, n + 1):
            if piece[i:j] in vocab and (best[j] is None or len(best[i]) + 1 < len(best[j])):
                best[j] = best[i] + [(i, j)]
    spans = best[n]
    return spans if spans and len(spans) > 1 else []


def words(text: str, vocab: frozenset[str] = BUILTIN_VOCAB) -> list[Word]:
    """The indexable words of ``text``, in order, with original-text offsets (the words and the readings
    fields of one document read the same text back to back: the last few are remembered)."""
    key = (text, vocab)
    with _janome_lock:
        hit = _words_cache.get(key)
    if hit is not None:
        return list(hit)
    out = _words(text, vocab)
    with _janome_lock:
        _words_cache[key] = out
        while len(_words_cache) > _CACHE_SIZE:
            _words_cache.popitem(last=False)
    return list(out)


_words_cache: OrderedDict[tuple[str, frozenset[str]], list[Word]] = OrderedDict()


def _words(text: str, vocab: frozenset[str]) -> list[Word]:
    norm, starts, ends, toks = _analyse(text)
    out: list[Word] = []
    i = 0
    while i < len(toks):
        s, e, ps, base, reading = toks[i]
        surface = norm[s:e]
        if _KATA_RUN.match(surface):
            # Merge a katakana run across ・ into one compound, keeping each piece as a part.
            j = i + 1
            while j < len(toks) and toks[j][0] == e and _KATA_RUN.match(norm[toks[j][0] : toks[j][1]]):
                e = toks[j][1]
                j += 1
            i = j
            _add_katakana(out, norm, starts, ends, s, e, vocab)
            continue
        i += 1
        p1, _, p2 = ps.partition(",")
        p2 = p2.split(",", 1)[0]
        # The passive stays: ブロックされた (blocked) is not ブロックした (blocked something).
        passive = base in _PASSIVE
        if not passive and (p1 in _DROP_POS or (p1, p2) in _DROP_POS2 or not any(c.isalnum() for c in surface)):
            continue
        key = PASSIVE if passive else base if p1 in ("動詞", "形容詞") and base != "*" else surface
        if key in STOP_WORDS or base in STOP_WORDS:
            continue
        key = okurigana_stem(key)
        rd = reading if reading != "*" else (surface if is_kana_only(surface) else "")
        out.append(Word(key, fold_kana(to_katakana(rd)) if rd else "", starts[s], ends[e - 1], p1))
    return out


def _add_katakana(out: list[Word], norm: str, starts: list[int], ends: list[int], s: int, e: int, vocab) -> None:
    run = norm[s:e]
    compound = run.replace(_DOTS, "")
    if not compound:
        return
    parts: list[tuple[str, int, int]] = []
    offset = s
    pieces = run.split(_DOTS)
    for piece in pieces:
        ps, pe = offset, offset + len(piece)
        offset = pe + 1
        if not piece:
            continue
        spans = split_katakana(piece, vocab)
        if len(pieces) > 1:
            parts.append((fold_kana(piece), starts[ps], ends[pe - 1]))
        for a, b in spans:
            parts.append((fold_kana(piece[a:b]), starts[ps + a], ends[ps + b - 1]))
    key = fold_kana(compound)
    out.append(Word(key, key, starts[s], ends[e - 1], "名詞", [p for p in parts if p[0] != key]))


def reading_compounds(ws: list[Word]) -> list[tuple[str, int, int]]:
    """Readings of adjacent noun runs (優先+権 -> ユセンケン) so kana input finds kanji compounds."""
    out = []
    run: list[Word] = []
    for w in ws + [None]:  # type: ignore[list-item]
        if w is not None and w.pos == "名詞" and w.reading and (not run or run[-1].end == w.start):
            run.append(w)
            continue
        if len(run) > 1:
            out.append((fold_kana("".join(x.reading for x in run)), run[0].start, run[-1].end))
        run = [w] if w is not None and w.pos == "名詞" and w.reading else []
    return out


def bigrams(text: str) -> list[tuple[str, int, int]]:
    """Character bigrams (unigrams for single characters) of each run of letters, dots removed."""
    norm, starts, ends = normalize_mapped(text)
    out = []
    for m in re.finditer(r"[^\s\W_]+(?:・[^\s\W_]+)*", norm):
        chars = [(c, m.start() + k) for k, c in enumerate(m.group(0)) if c != _DOTS]
        if len(chars) == 1:
            out.append((chars[0][0], starts[chars[0][1]], ends[chars[0][1]]))
        for (a, ia), (b, ib) in zip(chars, chars[1:], strict=False):
            out.append((a + b, starts[ia], ends[ib]))
    return out


class JanomeTokenizer(Tokenizer):
    """A Whoosh tokenizer over Janome; ``mode`` "words" (compounds + parts), "reading" or "bigram"."""

    def __init__(self, kind: str = "words", vocab: frozenset[str] | set[str] | None = None):
        self.kind = kind
        self.vocab = frozenset(vocab) | BUILTIN_VOCAB if vocab else BUILTIN_VOCAB

    def __eq__(self, other):
        return type(other) is type(self) and other.kind == self.kind and other.vocab == self.vocab

    def __hash__(self):
        return hash((self.kind, len(self.vocab)))

    def stream(self, value: str) -> list[tuple[str, int, int, int]]:
        """(text, position increment, start, end) for each token of ``value``."""
        if self.kind == "bigram":
            return [(t, 1, s, e) for t, s, e in bigrams(value)]
        ws = words(value, self.vocab)
        out: list[tuple[str, int, int, int]] = []
        if self.kind == "reading":
            for w in ws:
                if w.reading:
                    out.append((w.reading, 1, w.start, w.end))
            out.extend((r, 0, s, e) for r, s, e in reading_compounds(ws))
            return out
        for w in ws:
            out.append((w.key, 1, w.start, w.end))
            for k, (p, s, e) in enumerate(w.parts):
                out.append((p, 0 if k == 0 else 1, s, e))
        return out

    def __call__(
        self,
        value,
        positions=False,
        chars=False,
        keeporiginal=False,
        removestops=True,
        start_pos=0,
        start_char=0,
        tokenize=True,
        mode="",
        **kwargs,
    ):
        t = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        if not tokenize:
            t.original = t.text = fold_kana(normalize_mapped(value)[0].replace(_DOTS, ""))
            t.boost = 1.0
            if positions:
                t.pos = start_pos
            if chars:
                t.startchar, t.endchar = start_char, start_char + len(value)
            yield t
            return
        pos = start_pos - 1
        seen: dict[str, int] = {}
        for text, inc, s, e in self.stream(value):
            pos = max(pos + inc, start_pos)
            if seen.get(text, -1) >= pos:
                continue  # a term's positions must increase (Whoosh delta-encodes them)
            seen[text] = pos
            t.text = text
            t.boost = 1.0
            t.stopped = False
            if keeporiginal:
                t.original = value[s:e]
            if positions:
                t.pos = pos
            if chars:
                t.startchar, t.endchar = start_char + s, start_char + e
            yield t


def JapaneseAnalyzer(vocab: frozenset[str] | set[str] | None = None) -> JanomeTokenizer:  # noqa: N802
    """Words field analyzer (Whoosh analyzer factories are capitalised)."""
    return JanomeTokenizer("words", vocab)


def ReadingAnalyzer(vocab: frozenset[str] | set[str] | None = None) -> JanomeTokenizer:  # noqa: N802
    """Reading field analyzer: katakana readings, folded."""
    return JanomeTokenizer("reading", vocab)


def BigramAnalyzer() -> JanomeTokenizer:  # noqa: N802
    """Character-bigram field analyzer (recall layer)."""
    return JanomeTokenizer("bigram")


_VOCAB_PIECE = re.compile(r"[^ァィゥェォッャュョヮヵヶー][\u30a1-\u30fa\u30fc]+")


def learn_vocab(texts) -> frozenset[str]:
    """Katakana words seen on their own or between ・ in ``texts``: what splits undotted compounds."""
    vocab: set[str] = set()
    for text in texts:
        norm = unicodedata.normalize("NFKC", text)
        for m in re.finditer(r"[\u30a1-\u30fa\u30fc\u30fb]+", norm):
            run = m.group(0)
            pieces = [p for p in run.split(_DOTS) if _VOCAB_PIECE.fullmatch(p)]
            if len(pieces) > 1 or (pieces and len(pieces[0]) <= 6):
                vocab.update(pieces)
    return frozenset(vocab)
