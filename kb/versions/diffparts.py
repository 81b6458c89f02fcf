"""Diff building blocks: comparable items, similarity, the item differ, the inline differ and the sorter.

The matcher (kb/versions/matcher.py) pairs items; the functions here describe one pair (or one unpaired
item) as a change and order the changes. Each part can be swapped or tested on its own.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
import unicodedata
from dataclasses import dataclass, field

from kb import ruleid
from kb.versions import editorial

# A cited clause id (with an optional range tail) inside a reference's raw span.
_CITED = re.compile(r"[1-9]\d{2}(?:\.\d{1,3}[a-z]{0,2})?(?:\s*[-–—~〜]\s*(?:[1-9]\d{2}\.)?\d{0,3}[a-z]{0,2})?|\b\d\b")
_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff66-\uff9f]")
_INLINE_EN = re.compile(r"\s+|\w+(?:['’]\w+)?\s*|[^\w\s]\s*")  # a word keeps its trailing space
REF_MARK = "§"
_TYPO = {"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-", "\u00a0": " "}
_SPACES = re.compile(r"[ \t\u3000]{2,}|[\t\u3000]")  # a lone space stays as it is


@dataclass(eq=False)
class Item:
    """One clause or heading of a version, reduced to what comparing needs.

    The comparison features (masked, plain, tokens, japanese) are computed on first use and cached
    per content hash: a diff of adjacent editions pairs most clauses by id and hash alone and never
    needs them.
    """

    rule: str
    hash: str
    title: str
    text: str
    examples: list[str] | str  # a JSON string until first needed
    parent: str | None
    position: int
    refs: list | str = field(default_factory=list, repr=False)
    heading: bool = False  # a title without text: rules, sections, titled clauses of old editions (217.6 Stack)

    def __post_init__(self) -> None:
        self.heading = bool(self.title) and not self.text or "." not in self.rule  # not ruleid.is_clause

    @property
    def section(self) -> str:
        return self.rule.split(".")[0][:1] if self.rule else ""

    # cached_property: after the first use an attribute read costs what a plain field costs
    @functools.cached_property
    def masked(self) -> str:
        """Plain text with cited rule numbers replaced by REF_MARK."""
        return _features(self)[0]

    @functools.cached_property
    def tokens(self) -> frozenset:
        return _features(self)[1]

    @functools.cached_property
    def japanese(self) -> bool:
        return _features(self)[2]

    @functools.cached_property
    def plain(self) -> str:
        """Display text with typography normalised (quotes, dashes, spaces)."""
        return _features(self)[3]

    def display(self) -> str:
        """What a reader sees: title, text and examples, one per line."""
        if isinstance(self.examples, str):  # stored JSON, decoded only when an item is compared
            self.examples = json.loads(self.examples)
        return "\n".join(p for p in [self.title, self.text, *self.examples] if p)


def is_japanese(text: str) -> bool:
    """True when a text is mostly written in Japanese script."""
    sample = text[:200]
    return bool(sample) and len(_CJK.findall(sample)) * 4 >= len(sample)


def plain_text(text: str) -> str:
    """Text with typography normalised: curly quotes, dashes and runs of spaces compare equal."""
    text = unicodedata.normalize("NFKC", text)
    for typo, straight in _TYPO.items():  # str.replace per character is many times faster than str.translate
        if typo in text:
            text = text.replace(typo, straight)
    return _SPACES.sub(" ", text).strip()


def mask_references(text: str, raws: list[str]) -> str:
    """Replace the numbers inside each cited span so a renumbered citation compares equal."""
    for raw in sorted(set(raws), key=len, reverse=True):
        if raw and raw in text:
            text = text.replace(raw, _CITED.sub(REF_MARK, raw))
    return text


def tokenize(text: str, japanese: bool) -> frozenset:
    """Comparison features: words and word pairs (English) or character bigrams (Japanese)."""
    if japanese:
        s = re.sub(r"\s+", "", text)
        return frozenset(s[i : i + 2] for i in range(len(s) - 1)) or frozenset([s])
    words = _WORD.findall(text.lower().replace("’", "'"))
    return frozenset(words).union(map(" ".join, zip(words, words[1:], strict=False)))


_feature_cache: dict[str, tuple[str, frozenset, bool, str]] = {}


def _features(item: Item) -> tuple[str, frozenset, bool, str]:
    """(masked, tokens, japanese, plain) of an item, cached per content hash."""
    cached = _feature_cache.get(item.hash)
    if cached is None:
        refs = json.loads(item.refs) if isinstance(item.refs, str) else item.refs
        raws = [r["raw"] if isinstance(r, dict) else r.raw for r in refs]
        body = item.display()
        japanese = is_japanese(body)
        plain = plain_text(body)
        cited = mask_references(body, raws)
        masked = plain if cited == body else plain_text(cited)
        cached = (masked, tokenize(masked, japanese), japanese, plain)
        if len(_feature_cache) > 200_000:
            _feature_cache.clear()
        _feature_cache[item.hash] = cached
    return cached


def make_item(
    rule: str,
    parent: str | None,
    h: str,
    position: int,
    title: str,
    text: str,
    examples: list[str] | str,
    refs: list | str,
) -> Item:
    """An Item from stored columns (JSON strings accepted); features are computed when first needed."""
    return Item(rule, h, title, text, examples, parent, position, refs)


def similarity(a: Item, b: Item) -> float:
    """Dice coefficient of the two items' feature sets (1.0 for equal masked texts)."""
    if a.masked == b.masked:
        return 1.0
    if not a.tokens or not b.tokens:
        return 0.0
    return 2 * len(a.tokens & b.tokens) / (len(a.tokens) + len(b.tokens))


