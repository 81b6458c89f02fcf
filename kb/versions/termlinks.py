"""Defined terms inside rule text, found once per glossary and text, for linking to their entries.

As the Wisdom Guild viewer and the hyperlinked English rules do, a term the glossary defines
(接死, "deathtouch", 戦場) links where a clause uses it; an everyday word the glossary also defines
("instead", 与える) only when a rule is named after it (a keyword, or "406. Exile"). A version reads
the terms of its own glossary only (a text without one — a viewer page, a quote, the 2008 translation
— gets no term links: another edition's glossary may define a word otherwise, and number its rules
otherwise). Only names are linked: a term written in several ways ("あなた、あなたの") or shorter than
two characters (色) is not, nor common vocabulary (a term in more than ``COMMON`` of the clauses:
プレイヤー, "mana") that would underline every line. In one clause each term links once, at its first
use, and never inside the rule that defines it (702.2b does not link 接死 back to 702.2).

The matcher is built once per generation (one regular expression over a trie of the terms, so a
clause is one scan); the occurrences in a text are cached by its content hash, so a text shared by
many editions is scanned once.
"""

from __future__ import annotations

import re

from kb import ruleid
from kb.store import Store, VersionInfo
from kb.versions import glossary, staleref

COMMON = 0.03  # share of a version's clauses a term may appear in and still be linked
MIN_COMMON = 30  # ... and never fewer clauses than this (a piece of a text has too few to tell)
PROPER = 3  # capitalised uses inside sentences that make an English term a name ("a Case", "an Aura")
_SEPARATORS = re.compile(r"[、,，/／「」()（）]")
_WORD = "A-Za-z0-9"
_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"|‘[^’]*’")


def _trie_pattern(words: list[str]) -> str:
    """An alternation of ``words`` factored by common prefixes (a regex engine then tries a term only
    where its first letters match), longest first at each branch."""
    trie: dict = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        ends = "" in node
        branches = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch != ""]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if ends else body

    return emit(trie)


class Matcher:
    """Every linkable term of one game and language: ``find(text)`` -> ``[(start, end, key), ...]``, each
    occurrence, longest match first (``key``: the term, lower-cased for English). English ``proper``
    names (key -> the glossary's spelling) match only as spelled: "Case" the subtype, not "in that case"."""

    def __init__(self, lang: str, names: set[str], proper: dict[str, str] | None = None):
        self.lang, self.names, self.proper = lang, names, dict(proper or {})
        self.regexes = []
        if lang == "en":  # whole words, plurals too ("creatures"), not inside "double-faced"
            plain = [k for k in names if k not in self.proper]
            for words, flags in ((plain, re.IGNORECASE), (list(self.proper.values()), 0)):
                if words:
                    body = _trie_pattern(sorted(words, key=len, reverse=True))
                    self.regexes.append(re.compile(rf"(?<![{_WORD}-])({body})(?:s|es)?(?![{_WORD}-])", flags))
        elif names:
            self.regexes.append(re.compile(f"({_trie_pattern(sorted(names, key=len, reverse=True))})"))

    def find(self, text: str) -> list[tuple[int, int, str]]:
        found = []
        # English quotes hold rule titles ("See rule 714, “Saga Cards.”") and card text, not terms used
        quoted = [m.span() for m in _QUOTED.finditer(text)] if self.lang == "en" else []
        for regex in self.regexes:
            for m in regex.finditer(text):
                if any(a < m.start(1) < b for a, b in quoted):
                    continue
                # a katakana term does not start or end inside a longer katakana word (タップ in アンタップ)
                if self.lang == "en":  # the plural's ending belongs to the link ("creatures")
                    found.append((m.start(1), m.end(), m.group(1).casefold()))
                elif _kana_bounded(text, m.start(1), m.end(1)):
                    found.append((m.start(1), m.end(1), m.group(1)))
        out: list[tuple[int, int, str]] = []
        for start, end, key in sorted(found, key=lambda f: (f[0], f[0] - f[1])):
            if out and start < out[-1][1]:
                continue  # inside a longer term found by the other expression
            out.append((start, end, key))
        return out


def _proper_names(names: set[str], spelled: dict[str, str], texts: list[str]) -> dict[str, str]:
    """English terms the texts write capitalised inside sentences (outside quotes) ``PROPER`` times or
    more ("a Case", "an Aura"): names of things, matched only as the glossary spells them."""
    seen: dict[str, int] = {}
    matcher = Matcher("en", names)
    for t in texts:
        quoted = [m.span() for m in _QUOTED.finditer(t)]  # rule titles and card text quoted in a rule
        for start, _, key in matcher.find(t):
            before = t[:start].rstrip()
            inside = any(a < start < b for a, b in quoted)
            if t[start].isupper() and before and before[-1] not in '.:!?(—–”’"' and not inside:
                seen[key] = seen.get(key, 0) + 1
    # A stray card name ("Elephant Graveyard") is not a habit: a name is written so three times or more.
    return {k: spelled[k] for k, n in seen.items() if n >= PROPER and k in spelled}


def _kana_bounded(text: str, start: int, end: int) -> bool:
    first, last = text[start], text[end - 1]
    before = start > 0 and _is_kana(text[start - 1]) and _is_kana(first) and text[start - 1] != "・"
    after = end < len(text) and _is_kana(text[end]) and _is_kana(last) and text[end] not in "・ー"
    return not before and not after


def _is_kana(ch: str) -> bool:
    return "\u30a0" <= ch <= "\u30ff"


