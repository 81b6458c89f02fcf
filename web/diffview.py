"""The diff page's data: a summary computed once per pair of versions, and parts rendered on demand.

The summary runs the diff without inline text (the matcher is most of the cost of a diff across
years; word-level diffs of thousands of clauses would double it and weigh megabytes). A diff of up to
``LARGE`` changes is shown whole; a larger one shows its counts by section, and each section (or the
folded changes) is a part computed, cached and sent when asked for.
"""

from __future__ import annotations

from flask import abort

from kb.errors import InputError, NotFound
from kb.store import NodeRecord, Store, VersionInfo
from kb.versions import releases
from web import fold, paging, services
from web.pages import Lazy, bad, clause_url, version_json
from web.text import excerpt

LARGE = 150  # changes
PART_MAX = 300  # changes of one part at most (~130 KB); a rule of more comes in runs of whole clauses


def _base(vo: VersionInfo, vn: VersionInfo) -> dict:
    return {
        "game": vo.game,
        "lang": vo.lang,
        "old": version_json(vo),
        "new": version_json(vn),
        "unavailable": None,
        "same_version": vo.id == vn.id,
        "reversed": False,
        "swap_url": None,
        "identical": vo.id == vn.id,
        "wording_only": False,
        "large": False,
        "part": None,
        "summary": {},
        "prev_update": None,
        "next_update": None,
        "parts": [],
        "changes": [],
        "_groups": {},
        "_folded": [],
        "canonical": f"/diff/{vo.game}/{vo.lang}/{vo.label}/{vn.label}",
    }


def summary(s: Store, vo: VersionInfo, vn: VersionInfo) -> dict:
    """Counts by kind and by section, flags (same version, reversed, identical), and the changes without inline text."""
    ctx = _base(vo, vn)
    if ctx["same_version"]:
        return ctx
    order = [v.id for v in s.versions(vo.game, vo.lang)]
    if order.index(vo.id) > order.index(vn.id):
        ctx["reversed"] = True
        ctx["swap_url"] = f"/diff/{vo.game}/{vo.lang}/{vn.label}/{vo.label}"
    try:
        result = services.diff(s, vo.game, vo.lang, vo.label, vn.label, inline=False)
    except services.Unavailable as exc:
        return {**ctx, "unavailable": str(exc)}
    except NotFound as exc:
        abort(404, description=str(exc))
    except InputError as exc:
        raise bad(str(exc)) from None
    changes = [_change(vo, vn, c) for c in result.get("changes", [])]
    groups, folded = fold.split_changes(changes)
    counts = fold.summary(groups, folded)
    return {
        **ctx,
        **neighbours(s, vo, vn),
        "summary": counts,
        "changes": changes,
        "parts": _parts(s, vo, vn, changes),
        "identical": counts["total"] == 0,
        "wording_only": counts["total"] > 0 and counts["total"] == counts["folded"],
        "large": counts["total"] > LARGE,
    }


def _change(vo: VersionInfo, vn: VersionInfo, ch: dict) -> dict:
    out = {k: v for k, v in ch.items() if k != "inline"}
    out["old_url"] = clause_url(vo.game, vo.lang, vo.label, ch["old_rule"]) if ch.get("old_rule") else None
    out["new_url"] = clause_url(vn.game, vn.lang, vn.label, ch["new_rule"]) if ch.get("new_rule") else None
    rule, at = (ch["new_rule"], vn.label) if ch.get("new_rule") else (ch["old_rule"], vo.label)
    out["history_url"] = f"/history/{vo.game}/{vo.lang}/{rule}?version={at}"
    out["reference_only"] = bool(ch.get("reference_only"))
    out["editorial"] = bool(ch.get("editorial"))
    out["section"] = (ch.get("new_rule") or ch.get("old_rule") or "?")[:1]
    out["part"] = out["section"]  # a rule's id ("702") when its section is split
    return out


def neighbours(s: Store, vo: VersionInfo, vn: VersionInfo) -> dict:
    """The updates before and after this diff among whole versions of its game and language: the
    previous one ends at ``old``, the next starts at ``new`` (``prev_update``/``next_update``, or None)."""
    chain = [v for v in s.versions(vo.game, vo.lang) if not v.partial and v.sort_date]
    ids = [v.id for v in chain]

    def link(a: VersionInfo, b: VersionInfo) -> dict:
        return {
            "old": a.label,
            "new": b.label,
            "url": f"/diff/{a.game}/{a.lang}/{a.label}/{b.label}",
            "old_set": releases.name(a),
            "new_set": releases.name(b),
        }

    out: dict = {"prev_update": None, "next_update": None}
    if vo.id in ids and ids.index(vo.id) > 0:
        out["prev_update"] = link(chain[ids.index(vo.id) - 1], vo)
    if vn.id in ids and ids.index(vn.id) + 1 < len(ids):
        out["next_update"] = link(vn, chain[ids.index(vn.id) + 1])
    return out


