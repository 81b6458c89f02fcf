"""Ranking priors: how hits found in one tier are reordered before a page is cut.

A hit's place is (tier, score inside the tier); the tiers come from kb.search.query, the nudges below
prefer clauses over their sub-clauses, current over superseded texts, and the game the query names.
"""

from __future__ import annotations

import re

from kb import ruleid

SUPERSEDED = 0.8  # a text shown only for want of a newer one (the 2008 translation beside 2026's)
POOL = 3.0  # hits read per tier, per hit wanted: the priors below reorder them
HIER = 0.6  # a clause scoring at least this share of its sub-clause's score is put above it
GAME_BIAS = 1.3  # hits of the game the query's words point to (see Searcher._game_of)

Scored = dict[int, tuple[float, float]]  # doc number -> (tier, score inside the tier)


def prior(kind: str | None, rule: str) -> float:
    """Headings and clauses state the rule their sub-clauses refine: a slight preference."""
    if kind != "rule":
        return 1.0
    return 1.35 if "." not in rule else 1.25 if rule[-1].isdigit() else 1.0


NEGATION_AGREES = 1.3  # a hit negating the words the query negates (ブロックされなかった: されていない)


def agrees(text: str, negated: list[str]) -> bool:
    """True when the first sentence of ``text`` (what the clause is about) negates one of the
    ``negated`` words too: ブロックされていない for ブロックされなかった."""
    first = text.split("。", 1)[0]
    return any(re.search(re.escape(w) + r"[ぁ-ん]{0,5}?(?:な[いかくけ]|ず|ません|無)", first) for w in negated)


def lift_parents(scored: Scored, where: dict[int, tuple[str, str, str]]) -> None:
    """Put a clause just above its best sub-clause when both match in the same tier and the clause
    scores nearly as well: the clause states the rule its sub-clauses refine ("rule in context")."""
    where = {d: w for d, w in where.items() if d in scored}
    docs = {w: d for d, w in where.items()}
    for d, (game, lang, rule) in sorted(where.items(), key=lambda kv: -scored[kv[0]][1]):
        p = docs.get((game, lang, ruleid.parent(rule) or ""))
        if p is None or scored[p][0] != scored[d][0]:
            continue
        tier, raw = scored[d]
        if scored[p][1] >= HIER * raw:
            scored[p] = (tier, max(scored[p][1], raw * 1.001))


def settled(scored: Scored, tier: float) -> int:
    """How many hits no tier below ``tier`` can overtake."""
    return sum(1 for t, _ in scored.values() if t >= tier)


# -- the order a page is shown in ---------------------------------------------------------------
Fields = dict  # a hit's stored fields: kind, game, lang, rule, dver, ...


def name_of(title: str) -> str:
    """The Japanese half of a ``日本語／English`` heading, or the whole title."""
    return title.split("／")[0].strip()


_ALTERNATIVES = re.compile(r"、|, |/")  # a glossary entry naming several forms: 統率、統率領域; Life, Life Total


def alternatives(name: str) -> list[str]:
    """The names a glossary entry lists (統率、統率領域 → 統率, 統率領域; "Respond/Response (Informal)" →
    Respond, Response), without quotes and the informal mark; none of one letter."""
    out = []
    for part in _ALTERNATIVES.split(name):
        part = re.sub(r"\((?:informal|非公式)\)|[\"“”?「」]", "", part, flags=re.I).strip()
        if len(part) >= 2:
            out.append(part)
    return out


_BETWEEN_JAPANESE = re.compile(r"(?<=[^\x00-\x7f])[・･\s]+(?=[^\x00-\x7f])")


def _joined(text: str) -> str:
    """Lower case, without the dots and spaces between Japanese words (パーマネント・呪文 = パーマネント 呪文)."""
    return _BETWEEN_JAPANESE.sub("", text.lower())


_WORD_CHAR = "\u30a0-\u30ff\u3400-\u9fff"  # katakana and kanji: a name run into them is part of a longer word


def defines(text: str, name: str) -> bool:
    """True when a clause's text opens by defining ``name``: "トランプルは…", "増殖を行うとは…",
    "パーマネントをタップするとは…", "カードをある領域から探すとは…", "Trample is …", "To proliferate means …".

    What stands before and after each place the name appears is matched by patterns compiled once: a
    pattern per name took 2 ms to compile, and a search asks about a few dozen names."""
    if not name:
        return False
    n = _joined(name)
    head = _joined(text.lstrip()[: len(name) + 30])
    i = head.find(n) if n else -1
    while i >= 0:
        before, after = head[:i], head[i + len(n) :]
        if (
            before in ("", "「")
            and _NAMED_IS.match(after)  # 「トランプル」は / 増殖を行うとは
            or before
            and _OBJECT_OF.fullmatch(before)
            and not _WORD_CHAR_RE.match(before[-1])
            and _DOING_IS.match(after)  # パーマネントをタップするとは
            or _ENGLISH_ARTICLE.fullmatch(before)
            and _ENGLISH_IS.match(after)  # To proliferate means
            or not before
            and after.startswith(": ")
        ):
            return True
        i = head.find(n, i + 1)
    return False


