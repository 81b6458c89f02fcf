"""The edition a tree's citations follow, read from their own words when nothing dates them.

A citation is judged against the edition it was written against: an annotation, a date on its line or
its line's commit date says which (kb.links.resolve). An exported tree, a tarball or a copy without its
history has none of these, and an engine last touched in 2014 then looks wrong wherever the rules were
renumbered since: "702.42. Bushido" (bushido is 702.45 now), "613.6d If an Aura, Equipment, or
Fortification becomes attached …" (now 613.7e). Its citations carry their era in their words, though:

- a keyword rule cited with its name ("702.42. Bushido", "bushido (702.42)") fits the editions in which
  that rule had that name;
- a rule cited as a header ("701.20. Clash") fits the editions in which the rule had that title;
- a clause pasted with its own id ("613.6d If an Aura …") fits the editions whose clause of that id
  holds those words;
- a term of the glossary named beside the id ("Mulligan (CR 103.4)") fits the editions whose glossary sent
  that term to that id ("See rule 103.4", until the mulligan moved to 103.5); it dates its own line only.

``learn`` counts, edition by edition, the undated citations that fit it. When far more fit an older
edition than the one cited against, the tree follows that edition: its undated citations are read as
written against it (the newest of the editions that fit most), so a renumbered one is ``stale`` with
where its clause went, as git's dates would have made it. A tree whose citations fit today's numbering as
well keeps no era: a few old numbers in a modern engine are its slips, not its edition.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from kb import ruleid
from kb.links import copied, evidence
from kb.links.clauses import heading
from kb.links.extract import Cite
from kb.store import VersionInfo

MIN_FITTING = 5  # undated citations that must fit an older edition before it is taken for the tree's
SHARE = 0.5  # ... and at most this share of that many may fit the edition cited against
_COMMENT = re.compile(r"^\s*(?://+|#+|\*+|/\*+|--|;+)\s*")
# "702.42. Bushido", "// 701.20. Clash": a rule's id and its title alone on a comment line, or run on
# into the rule's first clause as a paragraph pasted from the rules ("702.38. Provoke 702.38a Provoke is …")
_HEADER = re.compile(r"^(\d{3}\.\d+)\.?\s+([A-Z][A-Za-z' ,-]{1,40}?)\s*(?:(?:\*/)?\s*$|[#:;-]?\s*\1[a-z]\b)")
# the next clause id in a pasted paragraph: where the words of the clause before it end
_NEXT_ID = re.compile(r"(?<![\d.])\d{3}\.\d+[a-z]{0,2}\b")
_SEE = re.compile(rf"(?i){ruleid.RULE_CUE}\s*({ruleid.ID_IN_TEXT})(?![0-9])")  # "See rule 103.4"


def fitting(resolver, cite: Cite, *, terms: bool = True) -> set[int]:
    """Indexes into ``resolver.chain`` of the editions (partial ones aside) whose clause ``cite.rule`` the
    citation's own words fit: a header's title, a keyword named beside the id, a clause pasted with its id,
    a glossary term named beside it (``terms``: a line's own evidence, too common to date a whole tree).
    Empty when the words say nothing that tells editions apart."""
    if cite.scope == "name" or not cite.context:
        return set()
    chain = resolver.chain
    line = _COMMENT.sub("", cite.context, count=1).strip()
    if (m := _HEADER.match(line)) and m.group(1) == cite.rule:
        title = m.group(2).lower().strip()
        return {i for i, v in enumerate(chain) if not v.partial and _title(resolver, cite.rule, v) == title}
    lead, words = copied.fragment(line)
    if lead != cite.rule:
        # a paragraph pasted from the rules, its clauses run together: the words after the cited id, up to
        # the next id ("… a card.” 702.28b Although the cycling ability is playable only if …")
        at = re.search(rf"(?<![\d.]){re.escape(cite.rule)}\.?\s+(?=[A-Z])", line)
        if at and cite.rule[-1].isalpha():
            rest = line[at.end() :] + " " + resolver.next_line(cite)  # the sentence runs on below
            lead, words = cite.rule, copied.norm(rest[: m.start()] if (m := _NEXT_ID.search(rest)) else rest)
    if lead == cite.rule and copied.enough(words):
        held = resolver.copy_holders(words)
        order = {v.id: i for i, v in enumerate(chain)}
        if fits := {order[vid] for vid, rule in held if rule == cite.rule and vid in order}:
            return fits
        # words after the id that no edition's clause holds are the engine's own ("103.4 part 3c mulligan
        # LONDON discard answer", a Drools rule's name): what they name is read below
    if cite.rule.startswith(("702.", "701.", "502.")):  # 502: the keyword abilities until 2009
        # a keyword ability or action named beside its id ("see rule 701.34e - … manifest one by one")
        titles = resolver.titles_ever(cite.rule)
        low = cite.context.lower()
        said = resolver.named(cite.context, around=cite)  # abilities, near the id
        if not said and cite.rule.startswith("702."):  # ... or the one a doc comment's declaration names ("Menace,")
            said = resolver.named(resolver.documented(cite))
        if cite.rule.startswith("701."):  # actions, anywhere on the line
            said += [t for t in sorted(titles) if _names_action(t, low)]
        named = list(dict.fromkeys(k for k in said if k in titles))
        # one title in every edition tells editions apart only when the edition resolved against lacks the id
        if len(named) == 1 and (len(titles) > 1 or resolver.node(cite.rule, resolver.against) is None):
            return {i for i, v in enumerate(chain) if not v.partial and resolver.title_of(cite.rule, v) == named[0]}
    return glossed(resolver, cite) if terms else set()


def _names_action(title: str, low: str) -> bool:
    """True when lower-cased ``low`` names the keyword action ``title``, inflected or as its noun
    ("discards", "destroyed", "regeneration")."""
    stem = re.escape(title[:-1] if title.endswith("e") else title)
    return re.search(rf"(?<![a-z]){stem}(?:e|es|s|ed|d|ing|ion|ions)?(?![a-z])", low) is not None


def glossed(resolver, cite: Cite) -> set[int]:
    """Indexes into ``resolver.chain`` of the editions whose glossary sent a term the line names beside the id
    to that id ("Mulligan londyński (CR 103.4)": "See rule 103.4" until 2022). Only terms whose rule moved
    between editions say anything of one."""
    terms = moved_terms(resolver).get(cite.rule)
    if not terms:
        return set()
    near = evidence.stems(resolver.beside(cite.context, cite))
    return {i for words, fits in terms if _holds(near, words) for i in fits}


def moved_terms(resolver) -> dict[str, list[tuple[tuple[str, ...], frozenset[int]]]]:
    """Rule -> (stems of a term, indexes into the chain of the editions whose glossary sent the term to that
    rule), for every glossary term of up to three words whose entries send it to other rules in other
    editions (read once, kept on the resolver: a citation looks up its own rule's terms only)."""
    if resolver._moved is None:
        order = {v.id: i for i, v in enumerate(resolver.chain) if not v.partial}
        sent: dict[tuple[str, ...], dict[int, set[str]]] = {}
        stems_of: dict[str, tuple[str, ...]] = {}  # most terms and definitions repeat edition after edition
        sees: dict[str, set[str]] = {}
        for t in resolver.store.terms(resolver.game, resolver.lang):
            if t["version_id"] not in order or not t["definition"]:
                continue
            if (words := stems_of.get(t["term"])) is None:
                words = stems_of[t["term"]] = tuple(evidence.stems(t["term"]))
            if (ids := sees.get(t["definition"])) is None:
                ids = sees[t["definition"]] = set(_SEE.findall(t["definition"]))
            if ids and 0 < len(words) <= 3:
                sent.setdefault(words, {})[order[t["version_id"]]] = ids
        by_rule: dict[str, list[tuple[tuple[str, ...], frozenset[int]]]] = {}
        for words, rules_of in sent.items():
            if len({frozenset(r) for r in rules_of.values()}) > 1:
                for rule in set().union(*rules_of.values()):
                    fits = frozenset(i for i, rules in rules_of.items() if rule in rules)
                    by_rule.setdefault(rule, []).append((words, fits))
        resolver._moved = by_rule
    return resolver._moved


def _holds(stems: list[str], words: tuple[str, ...]) -> bool:
    """Whether ``words`` (a term's stems) run in ``stems``, a word of five letters or more also as a prefix
    (the term "regenerate" in "regenerationShields")."""
    n = len(words)
    return any(
        all(s == w or (len(w) >= 5 and s.startswith(w)) for s, w in zip(stems[i : i + n], words, strict=True))
        for i in range(len(stems) - n + 1)
    )


def _title(resolver, rule: str, version: VersionInfo) -> str:
    n = resolver.node(rule, version)
    return heading(n.title, n.text) if n else ""


def dated(resolver, cite: Cite) -> VersionInfo | None:
    """The newest edition (up to the one resolved against) that the citation's own words fit, when they do not
    fit the tree's era (or, in a tree with none, the edition resolved against): in a tree that follows an old
    edition, a header from a later one ("702.99. Extort", 2013, in a tree of 2011) was written then; in a
    tree of today's numbering, "702.87. Infect" (infect is 702.90 now) was written when 702.87 was infect."""
    chain = resolver.chain
    upto = next(i for i, v in enumerate(chain) if v.id == resolver.against.id)
    fits = [i for i in fitting(resolver, cite) if i <= upto]
    follows = resolver.era or resolver.against  # a tree with no era of its own follows the edition resolved against
    if not fits or any(chain[i].id == follows.id for i in fits):
        return None
    return chain[max(fits)]


def learn(resolver, cites: Iterable[Cite]) -> VersionInfo | None:
    """The edition the undated citations of ``cites`` follow when it is not the one ``resolver`` resolves
    against (None when they fit that one about as well, or too few say anything)."""
    chain = resolver.chain
    upto = next(i for i, v in enumerate(chain) if v.id == resolver.against.id)
    support: Counter[int] = Counter()
    seen: set[tuple[str, str]] = set()
    for c in cites:
        if c.written or c.game != resolver.game or (c.rule, c.context) in seen:
            continue
        seen.add((c.rule, c.context))
        fits = {i for i in fitting(resolver, c, terms=False) if i <= upto}
        support.update(fits)
    if not support:
        return None
    top = max(support.values())
    if top < MIN_FITTING or support[upto] > SHARE * top:
        return None
    return chain[max(i for i, n in support.items() if n == top)]
