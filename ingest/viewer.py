"""The Japanese rules viewer (総合ルールビューア): one rule page, as copied text or as the HTML page.

Text form (seeds 000 and 003)::

    総合ルールビューア
    5. ターンの構造
    509. ブロック・クリーチャー指定ステップ
    - 509.1 まず、… (rule 728〔不正な処理の扱い〕参照。)
    unnumbered paragraph            -> continuation of 509.1 (joined with "\\n")
    例：…                           -> an example of 509.1
    unnumbered paragraph after 例： -> continuation of that example (see ``_Builder.add_text``)

The HTML form is flattened into the same lines (headings, one line per clause element, one line per
paragraph inside it) so both forms share one parser.
"""

from __future__ import annotations

import re
from datetime import date

from bs4 import BeautifulSoup, Comment, Tag

from ingest.common import Hints, find_references, harvest_terms
from ingest.htmltext import clean, flatten
from kb.model import Diagnostic, ParsedVersion, ParseResult, Reference, RuleNode, Term, has_japanese

NAME = "viewer"
PROVENANCE = "viewer"

# The viewer serves one edition only: the Wisdom Guild 総合ルールビューア showed MJMJ's translation
# 20231117.0 when seeds 000/003 were copied from it (see ../shared/README.md), and its pages do not
# print the version. Used only when neither the text nor --version names one.
VIEWER_VERSION = "20231117.0"

_MARK = "総合ルールビューア"
_SECTION = re.compile(r"^([0-9])\.\s+([^。]{1,60})$")
_RULE = re.compile(r"^([1-9]\d{2})\.\s+([^。]{1,80})$")
_CLAUSE = re.compile(r"^(?:[-•・*]\s*)?([1-9]\d{2}\.\d{1,3}[a-z]{0,2})\.?(?:\s+|$)(.*)$")
_EXAMPLE = re.compile(r"^例\s*[：:]\s*")
# A version label written on the page: "総合ルール 20231117.0", "Ver. 20231117.0", "バージョン：20231117.0"
_VERSION = re.compile(r"(?:(?:総合ルール|[Vv]er(?:sion)?\.?|バージョン)\s*[：:]?|和訳)\s*(\d{8}\.\d{1,2})(?!\d)")
_CLAUSE_LINE = re.compile(r"^[-•・*]\s*[1-9]\d{2}\.\d{1,3}[a-z]{0,2}\s+\S", re.M)


def sniff(text: str, filename: str = "") -> float:
    """High for viewer pages (text or HTML), about 0 for official, wiki and English texts."""
    head = text[:4000]
    if _looks_html(head):
        if "mw-parser-output" in head or "firstHeading" in head:
            return 0.0  # MediaWiki (MTG Wiki) pages quote rules too
        ids = len(re.findall(r"id=[\"'](?:R|rule-)?[1-9]\d{2}\.?\d{1,3}[a-z]{0,2}[\"']", text))
        if _MARK in text:
            return 0.95
        return 0.6 if ids >= 3 and has_japanese(text) else 0.0
    if "引用：総合ルール" in text or text.lstrip().startswith("#author("):
        return 0.0
    first = text.lstrip().split("\n", 1)[0].strip()
    clause_lines = [m.group(0) for m in _CLAUSE_LINE.finditer(text)]
    japanese = sum(1 for line in clause_lines if has_japanese(line))
    if first == _MARK:
        return 0.95 if clause_lines else 0.6
    if japanese >= 3 and japanese >= 0.8 * len(clause_lines):
        return 0.7
    return 0.0


def parse(text: str, hints: Hints) -> ParseResult:
    """Read one viewer page into a partial version of the Japanese MTG rules."""
    if _looks_html(text[:4000]):
        lines, meta, links = _html_lines(text)
        if not any(_CLAUSE.match(line) for _, line in lines):
            # Viewer text wrapped in markup (<pre>, one <p> per line) rather than the page's clause elements.
            lines = _html_text_lines(text)
    else:
        lines = [(i, line.strip()) for i, line in enumerate(text.split("\n"), 1)]
        meta, links = {}, {}
    builder = _Builder()
    for lineno, line in lines:
        builder.feed(lineno, line)
    meta.update(source=NAME)
    if builder.header:
        meta.setdefault("title", builder.header[0])
    result = ParseResult(format=NAME, kind="cr")
    if not any("." in n.rule for n in builder.nodes):
        return result  # no clauses: ingest.common.finish reports the file as not a viewer text
    label, meta["version_source"] = _version(text, hints)
    if meta["version_source"] == "viewer default":
        result.diagnostics.append(
            Diagnostic(
                hints.path,
                0,
                f"version not stated in the page; assuming the viewer's {VIEWER_VERSION} (give --version to override)",
                "warning",
            )
        )
    version = ParsedVersion(
        game="mtg", lang="ja", label=label, effective=_label_date(label), partial=True, nodes=builder.nodes, meta=meta
    )
    for node in version.nodes:
        node.references = _references(node, links.get(node.rule, []))
        version.terms.extend(_terms(node))
    version.terms = _unique_terms(version.terms)
    result.versions.append(version)
    return result