# -- inline differ ----------------------------------------------------------------------------
def _japanese_tokens(text: str) -> list[str]:
    from kb import analysis  # Sudachi: only when a Japanese text is diffed word by word

    out: list[str] = []
    for line in text.split("\n"):
        if out:
            out.append("\n")
        out.extend(analysis.diff_words(line))
    return out


def inline_tokens(text: str, japanese: bool) -> list[str]:
    """Tokens that join back to ``text``: Sudachi words for Japanese, words and spaces for English."""
    return _japanese_tokens(text) if japanese else _INLINE_EN.findall(text)


def inline_diff(old: str, new: str, japanese: bool | None = None) -> list[list[str]]:
    """Word-level diff as ``[["=", same], ["-", old], ["+", new], ...]``."""
    if japanese is None:
        japanese = is_japanese(old + new)
    a, b = inline_tokens(old, japanese), inline_tokens(new, japanese)
    out: list[list[str]] = []

    def emit(op: str, toks: list[str]) -> None:
        if not toks:
            return
        if out and out[-1][0] == op:
            out[-1][1] += "".join(toks)
        else:
            out.append([op, "".join(toks)])

    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            emit("=", a[i1:i2])
        else:
            emit("-", a[i1:i2])
            emit("+", b[j1:j2])
    return out


# -- item differ ------------------------------------------------------------------------------
def _editorial(old: Item, new: Item, vocab, known: dict[tuple[str, str], bool] | None) -> bool:
    verdict = known.get((old.rule, new.rule)) if known else None
    return verdict if verdict is not None else editorial.classify_items(old, new, vocab) is not None


def describe(
    old: Item | None,
    new: Item | None,
    *,
    inline: bool = True,
    vocab=None,
    known: dict[tuple[str, str], bool] | None = None,
) -> dict | None:
    """One change for a matched pair or an unpaired item; None when nothing changed.

    ``editorial``: the wording changed but the clause says the same thing (kb.versions.editorial; ``vocab``,
    from ``kb.versions.editorial.vocabulary``, lets it recognise typo fixes; ``known`` verdicts, from the
    lineage, are taken as they are).
    """
    if old is not None and new is not None:
        if old.rule == new.rule and old.hash == new.hash:
            return None
        changed = old.hash != new.hash
        typography = changed and old.plain == new.plain
        ref_only = changed and not typography and old.masked == new.masked
        change = {
            "kind": "edited" if old.rule == new.rule else "moved",
            "old_rule": old.rule,
            "new_rule": new.rule,
            "similarity": round(similarity(old, new), 3),
            "reference_only": ref_only,
            "text_changed": changed and not ref_only and not typography,
            "typography_only": typography,
            "editorial": changed and (typography or ref_only or _editorial(old, new, vocab, known)),
        }
        if inline:
            change["inline"] = (
                inline_diff(old.display(), new.display(), old.japanese or new.japanese) if changed else []
            )
        return change
    item = old or new
    assert item is not None
    change = {
        "kind": "removed" if old else "added",
        "old_rule": old.rule if old else None,
        "new_rule": new.rule if new else None,
        "similarity": 0.0,
        "reference_only": False,
        "text_changed": True,
        "typography_only": False,
        "editorial": False,
    }
    if inline:
        change["inline"] = [["-" if old else "+", item.display()]]
    return change


# -- sorter -----------------------------------------------------------------------------------
def sort_changes(changes: list[dict]) -> list[dict]:
    """Document order of the new text; a removed clause sits where it stood in the old one."""
    return sorted(changes, key=lambda c: (ruleid.sort_key(c["new_rule"] or c["old_rule"]), c["kind"] != "removed"))


def summarize(changes: list[dict]) -> dict:
    """Counts per kind, plus how many changes only touched cited rule numbers."""
    out = {k: 0 for k in ("added", "removed", "edited", "moved")}
    for c in changes:
        out[c["kind"]] += 1
    out["reference_only"] = sum(1 for c in changes if c["reference_only"])
    out["moved_unchanged"] = sum(1 for c in changes if c["kind"] == "moved" and not c["text_changed"])
    out["typography_only"] = sum(1 for c in changes if c["typography_only"])
    out["editorial"] = sum(1 for c in changes if c["editorial"])
    return out