_NAMED_IS = re.compile(r"」?(?:を行う|する)?(?:は|とは|：)")
_OBJECT_OF = re.compile(r"[^。、]{0,16}を[^。、]{0,12}")
_WORD_CHAR_RE = re.compile(f"[{_WORD_CHAR}]")
_DOING_IS = re.compile(r"(?:する)?とは")
_ENGLISH_ARTICLE = re.compile(r"(?:to |an? |the )?")
_ENGLISH_IS = re.compile(r"s? (?:is|are|means)\b")


def names_it(text: str, name: str) -> bool:
    """True when a clause's first sentence ends by naming what it describes ``name``: "忠誠シンボルをコストに含む
    起動型能力は忠誠度能力である。", "An activated ability with a loyalty symbol in its cost is a loyalty ability."
    (the clause a heading's readers want, though its name is not its first word)."""
    t, n = _joined(text.strip()), re.escape(_joined(name))
    return bool(re.match(rf"[^。]{{0,60}}は、?{n}(?:で)?ある。|[^.]{{0,120}}\b(?:is|are) (?:called )?an? {n}s?\.", t))


def only_kind(text: str, name: str) -> bool:
    """True when a keyword's clause says what kind of ability ``name`` is and not what it means: "接死は常在型能力
    である。", "先制攻撃は、戦闘ダメージ・ステップのルールを変更する常在型能力である。", "Trample is a static ability
    that modifies the rules for assigning …" (the next sub-clause says what the ability does: 702.2b, 702.7b,
    702.19b). Not when it goes on to quote or define it: "「瞬速／Flash」は、「…」を意味する", "Ward [cost] means …"."""
    t, n = _joined(text.strip()), re.escape(_joined(name))
    t = re.sub(r"\(see rules? [^)]*\)|rule [0-9.a-z]+(?:〔[^〕]*〕)?参照。?", "", t)  # cross-references
    if re.search(r"意味|means|[「“\"]", t):
        return False
    return bool(
        re.match(rf"{n}は、?[^。]{{0,40}}能力(?:である|だ)。|{n} is an? [^.]{{0,80}}\bability\b[^.]{{0,80}}\.", t)
    )


def mentions(text: str, name: str) -> bool:
    """True when a clause's text holds ``name`` (up to case and the dots of a compound)."""
    return bool(name) and name.lower().replace("・", "") in text.lower().replace("・", "")


_OBSOLETE = re.compile(r"^\s*[(（](?:obsolete|廃語)[)）]", re.I)
# Today's name in an obsolete entry: "An obsolete term for mana value.", "An older name for the
# Commander casual variant", "「X」の古い言い方", "マナ総量の古い呼び名", "See rule 702.89", "rule 308〔同族〕参照".
_TODAY_EN = re.compile(
    r"(?:obsolete term|older name|old term) for (?:the |an? )?[“\"]?([^.,;“”\"()]+?)[”\"]?[.,;]", re.I
)
_TODAY_JA = re.compile(
    r"(?:「([^「」]+)」|([^\s、。()（）「」]+?))の(?:ことを言う)?(?:古い|以前の)(?:言い方|呼び名|表現|呼称|名前)"
)
_SEE_RULE = re.compile(r"(?:see rule|rule)\s+(\d{3}(?:\.\d+[a-z]?)?)", re.I)


# An entry that points to another: "メイン・フェイズ 参照。", "ダメージ参照。", "See Main Phase."
_SEE_ENTRY = re.compile(r"(?:^|[。\s])([^\s。、]+?)\s*参照。?\s*$|\bSee ([A-Z][^.]*?)\.\s*$")


def see_entry(definition: str) -> str | None:
    """The name of the glossary entry a definition sends its reader to, when it ends so and cites no rule."""
    text = (definition or "").strip()
    if _SEE_RULE.search(text) or re.search(r"\d{3}(?:\.\d+[a-z]?)?\s*〔", text):
        return None
    m = _SEE_ENTRY.search(text)
    name = next((g for g in m.groups() if g), None) if m else None
    return None if name is None or name[0].isdigit() else name  # "700.13. 参照": a rule, not an entry