class _Builder:
    """Turn viewer lines into rule nodes, attaching paragraphs and examples to the open clause."""

    def __init__(self) -> None:
        self.nodes: list[RuleNode] = []
        self.header: list[str] = []
        self.in_example = False

    def feed(self, lineno: int, line: str) -> None:
        if not line:
            return
        if m := _CLAUSE.match(line):
            self._open(RuleNode(rule=m.group(1), text=m.group(2).strip(), line=lineno))
        elif (m := _SECTION.match(line)) or (m := _RULE.match(line)):
            self._open(RuleNode(rule=m.group(1), title=m.group(2).strip(), line=lineno))
        elif not self.nodes:
            self.header.append(line)
        elif _EXAMPLE.match(line):
            self.nodes[-1].examples.append(_EXAMPLE.sub("", line, count=1))
            self.in_example = True
        else:
            self.add_text(line)

    def _open(self, node: RuleNode) -> None:
        self.nodes.append(node)
        self.in_example = False

    def add_text(self, line: str) -> None:
        """Append an unnumbered paragraph to the clause, or to its last example once one has begun.

        The viewer renders a clause's examples after all of its rule text, so a plain paragraph that
        follows an example is the example running on (the CR's multi-paragraph examples), not more
        rule text; giving it to the clause would splice example prose into the rule.
        """
        node = self.nodes[-1]
        if self.in_example:
            node.examples[-1] += "\n" + line
        else:
            node.text = f"{node.text}\n{line}" if node.text else line


def _version(text: str, hints: Hints) -> tuple[str, str]:
    """The version label and where it came from: --version, the page itself, or the viewer default."""
    if hints.version:
        return hints.version, "hint"
    m = _VERSION.search(BeautifulSoup(text, "html.parser").get_text(" ") if _looks_html(text[:4000]) else text)
    if m:
        return m.group(1), "text"
    return VIEWER_VERSION, "viewer default"


def _label_date(label: str) -> date | None:
    """A Japanese label ``YYYYMMDD.N`` names the English edition it translates, effective that day."""
    m = re.fullmatch(r"(\d{4})(\d{2})(\d{2})\.\d+", label)
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None
    except ValueError:
        return None


def _references(node: RuleNode, hrefs: list[str]) -> list[Reference]:
    """Cross references in the text, plus link targets the text does not spell out."""
    refs = find_references(node.text)
    known = {r.rule for r in refs}
    for rule in hrefs:
        if rule not in known and rule != node.rule:
            known.add(rule)
            refs.append(Reference(rule=rule, raw=rule))
    return refs


def _terms(node: RuleNode) -> list[Term]:
    return harvest_terms(node.text, rule=node.rule, line=node.line)


def _unique_terms(terms: list[Term]) -> list[Term]:
    seen: set[tuple[str, str]] = set()
    out = []
    for t in terms:
        if (t.term, t.english) not in seen:
            seen.add((t.term, t.english))
            out.append(t)
    return out


# --- HTML -------------------------------------------------------------------------------------

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_BLOCKS = {"p", "div", "ul", "ol", "li", "dl", "dt", "dd", "blockquote", "section", "table", "tr", "pre"}
# Site chrome whose text would read as rules: the sidebar table of contents repeats every heading.
_CHROME = re.compile(r"(?i)(?:^|[-_])(?:toc|sidebar|side|menu|nav|navi|breadcrumbs?|footer)(?:$|[-_])")
_ID_DOTTED = re.compile(r"^(?:rule-|cr-|r)?([1-9]\d{2}\.\d{1,3}[a-z]{0,2})$", re.I)
_ID_ANCHOR = re.compile(r"^R([1-9]\d{2})(\d{1,3})([a-z]{0,2})$")  # Yawgatog-style R5091c
_TEXT_HOSTS = {"p", "li", "dd", "div", "td", "section", "article"}
_LEAD_ID = re.compile(r"^\s*([1-9]\d{2}\.\d{1,3}[a-z]{0,2})\.?(?:\s|$)")
_HREF_RULE = re.compile(r"(?:/r/|[#/?=]R?)([1-9]\d{2}(?:\.\d{1,3}[a-z]{0,2})?)$")


def _looks_html(head: str) -> bool:
    return bool(re.search(r"(?i)<(?:!doctype html|html|body|div|main)\b", head))


def _clause_id(el: Tag) -> str:
    """The clause id an element stands for, from its id or data-rule attribute."""
    for value in (el.get("data-rule"), el.get("id")):
        if not isinstance(value, str):
            continue
        if m := _ID_DOTTED.match(value):
            return m.group(1).lower()
        if m := _ID_ANCHOR.match(value):
            return f"{m.group(1)}.{m.group(2)}{m.group(3)}"
    return ""


