"""Renumberings a tree's citations share: the numbering of an edition newer than the KB's newest.

An engine that follows a newer edition cites whole runs of ids one rule or one sub-rule off the KB's
numbering: a rule inserted before 722 moved 722-729 up by one (its 729.5 is the KB's 728.5), a battle
clause inserted before the protector rules moved 310.8 to 310.9 (its 310.9a-g are the KB's 310.8a-g).
One such citation alone could mean anything; several absent ids under one number that all land on live
clauses when shifted the same way are the engine's numbering. ``learn`` finds those shifts in the ids
a tree cites, and a citation's suggestions offer the shifted clause with the tree's evidence as the why.
"""

from __future__ import annotations

from collections.abc import Container, Iterable

from kb import ruleid

MIN_SUPPORT = 2  # distinct absent ids a shift must explain before the tree's numbering is taken for it
_KEYWORDS = ("701", "702")  # keyword rules move by the keyword's name, which kb.links.suggest reads


def neighbours(rule: str) -> list[tuple[str, str]]:
    """(prefix, shifted prefix) one step either way: the rule (729 -> 728, 730), and the sub-rule (310.12 ->
    310.11, 310.13) or the one a clause sits under (310.12a -> 310.11a)."""
    head, dot, rest = rule.partition(".")
    if not dot or not head.isdigit() or head in _KEYWORDS:
        return []
    out = [(head, str(n)) for n in (int(head) - 1, int(head) + 1)]
    number = rest.rstrip(ruleid.SUB_LETTERS)
    if number.isdigit():  # a clause, or the sub-rule itself (310.12 -> 310.11)
        out += [(f"{head}.{number}", f"{head}.{n}") for n in (int(number) - 1, int(number) + 1) if n > 0]
    return out


def learn(cited: Iterable[tuple[str, object]], live: Container[str]) -> dict[str, list[tuple[str, int]]]:
    """prefix -> [(shifted prefix, how many distinct absent ids it explains)] for the shifts that at least
    ``MIN_SUPPORT`` absent ids of ``cited`` ((id, place) pairs: a place is a file and line) support, cited in
    more than one place (a range's overreach, "602.2b-h", is one place). An absent id is not in ``live``; a
    shift explains it when the shifted id is live. Both directions are kept when both are supported: the
    line's words choose."""
    places: dict[str, set] = {}
    for rule, place in cited:
        if rule not in live and ruleid.parse(rule):
            places.setdefault(rule, set()).add(place)
    support: dict[tuple[str, str], set[str]] = {}
    for rule in places:
        for src, dst in neighbours(rule):
            if dst + rule[len(src) :] in live:
                support.setdefault((src, dst), set()).add(rule)
    out: dict[str, list[tuple[str, int]]] = {}
    for (src, dst), ids in sorted(support.items()):
        if len(ids) >= MIN_SUPPORT and len(set().union(*(places[r] for r in ids))) > 1:
            out.setdefault(src, []).append((dst, len(ids)))
    return _consistent(out)


def _step(src: str, dst: str) -> int:
    return int(dst.rsplit(".", 1)[-1]) - int(src.rsplit(".", 1)[-1])


def _consistent(learned: dict[str, list[tuple[str, int]]]) -> dict[str, list[tuple[str, int]]]:
    """One numbering, not a patchwork: a rule that fits both ways takes the way its section's other rules
    moved (722-729 all down by one: 727 is 726, though 728 holds clauses of the same numbers too), and
    the sub-rules of a rule that moved as a whole do not move again within it."""
    votes: dict[str, int] = {}
    for src, moves in learned.items():
        if "." not in src and len(moves) == 1:
            votes[src[0]] = votes.get(src[0], 0) + _step(src, moves[0][0]) * moves[0][1]
    out = {}
    for src, moves in learned.items():
        if "." in src and src.split(".")[0] in learned:
            continue
        if "." not in src and len(moves) > 1 and votes.get(src[0]):
            moves = [m for m in moves if _step(src, m[0]) * votes[src[0]] > 0]
        out[src] = moves
    return out


def shifted(rule: str, learned: dict[str, list[tuple[str, int]]]) -> list[tuple[str, str, int]]:
    """(shifted id, prefix it moved from, support) for each learned shift that applies to ``rule``."""
    prefixes = dict.fromkeys(src for src, _ in neighbours(rule))
    return [(dst + rule[len(src) :], src, n) for src in prefixes for dst, n in learned.get(src, ())]
