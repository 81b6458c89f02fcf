"""The matcher: pair each clause of an old version with the same clause in a new one.

Rounds, each only over what is still unpaired:
1. forced matches (a person decided);
2. identity: same id, same text;
3. unique equal text (references masked) in the same section, or with context;
4. local: same id, or the same parent (after mapping parents through pairs made so far), by text
   similarity with small bonuses for the same id and for paired neighbours;
5. headings by their children's votes (rule 422 whose clauses went to 714 is 714);
6. global: any id, high similarity; across sections only with context (parent or neighbour paired
   alike) or for a long text no other candidate comes close to — never on equal boilerplate alone
   (recurring sentences such as "the active player gets priority" have close runners-up).
Rounds 4–6 repeat while they pair something new (pairs give parents, parents allow new pairs).
7. leftovers: an id unpaired on both sides whose texts still share a good part is one clause rewritten.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from kb.versions.diffparts import Item, similarity

LOCAL_MIN = 0.5  # least similarity for a pair inside the same rule / parent
SAME_ID_MIN = 0.3  # at the end, an id left on both sides is one clause rewritten if this similar
GLOBAL_MIN = 0.8  # least similarity for a pair found anywhere
SAME_ID_BONUS = 0.1
CONTEXT_BONUS = 0.05
LONG_TOKENS = 16  # features of a text long enough to pair on its own (about 8 words)
LONE_MIN, LONE_MARGIN = 0.6, 0.25  # a long text may pair alone when no other text comes this close


class Matching:
    """Pairs found so far between two item lists, with the neighbour/parent context they give."""

    def __init__(self, old: list[Item], new: list[Item]):
        self.old, self.new = old, new
        self.old_by_rule = {i.rule: i for i in old}
        self.new_by_rule = {i.rule: i for i in new}
        self.o2n: dict[str, str] = {}
        self.n2o: dict[str, str] = {}
        self.forced_removed: set[str] = set()
        self.forced_added: set[str] = set()
        self._prev_old = {b.rule: a.rule for a, b in zip(old, old[1:], strict=False)}
        self._next_old = {a.rule: b.rule for a, b in zip(old, old[1:], strict=False)}
        self._prev_new = {b.rule: a.rule for a, b in zip(new, new[1:], strict=False)}
        self._next_new = {a.rule: b.rule for a, b in zip(new, new[1:], strict=False)}

    def pair(self, o: str, n: str) -> None:
        self.o2n[o] = n
        self.n2o[n] = o

    def free_old(self) -> list[Item]:
        return [i for i in self.old if i.rule not in self.o2n and i.rule not in self.forced_removed]

    def free_new(self) -> list[Item]:
        return [i for i in self.new if i.rule not in self.n2o and i.rule not in self.forced_added]

    def mapped_parent(self, o: Item) -> str | None:
        """Where the old item's parent went, if known (else the same id, if it still exists)."""
        if o.parent is None:
            return None
        if o.parent in self.o2n:
            return self.o2n[o.parent]
        return o.parent if o.parent in self.new_by_rule and o.parent not in self.n2o else None

    def context(self, o: Item, n: Item) -> bool:
        """True when the pair is supported by its surroundings: parent or a neighbour paired alike."""
        if o.parent is not None and self.o2n.get(o.parent) == n.parent and n.parent is not None:
            return True
        p = self._prev_old.get(o.rule)
        if p is not None and p in self.o2n and self.o2n[p] == self._prev_new.get(n.rule):
            return True
        q = self._next_old.get(o.rule)
        return q is not None and q in self.o2n and self.o2n[q] == self._next_new.get(n.rule)


def _greedy(m: Matching, scored: list[tuple[float, int, str, str]]) -> int:
    """Take candidate pairs best first while both sides are free; returns how many were taken."""
    taken = 0
    for _, _, o, n in sorted(scored, reverse=True):
        if o in m.o2n or n in m.n2o:
            continue
        m.pair(o, n)
        taken += 1
    return taken