def _clause_of(el: Tag) -> str:
    """The clause an element holds: by attribute, else by the id its own text starts with.

    The second form covers pages without anchors (``<li><b>510.1</b> …<ul><li>510.1a …``); only the
    element's leading inline text counts, so a wrapper is not mistaken for its first clause.
    """
    rule = _clause_id(el)
    if rule or el.name not in _TEXT_HOSTS:
        return rule
    lead: list[str] = []
    for child in el.children:
        if isinstance(child, Tag) and (child.name == "br" or child.name in _BLOCKS):
            break
        if not isinstance(child, Comment):
            lead.append(child.get_text() if isinstance(child, Tag) else str(child))
    m = _LEAD_ID.match("".join(lead))
    return m.group(1) if m else ""


def _is_chrome(el: Tag) -> bool:
    if el.name in ("nav", "aside", "script", "style", "footer", "noscript"):
        return True
    names = [el.get("id") or ""] + list(el.get("class") or [])
    return any(_CHROME.search(n) for n in names)


def _paragraphs(el: Tag, rule: str) -> list[str]:
    """Text of clause ``rule``'s element split at block boundaries and <br>, skipping nested clauses."""
    return flatten(el, blocks=_BLOCKS, cut=lambda child: _clause_of(child) not in ("", rule))


def _html_lines(html: str) -> tuple[list[tuple[int, str]], dict, dict[str, list[str]]]:
    """Flatten a viewer page to (line, text) pairs in viewer-text form, plus page meta and link targets."""
    soup = BeautifulSoup(html, "html.parser")
    meta: dict = {}
    if soup.title and soup.title.string:
        meta["page_title"] = soup.title.get_text(" ", strip=True)
    for el in [t for t in soup.find_all(True) if _is_chrome(t)]:
        if not el.decomposed:
            el.decompose()
    root = soup.find("main") or soup.find(id="content") or soup.body or soup
    lines: list[tuple[int, str]] = [(0, _MARK)] if _MARK in html else []
    links: dict[str, list[str]] = {}
    for el in root.find_all(True):
        line = el.sourceline or 0
        if el.name in _HEADINGS:
            text = clean(el.get_text(" "))
            if _SECTION.match(text) or _RULE.match(text):
                lines.append((line, text))
            continue
        rule = _clause_of(el)
        if not rule or any(_clause_of(p) == rule for p in el.parents):
            continue  # not a clause, or the inner part of one (<div id="509.1c"><p>509.1c …</p>)
        paras = _paragraphs(el, rule)
        first = paras[0] if paras else ""
        first = re.sub(r"^" + re.escape(rule) + r"\.?\s*", "", first)
        lines.append((line, f"- {rule} {first}".rstrip()))
        lines.extend((line, p) for p in paras[1:])
        links[rule] = _link_targets(el, rule)
    return lines, meta, links


def _html_text_lines(html: str) -> list[tuple[int, str]]:
    """The page's visible text as viewer-text lines, each with the source line it starts on.

    Block elements and ``<br>`` end a line, as do newlines inside ``<pre>``; inline markup (a linked
    ``rule 728``) stays within its line.
    """
    soup = BeautifulSoup(html, "html.parser")
    for el in soup.find_all(["script", "style", "noscript", "title", "head"]):
        el.decompose()
    root = soup.body or soup
    for el in root.find_all(set(_BLOCKS) | set(_HEADINGS) | {"br", "td", "th"}):
        el.insert_before("\n")
        el.insert_after("\n")
    out: list[tuple[int, str]] = []
    cur: list[str] = []
    cur_line = 0
    started = False  # the buffered line holds some text (tracked, not re-joined at every part)
    for s in root.find_all(string=True):
        if isinstance(s, Comment):
            continue
        base = (s.parent.sourceline or 0) if s.parent is not None else 0
        for k, part in enumerate(str(s).split("\n")):
            if k:  # a line break: the buffered line is complete
                if text := clean("".join(cur)):
                    out.append((cur_line, text))
                cur.clear()
                started = False
            if part.strip() and not started:
                cur_line = base + k if base else 0
                started = True
            cur.append(part)
    if text := clean("".join(cur)):
        out.append((cur_line, text))
    return out


def _link_targets(el: Tag, rule: str) -> list[str]:
    """Clause ids that the element's own links point to (rule 728〔…〕 links to /cr/r/728)."""
    out = []
    for a in el.find_all("a", href=True):
        owner = next((p for p in a.parents if p is el or _clause_of(p) not in ("", rule)), None)
        if owner is not el:
            continue  # belongs to a nested clause element
        if m := _HREF_RULE.search(a["href"]):
            out.append(m.group(1))
    return out
