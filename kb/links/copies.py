"""An engine's curated copies of rules text: excerpts it keeps in its code and uses at run time.

Two kinds are citations whose words can be checked against the rules:

- a table of excerpts, each in its own string literal (``"Battle cry": "702.91a Battle cry is …"``, a
  dict of keyword -> rule text): the file is scanned like any source, each clause line citing its own id,
  rather than set aside as a copy of the whole rules (a vendored Comprehensive Rules file, one literal or
  "These rules are effective as of …", still is);
- a string literal that is whole sentences of a clause's text without its id (``"Flying": "A creature with
  flying can't be blocked except by creatures with flying and/or reach."``): it cites that clause, as the
  newest edition holding those sentences numbered it.

Either is then resolved as rules text copied from that edition: ``ok`` while the edition against holds the
words, ``stale`` once they changed (with the current wording and where the clause is now). Card wording
the rules quote or give as an example (“Put the rest on the bottom of your library …”) is no copy: only
sentences the rules say in their own voice count, and every sentence of the literal must be one.
"""

from __future__ import annotations

import re

from kb.links import scanner
from kb.links.clauses import norm
from kb.store import Store, VersionInfo

_CLAUSE_LINE = re.compile(r"^[ \t#*/>\"'`(\[-]*[1-9]\d{2}\.(?:[1-9]\d{0,2}[a-z]{0,2}\.?)?[ \t]", re.MULTILINE)
_EFFECTIVE = re.compile(r"These rules are effective as of", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])[\s\"”)]*\s+(?=[A-Z“\"(])")
_QUOTED = re.compile(r"“[^”]*”|\"[^\"\n]*\"")
_ID = re.compile(r"(?<![\w.])[1-9]\d\d\.\d")
MIN_WORDS = 8  # words of a sentence: fewer could be anyone's ("Flying is an evasion ability.")
MIN_CHARS = 40  # a literal shorter than this holds no sentence of eight words
TABLE_LITERALS = 3  # literals holding clause lines that make a file a table of excerpts
WHOLE_SECTION = 60  # clause lines in one literal: a section of the rules pasted whole, not an excerpt


def curated(src: scanner.SourceFile) -> bool:
    """True when a file the scanner set aside as a copy of the rules is a table of excerpts: its clause lines
    sit in several string literals, none holding a whole section, and it is not a dated whole text."""
    if _EFFECTIVE.search(src.text[: 256 * 1024]) or src.language == "gherkin":
        return False
    lexed = scanner.lex(scanner.SourceFile(src.path, src.rel, src.language, src.text))
    counts = [len(_CLAUSE_LINE.findall(scanner.prose(r))) for r in lexed.regions if r.kind == "string"]
    holding = [n for n in counts if n]
    return len(holding) >= TABLE_LITERALS and max(holding) < WHOLE_SECTION


def sentences(text: str) -> list[str]:
    """The sentences of a literal, normalised; [] when one is too short to be anyone's but the rules'."""
    parts = [norm(p) for p in _SENTENCE.split(text.strip())]
    parts = [p for p in parts if p]
    return parts if parts and all(len(p.split()) >= MIN_WORDS for p in parts) else []


def may_copy(text: str) -> bool:
    """Whether a string literal could be whole sentences of the rules (checked against the rules later)."""
    return len(text) < 2000 and text[:1].isupper() and " " in text and not _ID.search(text) and bool(sentences(text))


class Sentences:
    """Every sentence the rules say in their own voice (quotations and examples aside), by edition and clause."""

    def __init__(self, store: Store, versions: list[VersionInfo]):
        self.where: dict[str, list[tuple[int, str]]] = {}  # sentence -> [(version index, rule)]
        index = {v.id: i for i, v in enumerate(versions) if not v.partial}
        if not index:
            return
        rows = store.version_texts(list(index))
        seen: dict[str, list[str]] = {}
        for vid, rule, text in rows:
            if text not in seen:  # quoted card wording loses its full stops: it ends no sentence of the rules'
                said = _QUOTED.sub(lambda m: m.group(0).replace(".", " "), text)
                seen[text] = [s for s in (norm(p) for p in _SENTENCE.split(said)) if len(s.split()) >= MIN_WORDS]
            for s in seen[text]:
                self.where.setdefault(s, []).append((index[vid], rule))

    def holder(self, parts: list[str], upto: int) -> tuple[int, str] | None:
        """(version index, rule) of the newest edition up to ``upto`` where one clause says every sentence."""
        common = None
        for p in parts:
            places = {(i, r) for i, r in self.where.get(p, ()) if i <= upto}
            common = places if common is None else common & places
            if not common:
                return None
        return max(common) if common else None
