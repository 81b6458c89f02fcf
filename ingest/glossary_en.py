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
any other line runs on (``join_lines``). ``ingest.cr_en`` reads the rules with the same helpers.
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


def join_lines(text: str, piece: str, paragraph: bool) -> str:
    """Append ``piece`` to ``text`` as a new paragraph, or as a wrapped line running on."""
    if not text:
        return piece
    if paragraph:
        return text + "\n" + piece
    if text.endswith("-") and text[-2:-1].isalpha():  # a word hyphenated at the wrap
        return text + piece
    return text + " " + piece


def read_glossary(lines: list[str], offset: int, wrapped: bool) -> tuple[list[Term], dict, list[str]]:
    """Glossary entries: a term line, then its definition, entries apart by blank lines."""
    terms: list[Term] = []
    aliases: dict[str, list[str]] = {}
    obsolete: list[str] = []
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
            terms[-1].definition = join_lines(terms[-1].definition, _definition(block, wrapped), True)
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
            terms.append(Term(term=term, english=term, definition=definition, source="glossary", line=line0))
        block.clear()

    for k, line in enumerate(lines):
        if not line.strip() or RULE_LINE.match(line):
            close()
            continue
        block.append((offset + k + 1, line))
    close()
    return terms, aliases, obsolete


def _definition(rows: list[tuple[int, str]], wrapped: bool) -> str:
    """Join definition lines: numbered senses, indented paragraphs and examples start new lines."""
    text = ""
    base = indent(rows[0][1]) if rows else 0
    for _, line in rows:
        s = line.strip()
        paragraph = not wrapped or indent(line) > base + 2 or bool(_SENSE.match(s) or EXAMPLE.match(s))
        text = join_lines(text, s, paragraph)
    return text