def _identity(m: Matching) -> None:
    for o in m.free_old():
        n = m.new_by_rule.get(o.rule)
        if n is not None and n.hash == o.hash and n.rule not in m.n2o:
            m.pair(o.rule, n.rule)


def _unique_equal(m: Matching) -> int:
    """Pair texts that occur once on each side, in the same section or with context; a heading title
    found once in each whole version may pair anywhere (titles name things, they are no boilerplate)."""
    olds = m.free_old()
    news = m.free_new()
    oc = Counter(i.masked for i in olds)
    nc = Counter(i.masked for i in news)
    all_o = Counter(i.masked for i in m.old if i.heading)
    all_n = Counter(i.masked for i in m.new if i.heading)
    by_text = {i.masked: i for i in news if nc[i.masked] == 1}
    scored = []
    for o in olds:
        n = by_text.get(o.masked)
        if n is None or oc[o.masked] != 1 or n.heading != o.heading:
            continue
        unique_title = o.heading and all_o[o.masked] == 1 and all_n[o.masked] == 1
        # across sections equal text alone is not enough (boilerplate): the global round decides
        if o.section == n.section or m.context(o, n) or unique_title:
            scored.append((1.0 + (SAME_ID_BONUS if o.rule == n.rule else 0), -o.position, o.rule, n.rule))
    return _greedy(m, scored)


def _local(m: Matching) -> int:
    """Same id or same (mapped) parent, by similarity with bonuses for same id and context."""
    news = m.free_new()
    by_parent: dict[str | None, list[Item]] = defaultdict(list)
    for n in news:
        by_parent[n.parent].append(n)
    free_new = {n.rule: n for n in news}
    scored = []
    for o in m.free_old():
        mp = m.mapped_parent(o)
        cands = list(by_parent.get(mp, [])) if mp is not None else []
        same = free_new.get(o.rule)
        if same is not None and same not in cands:
            cands.append(same)
        for n in cands:
            if n.heading != o.heading:
                continue
            s = similarity(o, n)
            if s < LOCAL_MIN:
                continue
            score = s + (SAME_ID_BONUS if n.rule == o.rule else 0) + (CONTEXT_BONUS if m.context(o, n) else 0)
            scored.append((score, -o.position, o.rule, n.rule))
    return _greedy(m, scored)


def _headings_by_votes(m: Matching) -> int:
    """A heading goes where most of its paired children went (with some agreement in the title)."""
    votes: dict[str, Counter] = defaultdict(Counter)
    for o_rule, n_rule in m.o2n.items():
        o, n = m.old_by_rule[o_rule], m.new_by_rule[n_rule]
        if o.parent and n.parent:
            votes[o.parent][n.parent] += 1
    free_new = {n.rule for n in m.free_new()}
    scored = []
    for o in m.free_old():
        if not o.heading or o.rule not in votes:
            continue
        (target, count), *_ = votes[o.rule].most_common(1)
        if target not in free_new or count * 2 < sum(votes[o.rule].values()):
            continue
        n = m.new_by_rule[target]
        s = similarity(o, n)
        if count >= 2 or s >= LOCAL_MIN:
            scored.append((count + s, -o.position, o.rule, target))
    return _greedy(m, scored)


