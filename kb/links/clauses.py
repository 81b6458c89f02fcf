"""One version's clauses seen the way citations read them: families, stems, whole text, titles."""

from __future__ import annotations

import re

from kb import ruleid
from kb.links import evidence
from kb.store import NodeRecord, Store, VersionInfo

KEYWORD_RULE = re.compile(r"^702\.\d+$")  # keyword abilities: "702.90. Battle Cry"
_TOPIC_RULE = re.compile(r"^(?:70[12]\.\d+|[1-9]\d\d)$")  # keyword abilities and actions, and whole rules
_QUOTED = re.compile(r"“[^”]*”|\"[^\"\n]*\"")  # card wording the rules mention, not their own words
COMMON_PHRASE = 3  # a quote the rules say in more clauses than this is a commonplace, not a quotation
_GENERIC_TITLES = {"general", "glossary", "credits", "additional rules", "casting spells"}


def norm(text: str) -> str:
    """Lower case words separated by single spaces (punctuation dropped), for containment tests."""
    return re.sub(r"[^\w]+", " ", text.lower()).strip()


def heading(title: str, text: str) -> str:
    """A rule's title, lower case: "702.90. Battle Cry" keeps it as the title or as a one-line text."""
    name = title or (text if len(text) <= 40 and "\n" not in text and not text.endswith(".") else "")
    return name.lower().strip(" .")


def rule_head(rule: str) -> str:
    """The rule a clause belongs to: a keyword ability or action is its own (702.90a -> 702.90), else 509.1c -> 509."""
    if rule.startswith(("701.", "702.")):
        return rule.rstrip(ruleid.SUB_LETTERS)
    return rule.split(".")[0]


class View:
    """The clauses of one version, indexed for families (a clause with its sub-rules) and titles."""

    def __init__(self, store: Store, version: VersionInfo):
        self.version = version
        self.nodes: dict[str, NodeRecord] = {n.rule: n for n in store.nodes(version)}
        self.kids: dict[str, list[str]] = {}
        for n in self.nodes.values():
            if n.parent:
                self.kids.setdefault(n.parent, []).append(n.rule)
        self._family: dict[str, str] = {}
        self._stems: dict[str, frozenset[str]] = {}
        self._whole: str | None = None
        self._plain: str | None = None
        self._raw: str | None = None
        self._topics: list[tuple[frozenset[str], str, str]] | None = None

    def own_text(self, rule: str) -> str:
        n = self.nodes.get(rule)
        return " ".join([n.title, n.text, *n.examples]) if n else ""

    def descendants(self, rule: str) -> list[str]:
        out, todo = [], list(self.kids.get(rule, ()))
        while todo:
            r = todo.pop(0)
            out.append(r)
            todo.extend(self.kids.get(r, ()))
        return out

    def family(self, rule: str) -> str:
        """The clause, its sub-rules and the titles above it: what a citation of ``rule`` may speak of."""
        if rule not in self._family:
            parts = [self.own_text(rule), *(self.own_text(r) for r in self.descendants(rule))]
            parts += [self.nodes[a].title for a in ruleid.ancestors(rule) if a in self.nodes]
            self._family[rule] = " ".join(p for p in parts if p)
        return self._family[rule]

    def stems(self, rule: str) -> frozenset[str]:
        if rule not in self._stems:
            self._stems[rule] = frozenset(evidence.stems(self.family(rule)))
        return self._stems[rule]

    def own_stems(self, rule: str) -> frozenset[str]:
        """Stems of the clause's own text and the titles above it (no sub-rules)."""
        key = "=" + rule
        if key not in self._stems:
            n = self.nodes.get(rule)
            parts = [n.title, n.text] if n else []  # the rule's statement: examples mention every other topic
            parts += [self.nodes[a].title for a in ruleid.ancestors(rule) if a in self.nodes]
            self._stems[key] = frozenset(evidence.stems(" ".join(parts)))
        return self._stems[key]

    def whole(self) -> str:
        """Every clause's text, normalised, for "is this quote anywhere in the rules"."""
        if self._whole is None:
            self._whole = " | ".join(norm(self.own_text(r)) for r in self.nodes)
        return self._whole

    def states(self, quote: str) -> str:
        """How the rules hold ``quote``: "defined" as a phrase (“X” means …), "said" in their own words, or ""
        (only mentioned in quotation marks as card wording, or said by too many clauses to quote any)."""
        if self._plain is None:
            self._plain = " | ".join(norm(_QUOTED.sub(" | ", self.own_text(r))) for r in self.nodes)
            self._raw = "\n".join(self.own_text(r) for r in self.nodes)
        q = norm(quote)
        if not q:
            return ""
        phrase = r"\s+".join(re.escape(w) for w in quote.strip(" .,;:…").split())
        if re.search(rf"[“\"]{phrase}[.,]?[”\"]\s+(?:means?|is|are|refers?)\b", self._raw, re.I):
            return "defined"
        # a phrase many clauses use ("a +1/+1 counter on it") quotes none of them in particular
        if 0 < f" {self._plain} ".count(f" {q} ") <= COMMON_PHRASE:
            return "said"
        return ""

    def title_of(self, rule: str) -> str:
        """The title of the keyword rule or whole rule a clause sits under (lower case)."""
        for head in [rule, *reversed(ruleid.ancestors(rule))]:
            n = self.nodes.get(head)
            if n is not None and _TOPIC_RULE.match(head):
                return heading(n.title, n.text)
        return ""

    def topics(self) -> list[tuple[frozenset[str], str, str]]:
        """(stems of the title, rule, title) of every keyword ability or action and every titled rule."""
        if self._topics is None:
            self._topics = []
            for rule, n in self.nodes.items():
                name = heading(n.title, n.text) if _TOPIC_RULE.match(rule) else ""
                words = frozenset(evidence.stems(name))
                if name and words and name not in _GENERIC_TITLES:
                    self._topics.append((words, rule, name))
        return self._topics

    def clause_docs(self):
        """Stems of each clause's own text (the documents the word weights are counted over)."""
        return (frozenset(evidence.stems(self.own_text(r))) for r in self.nodes)

    def newer_than(self, rule: str) -> bool:
        """True when ``rule`` numbers past the last sibling on its path (702.190 when 702 ends at 702.189)."""
        chain = [*ruleid.ancestors(rule), rule]
        for upper, lower in zip(chain, chain[1:], strict=False):
            if lower in self.nodes:
                continue
            if upper not in self.nodes:
                return False
            level = ruleid.level(lower)
            same = [k for k in self.kids.get(upper, ()) if ruleid.level(k) == level]
            return bool(same) and ruleid.sort_key(lower) > max(ruleid.sort_key(k) for k in same)
        return False
