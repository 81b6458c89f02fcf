"""Align two versions clause by clause, typically a Japanese translation against an English edition.

Texts in two languages cannot be compared directly, so pairs come from ids and structure, and each
pair gets evidence from what survives translation: numbers, card names and English terms quoted in
the Japanese text, example counts, and the length ratio. Statuses:
- ``paired``: the same id on both sides;
- ``missing_in_a`` / ``missing_in_b``: an id only one side has (within what a partial side covers);
- ``merged``: side b splits into sub-clauses what side a holds in one paragraph (the viewer's 509.7
  holding English 509.7 + 509.7a + 509.7b): a sub-clause missing in a whose parent clause a has
  with no sub-clause at all;
- ``split``: the reverse (a has a sub-clause whose parent b holds in one paragraph).
When the Japanese side matches a different English edition (5.5.0.0 ≈ 20081001, old numbering), it
is aligned with that edition by id and each English id is carried to side b along the English
lineage (309.2 → 509.1).
"""

from __future__ import annotations

import math
import re
import statistics
import unicodedata
from collections import Counter

from kb import ruleid
from kb.errors import NotFound
from kb.store import NodeRecord, Store, VersionInfo
from kb.versions import editions, history

_NUM = re.compile(r"\d+")
_LATIN = re.compile(r"[A-Za-z][A-Za-z'’ \-]{2,}[A-Za-z]")
_WORDS = {
    w: str(i)
    for i, w in enumerate(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"])
}
_NUM_WORD = re.compile(r"\b(" + "|".join(_WORDS) + r")\b", re.IGNORECASE)
SUSPECT = 0.3  # a pair whose evidence scores below this is flagged for a person to check


def _contents(v: VersionInfo) -> dict[str, str]:
    """Headings a version's table of contents lists (not its unnumbered introduction, "0. はじめに")."""
    return {str(e[0]): e[1] for e in v.meta.get("contents") or [] if ruleid.parse(str(e[0])) and str(e[0]) != "0"}


def _scope(v: VersionInfo, rules: list[str], other: list[str]) -> set[str]:
    """Ids of ``other`` that version ``v`` can be expected to hold: all of them, or for a partial
    version the clauses under the rules it covers (holds at least half of their clauses: a page of
    the viewer, not a two-clause quote), up to its last id in the last rule (where a cut piece stops),
    their headings, and every heading when it kept a table of contents."""
    if not v.partial:
        return set(other)
    own = set(rules)
    clauses = [r for r in rules if ruleid.is_clause(r)]
    held = Counter(ruleid.parse(r)[1] for r in clauses)
    wanted = Counter(ruleid.parse(r)[1] for r in other if ruleid.parse(r) and ruleid.is_clause(r))
    covered = {r for r, n in held.items() if n * 2 >= wanted[r]}
    last = max(clauses, key=ruleid.sort_key) if clauses else None
    last_rule = ruleid.parse(last)[1] if last else None
    heads = bool(_contents(v))
    out = set()
    for r in other:
        p = ruleid.parse(r)
        if p is None:
            continue
        heading = not ruleid.is_clause(r)
        in_piece = p[1] in covered and (p[1] != last_rule or ruleid.sort_key(r) <= ruleid.sort_key(last))
        if r in own or (heading and (heads or p[1] in covered)) or (not heading and in_piece):
            out.add(r)
    return out


def _plain(s: str) -> str:
    return unicodedata.normalize("NFKC", s)


def evidence(ja: NodeRecord, en: NodeRecord, ratio: float | None) -> dict:
    """How well a Japanese clause agrees with an English one, from what translation keeps."""
    jt, et = _plain(ja.title + ja.text), _plain(en.title + en.text)
    # Japanese writes counts in digits (1体) where English spells them (one creature)
    jn, digits = set(_NUM.findall(jt)), set(_NUM.findall(et))
    enn = digits | {_WORDS[w.lower()] for w in _NUM_WORD.findall(et)}
    latin = [w.strip().lower() for w in _LATIN.findall(jt)]
    scores = []
    out: dict = {}
    if jn or digits:
        out["numbers"] = round(len(jn & enn) / len(jn | enn), 3)
        scores.append(out["numbers"])
    if latin:
        out["english_terms"] = round(sum(1 for w in latin if w in et.lower()) / len(latin), 3)
        scores.append(out["english_terms"])
    if ja.examples or en.examples:
        out["examples"] = [len(ja.examples), len(en.examples)]
        scores.append(1.0 if len(ja.examples) == len(en.examples) else 0.0)
    if ratio and et and ja.text and en.text:  # headings are too short for a length ratio
        r = len(jt) / max(len(et), 1) / ratio
        out["length"] = round(r, 3)
        scores.append(max(0.0, 1 - abs(1 - r)))
    out["confidence"] = round(sum(scores) / len(scores), 3) if scores else None
    return out


def _subs(ids: set[str], parent: str | None) -> bool:
    """True when ``ids`` hold a sub-clause of ``parent`` (then a missing sibling was not merged into it)."""
    return any(ruleid.parent(r) == parent for r in ids)


def _folded(whole: dict, parts: dict, parts_ids: set[str], rule: str, ratio: float | None) -> dict | None:
    """Evidence that side ``whole`` holds the sub-clause ``rule`` of side ``parts`` inside its parent's
    paragraph (the viewer's 509.7 holding 509.7, 509.7a and 509.7b), or None.

    The parent's text must be as long as the parent and its missing sub-clauses together would be
    in translation (``ratio``: whole-side length per parts-side character), and fit that better than
    the parent alone; a parent merely missing its sub-clauses is not a merge."""
    parent = ruleid.parent(rule)
    if not (ruleid.is_clause(rule) and ruleid.is_clause(parent or "") and parent in whole and parent in parts):
        return None
    if not ratio or not whole[parent].text or not parts[parent].text:
        return None
    family = [parts[parent]] + [
        parts[r] for r in sorted(parts_ids) if ruleid.parent(r) == parent and r in parts and r not in whole
    ]
    held = len(whole[parent].text) + sum(len(e) for e in whole[parent].examples)
    alone = len(parts[parent].text) + sum(len(e) for e in parts[parent].examples)
    together = sum(len(n.text) + sum(len(e) for e in n.examples) for n in family)
    fit_alone, fit_together = held / (alone * ratio), held / (together * ratio)
    if abs(math.log(fit_together)) >= abs(math.log(fit_alone)) or not 0.6 <= fit_together <= 1.6:
        return None
    return {
        "length_alone": round(fit_alone, 3),
        "length_with_subclauses": round(fit_together, 3),
        "subclauses": [n.rule for n in family[1:]],
    }


def _direct(store: Store, a: VersionInfo, b: VersionInfo) -> tuple[list[dict], dict]:
    a_nodes = {n.rule: n for n in store.nodes(a)}
    b_nodes = {n.rule: n for n in store.nodes(b)}
    a_heads, b_heads = _contents(a), _contents(b)
    a_has = set(a_nodes) | set(a_heads)
    b_has = set(b_nodes) | set(b_heads)
    a_scope = _scope(a, list(a_nodes), list(b_has))
    b_scope = _scope(b, list(b_nodes), list(a_has))
    ids = sorted((a_has & b_scope) | (b_has & a_scope), key=ruleid.sort_key)
    both = [r for r in ids if r in a_nodes and r in b_nodes and a_nodes[r].text and b_nodes[r].text]
    ratios = [len(a_nodes[r].text) / len(b_nodes[r].text) for r in both]
    ratio = statistics.median(ratios) if ratios else None
    pairs = []
    for r in ids:
        parent = ruleid.parent(r)
        if r in a_has and r in b_has:
            pair = {"a_rule": r, "b_rule": r, "status": "paired"}
            if r in a_nodes and r in b_nodes and a.lang != b.lang:
                ja, en = (a_nodes[r], b_nodes[r]) if a.lang == "ja" else (b_nodes[r], a_nodes[r])
                pair["evidence"] = ev = evidence(ja, en, ratio if a.lang == "ja" else (1 / ratio if ratio else None))
                pair["suspect"] = ev["confidence"] is not None and ev["confidence"] < SUSPECT
            elif r not in a_nodes or r not in b_nodes:
                pair["source"] = "contents"
        elif r in b_has:
            ev = (
                _folded(a_nodes, b_nodes, b_has, r, ratio if a.lang != b.lang else 1.0)
                if not _subs(a_has, parent)
                else None
            )
            pair = {"a_rule": parent if ev else None, "b_rule": r, "status": "merged" if ev else "missing_in_a"}
            if ev:
                pair["evidence"] = ev
        else:
            back = 1 / ratio if ratio and a.lang != b.lang else 1.0
            ev = _folded(b_nodes, a_nodes, a_has, r, back) if not _subs(b_has, parent) else None
            pair = {"a_rule": r, "b_rule": parent if ev else None, "status": "split" if ev else "missing_in_b"}
            if ev:
                pair["evidence"] = ev
        pairs.append(pair)
    outside = {"a": len(a_has - b_scope - b_has), "b": len(b_has - a_scope - a_has)}
    return pairs, {"length_ratio": round(ratio, 3) if ratio else None, "outside_scope": outside}


def _bridge(store: Store, a: VersionInfo, b: VersionInfo) -> VersionInfo | None:
    """The English edition a translation should be read against (the one it renders), when not ``b``."""
    if a.lang == b.lang or b.lang != "en":
        return None
    edition = editions.rendered_edition(store, a)
    return edition if edition is not None and edition.id != b.id else None


def precompute(store: Store) -> int:
    """Align every translation with the edition it renders, once per build (the alignment page reads it)."""
    store.clear_alignments()
    done = 0
    for v in store.versions():
        edition = editions.rendered_edition(store, v)
        if edition is not None:
            store.add_alignment(v.id, edition.id, _align(store, v, edition))
            done += 1
    return done


def align(store: Store, a: VersionInfo, b: VersionInfo) -> dict:
    """DESIGN.md align JSON of version ``a`` against version ``b``, with a coverage summary."""
    if a.game != b.game:
        raise NotFound(f"{a.label} is {a.game} but {b.label} is {b.game}: align compares one game")
    stored = store.alignment(a.id, b.id)
    return stored if stored is not None else _align(store, a, b)


def _align(store: Store, a: VersionInfo, b: VersionInfo) -> dict:
    bridge = _bridge(store, a, b)
    pairs, info = _direct(store, a, bridge or b)
    if bridge is not None:
        ids = [p["b_rule"] for p in pairs if p["b_rule"]]
        carried = history.carry(store, b.game, b.lang, ids, bridge.label, b.label)
        for p in pairs:
            if p["b_rule"]:
                p["bridge_rule"] = p["b_rule"]
                p["b_rule"] = carried.get(p["b_rule"])
                if p["b_rule"] is None and p["status"] == "paired":
                    p["status"] = "missing_in_b"
    counts = {s: 0 for s in ("paired", "missing_in_a", "missing_in_b", "merged", "split")}
    for p in pairs:
        counts[p["status"]] += 1
    in_b = counts["paired"] + counts["missing_in_a"] + counts["merged"]
    summary = {
        **counts,
        **info,
        "coverage": round((counts["paired"] + counts["merged"]) / in_b, 4) if in_b else None,
        "suspect": sum(1 for p in pairs if p.get("suspect")),
        "bridge": bridge.label if bridge else None,
    }
    return {
        "a": a.label,
        "b": b.label,
        "a_lang": a.lang,
        "b_lang": b.lang,
        "game": a.game,
        "pairs": pairs,
        "summary": summary,
    }


def counterpart(store: Store, v: VersionInfo, rule: str) -> tuple[VersionInfo, NodeRecord, str] | None:
    """The same clause in the other language: ``(version, node, how)``.

    ``how`` is "pair" when it comes from the edition pairing itself (a translation's English edition,
    or a translation of this English edition), "lineage" when the pair lacks it and the clause's
    lineage finds it in another edition's translation (newest first; its id may differ there).
    None when neither has it."""
    candidates = [editions.rendered_edition(store, v)] if v.lang != "en" else editions.translations_of(store, v)
    for other in candidates:
        if other is not None and (node := store.node(other, rule)) is not None:
            return other, node, "pair"
    if v.lang != "en":
        return None
    try:
        steps, _ = history.thread(store, v.game, "en", rule, v.label)
    except NotFound:
        return None
    at = {s.version.label: s.rule for s in steps}
    for other in reversed(store.versions(v.game)):
        r = editions.rendering(other)
        if other.lang != "en" and r and r.label in at and (node := store.node(other, at[r.label])) is not None:
            return other, node, "lineage"
    return None
