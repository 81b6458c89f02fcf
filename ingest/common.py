"""What every ingestor shares: hints, cross-reference and term harvesting, and the final checks."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass

from kb import ruleid
from kb.model import Diagnostic, ParseResult, Reference, RuleNode, Term


@dataclass
class Hints:
    """What the user told us (``--format/--game/--lang/--version``) and where the text came from."""

    format: str = ""
    game: str = ""
    lang: str = ""
    version: str = ""
    path: str = "<input>"
    encoding: str = ""
    provenance: str = ""  # what kind of text (kb.model.PROVENANCES); default: the format's


class LineIndex:
    """1-based line numbers of character offsets in a text, each found by bisection (no rescans)."""

    def __init__(self, text: str):
        self.starts = [m.end() for m in re.finditer("\n", text)]

    def line(self, offset: int) -> int:
        return bisect_right(self.starts, offset) + 1


# A clause id inside running text: 509.1, 509.1c, 704.5aa; never part of a longer number or decimal.
_ID = ruleid.ID_IN_TEXT
# Word boundaries are ASCII: Japanese runs straight on from an id ("506.1により"), and \w would refuse it.
_ID_DOTTED = re.compile(rf"(?<![0-9A-Za-z_.])([1-9]\d{{2}}\.\d{{1,3}}{ruleid.LETTER}{{0,2}})(?![0-9A-Za-z_]|\.\d)")
# "rule 728〔不正な処理の扱い〕参照", "rules 509.1-3", "rule 601.2a–h", "section 5"
_L = ruleid.LETTER
_RANGE_END = rf"(?:\s*[-–—~〜]\s*(?:[1-9]\d{{2}}\.\d{{1,3}}{_L}?|\d{{1,3}}|{_L})(?![0-9A-Za-z_]))"
_RULE_WORD = re.compile(
    r"(?i)" + ruleid.RULE_CUE + r"\s*"
    r"(?P<first>" + _ID + r"|\d)(?![0-9A-Za-z_])"
    r"(?P<range>" + _RANGE_END + r")?"
    r"(?P<more>(?:\s*(?:,|、|and|or|および|と)\s*" + _ID + _RANGE_END + r"?)*)"
)
_TAIL_ID = re.compile(r"(?P<first>" + _ID + r")(?P<range>" + _RANGE_END + r")?")


def _expand_range(first: str, rng: str) -> list[str]:
    """``509.1`` + ``-3`` -> 509.1, 509.2, 509.3; ``601.2a`` + ``–h`` -> 601.2a … 601.2h."""
    end = rng.strip().lstrip("-–—~〜").strip()
    if not end:
        return [first]
    p = ruleid.parse(first)
    if p is None:
        return [first]
    _, rule, num, letters = p
    if rule is not None and num is not None and letters and re.fullmatch(_L, end):
        lo, hi = ruleid.SUB_LETTERS.find(letters), ruleid.SUB_LETTERS.find(end)
        if 0 <= lo <= hi:
            return [f"{rule}.{num}{c}" for c in ruleid.SUB_LETTERS[lo : hi + 1]]
    if rule is not None and num is not None and not letters and end.isdigit() and num <= int(end) <= num + 50:
        return [f"{rule}.{n}" for n in range(num, int(end) + 1)]
    if ruleid.parse(end) is not None and "." in end:
        return [first, end]
    return [first]


def find_references(text: str) -> list[Reference]:
    """Clause ids cited in a text, each with its raw span; ranges expanded, duplicates kept once."""
    refs: list[Reference] = []
    seen: set[str] = set()
    covered: list[tuple[int, int]] = []

    def add(rule: str, raw: str, start: int, end: int) -> None:
        if rule in seen or ruleid.parse(rule) is None:
            return
        seen.add(rule)
        refs.append(Reference(rule=rule, raw=raw, start=start, end=end))

    for m in _RULE_WORD.finditer(text):
        start, end = m.span()
        raw = m.group(0)
        # Include a following 〔title〕 in the raw span: it is part of how the viewer cites.
        t = re.match(r"〔[^〕]{0,40}〕", text[end:])
        if t:
            raw += t.group(0)
        for rule in _expand_range(m.group("first"), m.group("range") or ""):
            add(rule, raw, start, start + len(raw))
        for extra in _TAIL_ID.finditer(m.group("more") or ""):
            for rule in _expand_range(extra.group("first"), extra.group("range") or ""):
                add(rule, raw, start, start + len(raw))
        covered.append((start, end))
    spans = iter(covered)  # in text order, like the dotted ids: one pass over both
    span = next(spans, None)
    for m in _ID_DOTTED.finditer(text):
        while span is not None and span[1] <= m.start():
            span = next(spans, None)
        if span is not None and span[0] <= m.start():
            continue
        add(m.group(1), m.group(1), m.start(), m.end())
    return refs


_PAIR_SLASH = re.compile(r"「([^「」／/]{1,60})[／/]\s*([A-Za-z][^「」]{0,80}?)」")
_PAIR_PAREN = re.compile(r"([\u3040-\u30ff\u4e00-\u9fff・ー]{2,30})[（(]([A-Z][A-Za-z' \-]{1,60})[）)]")


_BRACKETS = ("[]", "{}", "()", "「」", "『』", "〔〕", "《》")
_NOT_A_NAME = {"a", "an", "the", "one", "that", "this", "its", "their"}  # "その/the", "1枚/a": grammar, not terms


def is_term_pair(ja: str, en: str) -> bool:
    """Whether a harvested pair names something: each side closes every bracket it opens (the slash of
    "[P/T]" or "{W/B}" is part of a symbol, not the divider of a pair) and the English is more than an
    article or pronoun."""
    for side in (ja, en):
        s = unicodedata.normalize("NFKC", side)
        if any(s.count(o) != s.count(c) for o, c in _BRACKETS):
            return False
    return en.strip().casefold() not in _NOT_A_NAME


def harvest_terms(text: str, rule: str = "", line: int = 0) -> list[Term]:
    """Bilingual pairs written in running text: 「日本語／English」 and 日本語（English）."""
    terms = []
    for m in _PAIR_SLASH.finditer(text):
        # "「[クリーチャー]がブロックするたび、／Whenever [a creature] blocks,」": drop the clause comma on both sides
        ja, en = m.group(1).strip().rstrip("、，,"), m.group(2).strip().rstrip(",")
        if is_term_pair(ja, en):
            terms.append(Term(term=ja, english=en, rule=rule, source="inline", line=line))
    for m in _PAIR_PAREN.finditer(text):
        if is_term_pair(m.group(1), m.group(2)):
            terms.append(Term(term=m.group(1), english=m.group(2).strip(), rule=rule, source="inline", line=line))
    return terms


_OWN_ID = re.compile(rf"^(?:{ruleid.ID_IN_TEXT}(?:\.[ \u3000]*|[ \u3000]+))+")
_TITLE_PAIR = re.compile(r"^(?P<ja>[^／/「」。]{1,40}?)\s*[／/]\s*(?P<en>[A-Za-z][A-Za-z0-9'’ ,!\-]{0,60})$")


def title_pair(title: str, rule: str = "", line: int = 0) -> Term | None:
    """The pair a heading names itself by: ``702.21. 護法／Ward`` -> 護法 / Ward."""
    m = _TITLE_PAIR.match(_OWN_ID.sub("", title.strip()))  # a name never starts with a clause number
    if not m or not is_term_pair(m.group("ja"), m.group("en")):
        return None
    return Term(term=m.group("ja").strip(), english=m.group("en").strip(), rule=rule, source="heading", line=line)


def check_nodes(nodes: list[RuleNode], path: str, *, errors: bool = True) -> list[Diagnostic]:
    """Duplicate ids and ids out of document order; errors by default, warnings when recoverable."""
    level = "error" if errors else "warning"
    out: list[Diagnostic] = []
    seen: dict[str, int] = {}
    prev: RuleNode | None = None
    for node in nodes:
        if node.rule in seen:
            out.append(
                Diagnostic(path, node.line, f"duplicate clause id {node.rule} (first at line {seen[node.rule]})", level)
            )
            continue
        seen[node.rule] = node.line
        if prev is not None and ruleid.sort_key(node.rule) < ruleid.sort_key(prev.rule):
            out.append(Diagnostic(path, node.line, f"clause id {node.rule} out of order (after {prev.rule})", level))
        prev = node
    return out


def link_tree(nodes: list[RuleNode]) -> None:
    """Fill parent (nearest existing ancestor) and position in document order."""
    present = {n.rule for n in nodes}
    for i, node in enumerate(nodes):
        node.position = i
        if node.parent is None:
            for anc in reversed(ruleid.ancestors(node.rule)):
                if anc in present:
                    node.parent = anc
                    break


def finish(result: ParseResult, hints: Hints) -> ParseResult:
    """Apply user overrides, link the tree, harvest references, and flag bad structure."""
    for version in result.versions:
        if hints.game:
            version.game = hints.game
        if hints.lang:
            version.lang = hints.lang
        if hints.version:
            version.label = hints.version
        if hints.provenance:
            version.meta["provenance"] = hints.provenance
        if version.truncated_at:  # a text that ends early holds only part of its version
            version.partial = True
        link_tree(version.nodes)
        for node in version.nodes:
            if not node.references and node.text:
                node.references = find_references(node.text)
        result.diagnostics.extend(check_nodes(version.nodes, hints.path))
    for article in result.articles:
        if hints.game:
            article.game = hints.game
    if not result.versions and not result.articles and not any(d.level == "error" for d in result.diagnostics):
        result.diagnostics.append(Diagnostic(hints.path, 0, f"no rules or article found: not a {result.format} text?"))
    return result
