"""Where a clause went when the version asked for does not hold its id (the 404 of a moved rule)."""

from __future__ import annotations

from kb.errors import NotFound
from kb.store import Store, VersionInfo
from web import services
from web.pages import clause_url


def locate(s: Store, game: str, lang: str, v: VersionInfo, rule: str) -> dict:
    """What the KB knows of ``rule`` around version ``v``, for a page that says where to go instead."""
    held = s.rule_versions(game, lang, rule)
    order = {x.id: i for i, x in enumerate(s.versions(game, lang))}
    info: dict = {
        "rule": rule,
        "game": game,
        "lang": lang,
        "version": v.label,
        "partial": v.partial,
        "held": None,
        "now": None,
        "removed_in": None,
        "created_in": None,
        "was": None,
    }
    if not held:
        return info
    first, last = held[0][0], held[-1][0]
    info["held"] = {
        "count": len(held),
        "first": first.label,
        "last": last.label,
        "first_url": clause_url(game, lang, first.label, rule),
        "last_url": clause_url(game, lang, last.label, rule),
    }
    if not v.sort_date:  # an undated text stands outside the lineage
        return info
    here = order[v.id]
    before = [x for x, _ in held if order[x.id] < here and x.sort_date]
    after = [x for x, _ in held if order[x.id] > here and x.sort_date]
    try:
        if before:  # the id existed earlier: follow the clause forward to this version
            src = before[-1]
            steps = services.successor(s, game, lang, rule, src.label)
            gone = next((label for new, label in steps if new is None), None)
            target = services.carry(s, game, lang, [rule], src.label, v.label).get(rule)
            if target and s.holds(v, target):
                since = next((label for new, label in steps if new == target), None)
                info["now"] = {"rule": target, "since": since, "url": clause_url(game, lang, v.label, target)}
            elif gone:
                info["removed_in"] = gone
        if after and info["now"] is None and info["removed_in"] is None:  # created later, maybe under another id
            src = after[0]
            target = services.carry(s, game, lang, [rule], src.label, v.label).get(rule)
            info["created_in"] = src.label
            if target and s.holds(v, target):
                info["was"] = {"rule": target, "url": clause_url(game, lang, v.label, target)}
    except (services.Unavailable, NotFound):
        pass  # the lineage is not there: the page still lists the versions holding the id
    return info


def message(info: dict) -> str:
    """One Japanese sentence saying why the clause is missing and where it is."""
    rule, label = info["rule"], info["version"]
    head = f"{rule} は {info['game']}/{info['lang']} {label} にありません。"
    if info["now"]:
        since = f"{info['now']['since']} から " if info["now"]["since"] else ""
        return head + f"{since}{info['now']['rule']} に番号が変わっています。"
    if info["removed_in"]:
        return head + f"{info['removed_in']} で削除されました。"
    if info["was"]:
        return head + f"{info['created_in']} で今の番号になりました（この版では {info['was']['rule']}）。"
    if info["created_in"]:
        return head + f"{info['created_in']} で新設された条文です。"
    if info["held"] is None:
        return head + "この番号の条文はどの版にもありません。"
    if info["partial"]:
        return head + "この版は一部の条文しか収録していません。"
    return head