def obsolete(definition: str) -> bool:
    """True for a glossary entry marked "(Obsolete)" / "(廃語)"."""
    return bool(_OBSOLETE.match(definition or ""))


def today_of(definition: str) -> tuple[str | None, str | None]:
    """(rule it cites, today's name) of an obsolete glossary entry: where its reader should go instead."""
    text = _OBSOLETE.sub("", definition or "")
    rule = _SEE_RULE.search(text)
    found = _TODAY_EN.search(text) or _TODAY_JA.search(text)
    name = next(g for g in found.groups() if g) if found else None
    if name:
        # "exile [something]", "「[何か]を追放する」": the verb alone
        name = re.sub(r"^[をにがの]|する$", "", re.sub(r"\s*\[[^\]]*\]\s*", "", name)).strip() or None
    return (rule.group(1) if rule else None), name


# After a quoted name, words that speak of the name as a word, not of the thing: 「インスタント／Instant」という語の
# あとに (where a subtype is printed), 「トークン」という単語を足した. 「X」という語は、… still defines X.
_WORD_ITSELF = re.compile(r"という単?語(?!は|とは)")


def coins(text: str, name: str) -> bool:
    """True when a clause coins ``name``: quotes it (「ブロックされているクリーチャー／blocked creature」,
    “blocked creature”) or names something by it ("becomes a blocked creature", "これをマナ・バーンという").

    Not when it quotes the name as a word (「アーティファクト」という語のあとに…: where a subtype is printed), or
    when the name is the tail of a longer one (…効果のことを自己置換効果と呼ぶ does not coin 置換効果), or in a
    plain "XというY" (土地というカード・タイプ)."""
    t, n = _joined(text), re.escape(_joined(name))
    for m in re.finditer(rf"「{n}(?:する)?(?:[／/][^」]*)?」|「{n}[／/]", t):
        if not _WORD_ITSELF.match(t, m.end()):
            return True
    return bool(
        re.search(
            rf"[“\"]{n}[”\"]|\b(?:becomes?|called|is) an? {n}\b|(?<![{_WORD_CHAR}]){n}」?(?:という(?:[。、]|$)|と呼ぶ|と呼ばれる)",
            t,
        )
    )


def arrange(order: list[int], fields, defining, pair, *, window: int) -> list[int]:
    """Reorder the head of a ranked list the way readers expect it (only its first ``window`` hits move):

    - the clause that defines a term ("X is …") comes right above the heading or glossary entry
      named by the query, which point to it (``defining(doc) -> doc | None``);
    - a glossary entry below the clause it points to (in either language) adds nothing: it is dropped;
    - the first hit's English text from the edition it translates comes second (``pair(doc) -> doc | None``).
    """
    head, tail = order[:window], order[window:]
    out: list[int] = []
    seen: set[int] = set()
    for d in head:
        if d in seen:
            continue
        f = fields(d)
        definer = defining(d) if f.get("kind") in ("rule", "term") else None
        if definer is not None and definer not in seen:
            out.append(definer)
            seen.add(definer)
        out.append(d)
        seen.add(d)
    shown_rules = set()
    kept = []
    for d in out:
        f = fields(d)
        where = (f.get("game"), f.get("rule"))  # either language: a clause's row holds both (one row per clause)
        if f.get("kind") == "term" and where in shown_rules:
            continue
        if f.get("kind") == "rule":
            shown_rules.add(where)
        kept.append(d)
    if kept:
        p = pair(kept[0])
        if p is not None and p != kept[0]:
            kept = [kept[0], p] + [d for d in kept[1:] if d != p]
    taken = set(kept)
    return kept + [d for d in tail if d not in taken]


def nearest_rules(rule: str, ids: list[str], n: int = 3) -> list[str]:
    """Ids near one that does not exist: its nearest existing ancestor, then the closest siblings
    before and after it (509.99 -> 509, 509.7, 510)."""
    import bisect

    ordered = sorted(set(ids), key=ruleid.sort_key)
    keys = [ruleid.sort_key(r) for r in ordered]
    have = set(ordered)
    out = [a for a in reversed(ruleid.ancestors(rule)) if a in have][:1]
    i = bisect.bisect_left(keys, ruleid.sort_key(rule))
    level = ruleid.level(rule)
    before = next((r for r in reversed(ordered[:i]) if ruleid.level(r) == level), None)
    after = next((r for r in ordered[i:] if ruleid.level(r) == level), None)
    out += [r for r in (before, after) if r is not None and r not in out]
    return out[:n]