def _parts(s: Store, vo: VersionInfo, vn: VersionInfo, changes: list[dict]) -> list[dict]:
    """One part per section with changes to show (a section with more than ``LARGE``, one per rule), titled
    from the new version, then the folded changes."""
    url = f"/diff/{vo.game}/{vo.lang}/{vo.label}/{vn.label}?part="
    by_section: dict[str, list[dict]] = {}
    for c in changes:
        if not c["folded"]:
            by_section.setdefault(c["section"], []).append(c)
    groups: dict[str, list[dict]] = {}
    for key, members in by_section.items():
        if len(members) <= LARGE:
            groups[key] = members
            continue
        for c in members:  # section 7 across the 2009 renumbering: hundreds of changes, one part per rule
            c["part"] = (c.get("new_rule") or c.get("old_rule") or "?")[:3]
            groups.setdefault(c["part"], []).append(c)
    for key in [k for k, members in groups.items() if len(members) > PART_MAX]:
        # a rule of more changes still (702, 1999 -> 2026: 750, 320 KB): in runs of whole clauses
        members = groups.pop(key)
        for n, (a, b) in enumerate(paging.cut(members, _rule_of, PART_MAX), 1):
            for c in members[a:b]:
                c["part"] = f"{key}-{n}"
            groups[f"{key}-{n}"] = members[a:b]
    parts = []
    for key in sorted(groups, key=lambda k: (k[:1], len(k.split("-")[0]), k.split("-")[0], len(k), k)):
        rule = key.split("-")[0]
        node = s.node(vn, rule) or s.node(vo, rule)
        counts = {k: sum(1 for c in groups[key] if c["kind"] == k) for k in fold.KINDS}
        first, last = _rule_of(groups[key][0]), _rule_of(groups[key][-1])
        parts.append(
            {
                "key": key,
                "title": (node.title if node else "") + (f" ({first} – {last})" if "-" in key else ""),
                "counts": counts,
                "total": len(groups[key]),
                "url": url + key,
            }
        )
    n_folded = sum(1 for c in changes if c["folded"])
    if n_folded:
        parts.append(
            {
                "key": "folded",
                "title": "表記・参照番号だけの変更",
                "counts": {},
                "total": n_folded,
                "url": url + "folded",
            }
        )
    return parts


def _rule_of(c: dict) -> str:
    return c.get("new_rule") or c.get("old_rule") or "?"


def part(s: Store, base: dict, vo: VersionInfo, vn: VersionInfo, key: str) -> dict:
    """The changes of one part (``all``, a section, or ``folded``), each with its word-level diff."""
    if key == "all":
        chosen = base["changes"]
    elif key == "folded":
        chosen = [c for c in base["changes"] if c["folded"]]
    else:
        chosen = [c for c in base["changes"] if c["part"] == key and not c["folded"]]
    texts = _Texts(s, vo, vn)
    ctx = {**base, "part": key, "canonical": base["canonical"] + ("" if key == "all" else f"?part={key}")}
    if key == "all" and base["large"]:
        # The whole of a large diff (2008 -> 2026: thousands of word-level diffs, seconds of work): sent as
        # it is computed, each change's word-level diff when the page reaches it.
        copies = [dict(c) for c in chosen]
        groups, folded = fold.split_changes(copies)
        return {
            **ctx,
            "changes": Lazy(copies, texts.annotate),
            "_groups": {k: Lazy(g, texts.annotate) for k, g in groups.items()},
            "_folded": Lazy(folded, texts.annotate),
            "_stream": True,
        }
    changes = [texts.annotate(dict(c)) for c in chosen]
    groups, folded = fold.split_changes(changes)
    return {**ctx, "changes": changes, "_groups": groups, "_folded": folded}


class _Texts:
    """Node texts of the two versions, for the word-level diff of each change."""

    def __init__(self, s: Store, vo: VersionInfo, vn: VersionInfo):
        self.s, self.vo, self.vn = s, vo, vn

    def annotate(self, c: dict) -> dict:
        if "inline" in c:
            return c  # read twice: by the page and by its JSON twin
        old = self.s.node(self.vo, c["old_rule"]) if c.get("old_rule") else None
        new = self.s.node(self.vn, c["new_rule"]) if c.get("new_rule") else None
        if old is not None and new is not None:
            if old.hash == new.hash:  # renumbered without edits: show what the clause says
                c["inline"] = []
                c["excerpt"] = excerpt(new.title or new.text, 100)
            else:
                c["inline"] = _inline(_display(old), _display(new))
        elif new is not None:
            c["inline"] = [["+", _display(new)]]
        elif old is not None:
            c["inline"] = [["-", _display(old)]]
        return c


def _display(n: NodeRecord) -> str:
    return "\n".join(p for p in [n.title, n.text, *n.examples] if p)


def _inline(old: str, new: str) -> list[list[str]]:
    try:
        return services.inline_diff(old, new)
    except services.Unavailable:
        return [["-", old], ["+", new]]
