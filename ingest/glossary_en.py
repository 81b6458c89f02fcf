"""The glossary of an English Comprehensive Rules edition, and the line joining it shares with the rules.

After the ``Glossary`` heading each entry is a term line, then its definition, entries apart by
blank lines::

    Ability                                 -> term "Ability"
    1. Text on an object that ...           -> numbered senses start new lines of the definition
    2. An activated or triggered ability ...
    Example: ...                            -> examples too

    Base Power, Base Toughness              -> aliases "Base Power" and "Base Toughness"
    ...

    Bury (Obsolete)                         -> obsolete term "Bury", definition flagged "(Obsolete) "

Editions up to 2004 are hard-wrapped: a line indented deeper than the entry starts a paragraph,
any other line runs on (``Lines``). ``ingest.cr_en`` reads the rules with the same helpers.
"""

from __future__ import annotations

import re

from kb.model import Term

EXAMPLE = re.compile(r"^\s*(?:Example|EXAMPLE)s?:\s*")
RULE_LINE = re.compile(r"^\s*[-=_*]{3,}\s*$")  # the 1999 text underlines its headings
_SENSE = re.compile(r"^\d{1,2}\.\s+\S")
_FUSED_SENSE = re.compile(r"^(?P<term>[A-Z][^\d]*?[a-z)”\"])(?P<sense>1\.\s+\S.*)$")


def indent(line: str) -> int:
    """Count the leading white space of ``line``."""
    return len(line) - len(line.lstrip())


class Lines:
    """Text built line by line in linear time (repeated ``a + b`` would copy it at every line)."""

    def __init__(self, first: str = ""):
        self.parts = [first] if first else []

    def __bool__(self) -> bool:
        return bool(self.parts)

    def add(self, piece: str, paragraph: bool) -> None:
        """Append ``piece`` as a new paragraph, or as a wrapped line running on."""
        if self.parts:
            last = self.parts[-1]
            if paragraph:
                self.parts.append("\n")
            elif not (last.endswith("-") and last[-2:-1].isalpha()):  # a word hyphenated at the wrap
                self.parts.append(" ")
        self.parts.append(piece)

    def __str__(self) -> str:
        return "".join(self.parts)


def read_glossary(lines: list[str], offset: int, wrapped: bool) -> tuple[list[Term], dict, list[str]]:
    """Glossary entries: a term line, then its definition, entries apart by blank lines."""
    terms: list[Term] = []
    aliases: dict[str, list[str]] = {}
    obsolete: list[str] = []
    definitions: list[Lines] = []  # each term's definition, built paragraph by paragraph
    block: list[tuple[int, str]] = []

    def close() -> None:
        if not block:
            return
        (line0, head), rest = block[0], block[1:]
        fused = _FUSED_SENSE.match(head)
        if fused:  # "Ability1. Text on an object …" (2021-06-09 lost the line break after the term)
            head, rest = fused.group("term"), [(line0, fused.group("sense")), *rest]
        if (head[:1].isspace() or _SENSE.match(head)) and terms:
            # an indented paragraph (1999) or a numbered sense after a blank line runs on
            definitions[-1].add(_definition(block, wrapped), True)
        else:
            term = head.strip()
            flagged = re.search(r"\s*\((?:obsolete)\)\s*$", term, re.I)
            definition = _definition(rest, wrapped)
            if flagged:
                term = term[: flagged.start()].strip()
                obsolete.append(term)
                definition = "(Obsolete) " + definition
            parts = [p.strip() for p in re.split(r",\s+|/", term) if p.strip()]
            if len(parts) > 1:
                aliases[term] = parts
            terms.append(Term(term=term, english=term, source="glossary", line=line0))
            definitions.append(Lines(definition))
        block.clear()

    for k, line in enumerate(lines):
        if not line.strip() or RULE_LINE.match(line):
            close()
            continue
        block.append((offset + k + 1, line))
    close()
    for term, definition in zip(terms, definitions, strict=True):
        term.definition = str(definition)
    return terms, aliases, obsolete


def _definition(rows: list[tuple[int, str]], wrapped: bool) -> str:
    """Join definition lines: numbered senses, indented paragraphs and examples start new lines."""
    text = Lines()
    base = indent(rows[0][1]) if rows else 0
    for _, line in rows:
        s = line.strip()
        paragraph = not wrapped or indent(line) > base + 2 or bool(_SENSE.match(s) or EXAMPLE.match(s))
        text.add(s, paragraph)
    return str(text)