class _FreeIndex:
    """Feature counts and an inverted index over the new items still free, kept up to date between
    global rounds (rebuilding them each round cost most of a diff across the 2009 renumbering).

    Only features some free old item has are counted and indexed: rarity is asked of those alone."""

    def __init__(self, m: Matching):
        self.free = {n.rule: n for n in m.free_new()}
        self.wanted = frozenset().union(*(o.tokens for o in m.free_old()))
        self.df: Counter = Counter()
        # one inverted index per kind: a heading only ever pairs with a heading
        self.index: dict[bool, dict[str, list[Item]]] = {True: defaultdict(list), False: defaultdict(list)}
        for n in self.free.values():
            shared = n.tokens & self.wanted
            self.df.update(shared)
            by_token = self.index[n.heading]
            for t in shared:
                by_token[t].append(n)
        self.sims: dict[tuple[str, str], float] = {}  # later rounds look at most of the same pairs again

    def sync(self, m: Matching) -> None:
        """Forget the items paired since the last round."""
        df = self.df
        for rule in [r for r in self.free if r in m.n2o]:
            for t in self.free.pop(rule).tokens & self.wanted:
                df[t] -= 1
                if not df[t]:
                    del df[t]  # a feature no free item has is no candidate

    def candidates(self, o: Item, k: int = 8) -> dict[str, Item]:
        """Free items sharing one of the ``k`` rarest features of ``o`` (and its kind)."""
        get, by_token, free = self.df.get, self.index[o.heading], self.free
        # rarest features first; ties by the feature itself (set order varies with the hash seed)
        counted = [(c, t) for t in o.tokens if (c := get(t))]
        counted.sort()
        return {n.rule: n for _, t in counted[:k] for n in by_token.get(t, ()) if n.rule in free}


def _best_two(o: Item, cands: dict[str, Item], sims: dict[tuple[str, str], float]) -> tuple[float, Item | None, float]:
    """The most similar candidate (ties to the earlier clause) and the runner-up's similarity."""
    best_s, best, runner = -1.0, None, 0.0
    for n in cands.values():
        key = (o.rule, n.rule)
        s = sims.get(key)
        if s is None:
            s = sims[key] = similarity(o, n)
        if best is None or s > best_s or (s == best_s and n.position < best.position):
            if best is not None:
                runner = best_s
            best_s, best = s, n
        elif s > runner:
            runner = s
    return best_s, best, runner


def _global(m: Matching, idx: _FreeIndex) -> int:
    """High similarity anywhere; across sections only with context or a clear, long, unique match."""
    idx.sync(m)
    if not idx.free:
        return 0
    scored = []
    for o in m.free_old():
        best_s, best, runner = _best_two(o, idx.candidates(o), idx.sims)
        if best is None or best_s < LONE_MIN:
            continue
        lone = len(o.tokens) >= LONG_TOKENS and best_s - runner >= LONE_MARGIN
        if best_s < GLOBAL_MIN and not lone:
            continue
        if (o.section != best.section or o.parent != best.parent) and not (m.context(o, best) or lone):
            continue
        scored.append((best_s, -o.position, o.rule, best.rule))
    return _greedy(m, scored)


def _same_id_leftovers(m: Matching) -> int:
    """Last round: an id still unpaired on both sides whose texts share enough is a rewritten clause."""
    free_new = {n.rule: n for n in m.free_new()}
    scored = []
    for o in m.free_old():
        n = free_new.get(o.rule)
        if n is not None and n.heading == o.heading and similarity(o, n) >= SAME_ID_MIN:
            scored.append((similarity(o, n), -o.position, o.rule, n.rule))
    return _greedy(m, scored)


def match(old: list[Item], new: list[Item], forced: list[tuple[str, str]] | None = None) -> Matching:
    """Pair old items with new ones; ``forced`` holds (old_rule, new_rule) with "" for 'no partner'."""
    m = Matching(old, new)
    for o, n in forced or []:
        if o and n and o in m.old_by_rule and n in m.new_by_rule:
            m.pair(o, n)
        elif o and not n:
            m.forced_removed.add(o)
        elif n and not o:
            m.forced_added.add(n)
    _identity(m)
    _unique_equal(m)
    idx: _FreeIndex | None = None
    for _ in range(4):
        found = _local(m) + _headings_by_votes(m)
        if idx is None:
            idx = _FreeIndex(m)
        found += _global(m, idx)
        if not found:
            break
    _same_id_leftovers(m)
    return m
