"""MTG Wiki (Japanese) articles, as rendered text (seed 002) or as the MediaWiki HTML page.

Both forms are first cut into blocks (title, heading, paragraph, bullet with depth, card block,
quote head) and then read by one builder. What the builder makes:

- the article: title, headed sections, plain text, links (参考 entries; every wiki link in HTML),
  cited clause ids, bilingual pairs (``extra["terms"]``), card blocks (``extra["cards"]``) and dated
  history notes (``extra["history"]``);
- the rules quoted under ``引用：総合ルール 20260807.0`` (MTG Wiki's ``{{#cr:…}}``): the section → rule →
  clause chain becomes rule nodes of a *partial* version with that label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from urllib.parse import quote, unquote

from bs4 import BeautifulSoup, Tag

from ingest.common import Hints, find_references, harvest_terms
from ingest.htmltext import clean, flatten
from kb import ruleid
from kb.model import Article, ParsedVersion, ParseResult, RuleNode, Section, has_japanese

NAME = "mtgwiki"
PROVENANCE = "wiki-quote"
WIKI = "https://mtgwiki.com/wiki/"  # where a page title lives

_QUOTE_HEAD = re.compile(r"^引用\s*[：:]\s*総合ルール\s*(\d{8}\.\d{1,2}|\S+)")
_BULLET = re.compile(r"^(\s*)[•・*]\s*(.*)$")
_CARD_HEAD = re.compile(
    r"^([A-Z][A-Za-z0-9'’,.\- ]*?)\s*/\s*([^()（）/]*[\u3040-\u30ff\u4e00-\u9fff][^()（）/]*?)\s*((?:[(（][^)）]{1,6}[)）])*)$"
)
_QUOTED_NODE = re.compile(r"^(?P<rule>[0-9]|[1-9]\d{2}|[1-9]\d{2}\.\d{1,3}[a-z]{0,2})\.?\s+(?P<body>.+)$")
_EXAMPLE = re.compile(r"^例\s*[：:]\s*")
_DATE = re.compile(r"(\d{4})年(?:(\d{1,2})月)?(?:(\d{1,2})日)?")
# 寄せ餌/Lure, いななくアーモドン/Trumpeting Armodon, 増殖(ぞうしょく)/Proliferate: MTG Wiki writes 日本語/English
_JA_EN = re.compile(
    r"([\u3040-\u30ff\u4e00-\u9fff々ー・0-9０-９]+)(?:[(（]([\u3040-\u309fー]+)[)）])?"
    r"/([A-Z][A-Za-z'’\-]*(?:[ ,]+[A-Za-z][A-Za-z'’\-]*)*)"
)


@dataclass
class _Block:
    kind: str  # "title" | "heading" | "para" | "bullet" | "cont" | "card" | "quote_head"
    text: str
    line: int
    depth: int = 0
    level: int = 2  # headings
    anchor: str = ""
    lines: tuple[str, ...] = ()  # card blocks


def sniff(text: str, filename: str = "") -> float:
    """High for MTG Wiki pages (rendered text or HTML), about 0 for rules texts and PukiWiki source."""
    head = text[:6000]
    if re.search(r"(?i)<(?:!doctype html|html|body|div)\b", head):
        if "mw-parser-output" not in text and "firstHeading" not in text:
            return 0.0
        return 0.95 if re.search(r"(?i)MTG ?Wiki|mtgwiki", text) else 0.5
    if text.lstrip().startswith("#author(") or "[[" in head or not has_japanese(head):
        return 0.0
    lines = text.split("\n")
    score = 0.0
    if any(_QUOTE_HEAD.match(line.strip()) for line in lines):
        score += 0.6
    if sum(1 for line in lines if re.match(r"^\s*•\s", line)) >= 2:
        score += 0.2
    if any(line.strip() in ("参考", "関連カード", "脚注", "ルール", "解説") for line in lines):
        score += 0.2
    if any(_CARD_HEAD.match(line.strip()) for line in lines[:30]):
        score += 0.2
    return min(score, 0.95)


def parse(text: str, hints: Hints) -> ParseResult:
    """Read one article and the rules it quotes."""
    if re.search(r"(?i)<(?:!doctype html|html|body|div)\b", text[:6000]):
        blocks, links = _html_blocks(text)
        canonical = re.search(r"""<link[^>]+rel=["']canonical["'][^>]+href=["'](https?://[^"']+)""", text[:20000])
        url = canonical.group(1) if canonical else ""
    else:
        blocks, links, url = _text_blocks(text), [], ""
    return _Builder(hints, links, url).build(blocks)


# --- rendered text ------------------------------------------------------------------------------


def _text_blocks(text: str) -> list[_Block]:
    """Cut rendered text into blocks; a short line standing alone between blank lines is a heading."""
    lines = text.split("\n")
    blocks: list[_Block] = []
    i = 0
    while i < len(lines):
        raw, stripped, lineno = lines[i], lines[i].strip(), i + 1
        i += 1
        if not stripped:
            continue
        if not blocks:
            blocks.append(_Block("title", stripped, lineno))
        elif _QUOTE_HEAD.match(stripped):
            blocks.append(_Block("quote_head", stripped, lineno))
        elif m := _BULLET.match(raw):
            blocks.append(_Block("bullet", m.group(2).strip(), lineno, depth=len(m.group(1).expandtabs()) // 2))
        elif raw[:1].isspace():
            blocks.append(_Block("cont", stripped, lineno, depth=len(raw) - len(raw.lstrip())))
        elif (m := _CARD_HEAD.match(stripped)) and i < len(lines) and lines[i].strip():
            card = [stripped]
            while i < len(lines) and lines[i].strip():
                card.append(lines[i].strip())
                i += 1
            blocks.append(_Block("card", stripped, lineno, lines=tuple(card)))
        elif _is_heading(stripped, lines[i - 2] if i >= 2 else "", lines[i] if i < len(lines) else ""):
            blocks.append(_Block("heading", stripped, lineno))
        else:
            blocks.append(_Block("para", stripped, lineno))
    return blocks


def _is_heading(line: str, before: str, after: str) -> bool:
    return not before.strip() and not after.strip() and len(line) <= 20 and not re.search(r"[。．、！？!?]$|、", line)


# --- HTML -----------------------------------------------------------------------------------------

_DROP = ("script", "style", "noscript")
_DROP_CLASSES = re.compile(r"(?:^|\s)(?:toc|mw-editsection|navbox|catlinks|printfooter|mw-jump-link|reference)(?:\s|$)")
_LINK_SKIP = re.compile(r"^(?:ファイル|File|カテゴリ|Category|特別|Special|画像|Image|ノート|Talk):")


def _html_blocks(html: str) -> tuple[list[_Block], list[str]]:
    soup = BeautifulSoup(html, "html.parser")
    for el in [
        t for t in soup.find_all(True) if t.name in _DROP or _DROP_CLASSES.search(" ".join(t.get("class") or []))
    ]:
        if not el.decomposed:
            el.decompose()
    for el in soup.find_all(id="toc"):
        el.decompose()
    h1 = soup.find(id="firstHeading") or soup.find("h1")
    title = (
        clean(h1.get_text(" ")) if h1 else (soup.title.get_text(" ", strip=True).split(" - ")[0] if soup.title else "")
    )
    blocks = [_Block("title", title, getattr(h1, "sourceline", 0) or 0)]
    root = soup.find(class_="mw-parser-output") or soup.find(id="mw-content-text") or soup.body or soup
    _walk(root, blocks)
    links = []
    for a in root.find_all("a", href=True):
        target = _link_title(a)
        if target and target != title and target not in links:
            links.append(target)
    return blocks, links


def _walk(el: Tag, blocks: list[_Block]) -> None:
    """Read the blocks under ``el`` in document order (an explicit stack: pages may nest thousands deep)."""
    stack = [iter(el.children)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            continue
        if not isinstance(child, Tag):
            continue
        line = child.sourceline or 0
        classes = " ".join(child.get("class") or [])
        if re.fullmatch(r"h[2-6]", child.name):
            headline = child.find(class_="mw-headline") or child
            blocks.append(
                _Block(
                    "heading",
                    clean(headline.get_text(" ")),
                    line,
                    level=int(child.name[1]),
                    anchor=headline.get("id") or child.get("id") or "",
                )
            )
        elif "card" in classes:
            lines = tuple(_lines(child))
            if lines:
                blocks.append(_Block("card", lines[0], line, lines=lines))
        elif child.name in ("ul", "ol"):
            _list(child, 0, blocks)
        elif child.name in ("p", "dd", "dt", "pre"):
            for text in _lines(child):
                kind = "quote_head" if _QUOTE_HEAD.match(text) else "para"
                blocks.append(_Block(kind, text, line))
        elif child.name == "table":
            for tr in child.find_all("tr"):
                cells = [clean(c.get_text(" ")) for c in tr.find_all(["th", "td"])]
                if any(cells):
                    blocks.append(_Block("para", " | ".join(c for c in cells if c), tr.sourceline or line))
        else:  # div, blockquote, dl, section: look inside
            stack.append(iter(child.children))


def _list(ul: Tag, depth: int, blocks: list[_Block]) -> None:
    """Bullets of a list and its nested lists, each at its depth (an explicit stack, like ``_walk``)."""
    stack = [iter([("list", ul, depth)])]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
            continue
        kind, el, d = item
        if kind == "list":
            stack.append(iter([("li", li, d) for li in el.find_all("li", recursive=False)]))
        elif kind == "li":
            own = _lines(el, skip=("ul", "ol", "dl", "p"))
            blocks.append(_Block("bullet", own[0] if own else "", el.sourceline or 0, depth=d))
            blocks.extend(_Block("cont", t, el.sourceline or 0, depth=d + 1) for t in own[1:])
            subs = el.find_all(["ul", "ol", "dl", "p"], recursive=False)
            stack.append(iter([("list" if sub.name in ("ul", "ol") else "para", sub, d + 1) for sub in subs]))
        else:
            blocks.extend(_Block("cont", t, el.sourceline or 0, depth=d) for t in _lines(el))


def _lines(el: Tag, skip: tuple[str, ...] = ()) -> list[str]:
    """Text of an element, one entry per paragraph or <br>-separated line."""
    return flatten(el, skip=skip)


def _link_title(a: Tag) -> str:
    """The wiki page an <a> points to, or "" for external, anchor and namespace links."""
    href = a["href"]
    m = re.match(r"^(?:https?://[^/]*mtgwiki\.com)?/(?:wiki/|index\.php\?title=)([^&#?]+)", href)
    if not m or {"external", "new"} & set(a.get("class") or []):
        return ""  # external links and red links (pages that do not exist)
    title = unquote(m.group(1)).replace("_", " ")
    return "" if _LINK_SKIP.match(title) else title


# --- builder ------------------------------------------------------------------------------------


class _Builder:
    """Read blocks into the article and the partial versions its quotes belong to."""

    def __init__(self, hints: Hints, links: list[str], url: str = "") -> None:
        self.hints = hints
        self.url = url
        self.article = Article(title="", game="mtg", lang="ja", links=list(links))
        self.sections: list[Section] = []
        self.lead: list[str] = []
        self.versions: dict[str, ParsedVersion] = {}
        self.quote: ParsedVersion | None = None
        self.in_example = False
        self.cards: list[dict] = []
        self.history: list[dict] = []
        self.terms: list[dict] = []

    def build(self, blocks: list[_Block]) -> ParseResult:
        for block in blocks:
            self.feed(block)
        art = self.article
        art.sections = self.sections
        art.text = "\n".join(self.lead + [f"{s.title}\n{s.text}".strip() for s in self.sections])
        if not art.links:  # rendered text keeps no links: the 参考 list names the linked pages
            art.links = [
                line.lstrip("・ ") for s in self.sections if s.title == "参考" for line in s.text.split("\n") if line
            ]
        quoted = [n.rule for v in self.versions.values() for n in v.nodes if ruleid.is_clause(n.rule)]
        art.cites = list(dict.fromkeys(quoted + [r.rule for r in find_references(art.text)]))
        art.cites_version = next(iter(self.versions), "")
        # the lead (text before the first heading) and where the page lives, for readers of the article
        art.extra = {
            "cards": self.cards,
            "history": self.history,
            "terms": self.terms,
            "lead": "\n".join(self.lead),
            "url": self.url or WIKI + quote(art.title.replace(" ", "_")),
            "wiki": WIKI,
        }
        for version in self.versions.values():
            version.nodes.sort(key=lambda n: ruleid.sort_key(n.rule))  # quotes are excerpts, in any order
            version.terms = [t for n in version.nodes for t in harvest_terms(n.text, rule=n.rule, line=n.line)]
        # A quote whose lines could not be read as clauses must not create an empty version.
        kept = [v for v in self.versions.values() if v.nodes]
        return ParseResult(format=NAME, kind="article", versions=kept, articles=[art])

    def feed(self, b: _Block) -> None:
        if b.kind == "title":
            self.article.title = b.text
            return
        if b.kind == "quote_head":
            self.quote = self._version(_QUOTE_HEAD.match(b.text).group(1))
            return
        in_quote = b.kind == "cont" or (b.kind == "bullet" and (b.depth > 0 or _QUOTED_NODE.match(b.text)))
        if self.quote is not None and in_quote:
            self._quoted(b)
            return
        self.quote = None
        if b.kind == "heading":
            self.sections.append(Section(title=b.text, level=b.level, text="", anchor=b.anchor))
            return
        if b.kind == "card":
            self._card(b)
            return
        text = ("・" if b.kind == "bullet" else "") + b.text
        self._add_text(text)
        self._harvest(b)

    def _add_text(self, text: str) -> None:
        if self.sections:
            s = self.sections[-1]
            s.text = f"{s.text}\n{text}" if s.text else text
        else:
            self.lead.append(text)

    def _harvest(self, b: _Block) -> None:
        """Collect bilingual pairs and dated history notes from article prose."""
        for t in harvest_terms(b.text, line=b.line):
            self._term(t.term, t.english, b.line)
        for m in _JA_EN.finditer(b.text):
            self._term(m.group(1), m.group(3), b.line, reading=m.group(2) or "")
        if b.kind in ("bullet", "para", "cont") and (m := _DATE.search(b.text)):
            iso = "-".join(p.zfill(2) for p in m.groups() if p)
            section = self.sections[-1].title if self.sections else ""
            self.history.append({"date": iso, "text": b.text, "section": section, "line": b.line})

    def _term(self, ja: str, en: str, line: int, reading: str = "") -> None:
        if not any(t["term"] == ja and t["english"] == en for t in self.terms):
            self.terms.append({"term": ja, "english": en, "reading": reading, "source": "article", "line": line})

    def _card(self, b: _Block) -> None:
        m = _CARD_HEAD.match(b.lines[0])
        if not m:
            self._add_text("\n".join(b.lines))
            return
        rest = list(b.lines[1:])
        card = {
            "name": m.group(1).strip(),
            "name_ja": m.group(2).strip(),
            "cost": m.group(3),
            "type": rest.pop(0) if rest else "",
        }
        if rest and re.fullmatch(r"[0-9*＊X+\-]+\s*/\s*[0-9*＊X+\-]+", rest[-1]):
            card["pt"] = rest.pop()
        card.update(text="\n".join(rest), line=b.line)
        self.cards.append(card)
        self._term(card["name_ja"], card["name"], b.line)
        for t in harvest_terms(card["type"], line=b.line):
            self._term(t.term, t.english, b.line)
        self._add_text("\n".join(b.lines))

    def _version(self, label: str) -> ParsedVersion:
        if label not in self.versions:
            m = re.fullmatch(r"(\d{4})(\d{2})(\d{2})\.\d+", label)
            effective = date(int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None
            meta = {
                "kind": "quote",
                "source": "mtgwiki quote",
                "article": self.article.title,
                "version_source": "quote",
            }
            self.versions[label] = ParsedVersion(
                game="mtg", lang="ja", label=label, effective=effective, partial=True, meta=meta
            )
        return self.versions[label]

    def _quoted(self, b: _Block) -> None:
        """A line of a quote: ``5 ターンの構造``, ``509 …``, ``509.1c …``, ``例：…`` or a running paragraph."""
        nodes = self.quote.nodes
        m = _QUOTED_NODE.match(b.text) if b.kind == "bullet" else None
        if m:
            rule, body = m.group("rule"), m.group("body").strip()
            if any(n.rule == rule for n in nodes):
                self.in_example = False
                return  # the section and rule heads repeat with every quote of the same rule
            heading = not ruleid.is_clause(rule)
            nodes.append(RuleNode(rule=rule, title=body if heading else "", text="" if heading else body, line=b.line))
            self.in_example = False
        elif nodes and _EXAMPLE.match(b.text):
            nodes[-1].examples.append(_EXAMPLE.sub("", b.text, count=1))
            self.in_example = True
        elif nodes and self.in_example:
            nodes[-1].examples[-1] += "\n" + b.text  # as in the viewer: prose after an example continues it
        elif nodes:
            nodes[-1].text = f"{nodes[-1].text}\n{b.text}".strip()