def _name(term: str, lang: str) -> str | None:
    """The key a glossary term links by, or None for what is not one name (several spellings, one letter)."""
    name = term.strip()
    if len(name) < (3 if lang == "en" else 2) or _SEPARATORS.search(name):
        return None
    return name.casefold() if lang == "en" else name


def build(store: Store, game: str, lang: str) -> Matcher:
    """The matcher of every term any glossary of ``game``/``lang`` defines, without common vocabulary
    (counted in the newest version that has a glossary)."""
    spelled: dict[str, str] = {}
    newest = None
    for row in store.terms(game, lang):
        if row["source"] in ("glossary", "heading") and (key := _name(row["term"], lang)):
            spelled[key] = row["term"].strip()
            newest = row["version_id"] if newest is None else max(newest, row["version_id"])
    if newest is None:
        return Matcher(lang, set())
    names = set(spelled)
    texts = [n.text for n in store.nodes(newest) if n.text]
    limit = max(MIN_COMMON, int(COMMON * len(texts)))
    proper: dict[str, str] = {}
    for _ in range(3):  # dropping a common long term ("マナ・コスト") lets its shorter one ("マナ") match more
        if lang == "en":
            proper = _proper_names(names, spelled, texts)
        counts: dict[str, int] = {}
        trial = Matcher(lang, names, proper)
        for t in texts:
            for key in {k for _, _, k in trial.find(t)}:
                counts[key] = counts.get(key, 0) + 1
        common = {k for k in names if counts.get(k, 0) > limit}
        if not common:
            break
        names -= common
    return Matcher(lang, names, {k: w for k, w in proper.items() if k in names})


def vocabulary(store: Store, v: VersionInfo) -> dict[str, str | None]:
    """The terms version ``v``'s glossary defines (empty when it has none), each with the clause that
    defines it: its heading, or the rule its definition cites first — the rule the bracketed title names
    when the cited number carries another title (「rule 731〔不正な処理の扱い〕」 in 20260116.0 is 732)."""
    rows = store.terms(version=v)
    if not any(row["source"] == "glossary" for row in rows):
        return {}
    nodes = store.nodes(v)
    titles = staleref.Titles(nodes)
    out: dict[str, str | None] = {}
    for row in rows:
        if row["source"] not in ("glossary", "heading") or not (key := _name(row["term"], v.lang)):
            continue
        rule = row["rule"] if row["rule"] in titles.held else None
        for cited, title in glossary.cited_titles(row["definition"] or ""):
            rule = rule or titles.meant(cited, title)
        out[key] = out.get(key) or rule
    raw_titles = {n.rule: n.title.casefold() for n in nodes if n.title}
    return {k: r for k, r in out.items() if not _plain_word(k, v.lang) or _named_after(k, r, raw_titles)}


def _plain_word(key: str, lang: str) -> bool:
    """A glossary term that is also an everyday word: one English word ("instead", "case"), or a
    Japanese inflected word (与える, 代わりに: it ends in hiragana)."""
    if lang == "en":
        return " " not in key
    return "\u3041" <= key[-1] <= "\u309f"


def _named_after(key: str, rule: str | None, titles: dict[str, str]) -> bool:
    """True when a rule is named after the term: a keyword ability or action (701/702), or a rule whose
    title holds it ("exile" 406 Exile). Then even an everyday word is the rules' word."""
    if rule is None:
        return False
    if rule.startswith(("701.", "702.")):
        return True
    stem = key.rstrip("s") if key.isascii() else key
    return any(stem in titles.get(r, "") for r in (rule, *ruleid.ancestors(rule)))


class Linker:
    """The defined terms of one version's texts: ``spans(text, hash, rule)`` -> ``[(start, end, key,
    defining rule), ...]``, the first use of each term, none inside the rule that defines it."""

    def __init__(self, matcher: Matcher, found: dict, vocab: dict[str, str | None]):
        self.matcher, self.found, self.vocab = matcher, found, vocab

    def spans(self, text: str, content_hash: str, rule: str) -> list[tuple[int, int, str, str | None]]:
        hits = self.found.get(content_hash)
        if hits is None:  # the occurrences of a text, once per generation whatever the version
            hits = self.found[content_hash] = self.matcher.find(text)
        own = {rule, *ruleid.ancestors(rule)} if ruleid.parse(rule) else set()
        seen: set[str] = set()
        out = []
        for start, end, key in hits:
            if key in seen or key not in self.vocab or self.vocab[key] in own:
                continue
            seen.add(key)
            out.append((start, end, key, self.vocab[key]))
        return out


def linker(store: Store, v: VersionInfo) -> Linker | None:
    """The term linker of version ``v``, its parts computed once per generation (``store.derived``): the
    matcher of its game and language, the occurrences of each text, the vocabulary of its glossary."""
    vocab = store.derived(f"termlinks-vocab:{v.id}", lambda: vocabulary(store, v))
    if not vocab:
        return None
    matcher = store.derived(f"termlinks:{v.game}/{v.lang}", lambda: build(store, v.game, v.lang))
    found = store.derived(f"termlinks-found:{v.game}/{v.lang}", dict)
    return Linker(matcher, found, vocab)


def prime(store: Store, v: VersionInfo) -> int:
    """Find the terms of every text of version ``v`` now (the warm-up does it for the newest texts, so
    that their long rule pages — 702 has 900 clauses — do not scan on their first request); returns how
    many texts were scanned."""
    found = linker(store, v)
    if found is None:
        return 0
    done = 0
    for n in store.nodes(v):
        if n.hash not in found.found:
            found.found[n.hash] = found.matcher.find(n.text)
            done += 1
    return done
