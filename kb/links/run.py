"""The ``link`` pipeline: scan, date by git, resolve, add JUnit results, measure coverage, save."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

from kb import ruleid
from kb.errors import NotFound
from kb.links import copies, era, gitdates, shifts
from kb.links import junit as junitxml
from kb.links.coverage import coverage
from kb.links.extract import Cite, scan_tree, spanned
from kb.links.ranges import Ids, expand
from kb.links.resolve import Resolver
from kb.store import Store

MANY_IDS = 64  # a line citing more ids than this is a list: each citation is judged among its neighbours
_ID = re.compile(rf"(?<![\d.])({ruleid.ID_IN_TEXT})(?![\d])")


def with_copies(resolver, citations: list[Cite], texts: list[Cite]) -> list[Cite]:
    """``citations`` with the literals that are whole sentences of a clause added in file order: each cites that
    clause as the newest edition holding the sentences (up to the one cited against) numbered it; the other
    literals are the engine's own words."""
    if not texts:
        return citations
    chain = resolver.chain
    upto = next((i for i, v in enumerate(chain) if v.id == resolver.against.id), len(chain) - 1)
    index = copies.Sentences(resolver.store, chain)
    found = []
    for t in texts:
        place = index.holder(copies.sentences(t.context), upto)
        if place is not None:
            label = chain[place[0]].label
            t.rule, t.written, t.written_from = place[1], f"{label[:4]}-{label[4:6]}-{label[6:8]}", "copy"
            found.append(t)
    if not found:
        return citations
    files = {c.file: i for i, c in reversed(list(enumerate(citations)))}
    return sorted(citations + found, key=lambda c: (files.get(c.file, len(citations)), c.file, c.line))


def _siblings(cite: Cite, on_line: list[str], held: set[str]) -> list[str]:
    """The other ids a citation is read with: those of its line, or, on a line that lists very many, those
    of the line within its own (bounded) context — a line of 10,000 ids is not reread 10,000 times."""
    if len(on_line) <= MANY_IDS:
        return on_line
    near = [r for r in _ID.findall(cite.context) if r in held]
    return list(dict.fromkeys([*near, cite.rule]))


def _date_by_git(cites: list[Cite]) -> None:
    """Undated citations take the commit date of their line (one ``git blame`` per file, a few at a time)."""
    paths = sorted({c.path for c in cites if not c.written and c.path})
    with ThreadPoolExecutor(max_workers=4) as pool:
        dates = dict(zip(paths, pool.map(gitdates.line_dates, paths), strict=True))
    for c in cites:
        when = dates.get(c.path, {}).get(c.line) if not c.written else None
        if when:
            c.written, c.written_from = when.isoformat(), "git"


def _row(c: Cite) -> dict:
    row = {
        "file": c.file,
        "line": c.line,
        "test": c.test,
        "rule": c.rule,
        "raw": c.raw,
        "kind": c.kind,
        "scope": c.scope,
        "language": c.language,
        "game": c.game,
        "written": c.written or None,
        "written_from": c.written_from or None,
    }
    if c.in_range:
        row["range"] = c.in_range
    if c.kind == "label":
        row["span"] = c.span
    return row


def _expand_ranges(store: Store, cites: list[Cite], resolver_for) -> list[Cite]:
    """Ranges become the ids they span in the version each is resolved against (one ``Ids`` per game)."""
    if not any(c.range_to for c in cites):
        return cites
    memo: dict[str, Ids | None] = {}

    def ids_of(g: str) -> Ids | None:
        if g not in memo:
            r = resolver_for(g)
            memo[g] = Ids(n.rule for n in store.nodes(r.against)) if r is not None else None
        return memo[g]

    return expand(cites, ids_of)


def run(
    store: Store,
    paths: list[str],
    *,
    game: str = "mtg",
    against: str | None = None,
    junit: list[str] = (),
    save: bool = False,
    git: bool = True,
) -> dict:
    """Scan ``paths`` and resolve every citation; see ``kb.links.link``."""
    cases = [case for path in junit for case in junitxml.read(path)]
    found = scan_tree(paths, game)
    if git:
        _date_by_git(found.citations)
    main = Resolver(store, game, against)
    found.citations = with_copies(main, found.citations, found.texts)  # literals that are rules text, no id
    resolvers: dict[str, Resolver | None] = {game: main}

    def resolver_for(g: str) -> Resolver | None:
        if g not in resolvers:
            try:
                resolvers[g] = Resolver(store, g, None)
            except NotFound:
                resolvers[g] = None
        return resolvers[g]

    found.citations = _expand_ranges(store, found.citations, resolver_for)
    # the numbering the tree follows, where it is a newer edition's (kb.links.shifts)
    cited = [(c.rule, (c.file, c.line)) for c in found.citations if c.game == game and not spanned(c)]
    main.shifts = shifts.learn(cited, main.view(main.against).nodes)
    main.era = era.learn(main, found.citations)  # the edition an undated tree follows (kb.links.era)
    line_ids: dict[tuple[str, int], list[str]] = {}
    for c in found.citations:
        line_ids.setdefault((c.file, c.line), []).append(c.rule)
    line_sets = {k: set(v) for k, v in line_ids.items() if len(v) > MANY_IDS}
    results = junitxml.results(cases, found.tests) if cases else {}
    rows = []
    memo: dict[tuple, dict] = {}
    for c in found.citations:
        row = _row(c)
        resolver = resolver_for(c.game)
        if resolver is None:
            row.update(
                status="orphan",
                valid_from=None,
                valid_to=None,
                suggest=[],
                note=f"no versions of {c.game} in the knowledge base",
                written_version=None,
            )
        else:
            siblings = _siblings(c, line_ids[(c.file, c.line)], line_sets.get((c.file, c.line), set()))
            key = (c.game, c.rule, c.written, c.context, tuple(siblings), c.file, c.line)  # names around it count
            if key not in memo:
                memo[key] = resolver.resolve(c, siblings)
            row.update(memo[key])
            if resolver is not main:
                row["against"] = resolver.against.label
        if c.test in results:
            row["result"] = results[c.test]
        rows.append(row)
    data = {
        "game": game,
        "against": main.against.label,
        "lang": main.lang,
        "files": found.files,
        "citations": rows,
        "coverage": coverage(rows, found.tests, store, main.against),
    }
    if main.note:
        data["note"] = main.note
    if found.embedded:
        data["embedded"] = found.embedded
    if found.skipped:
        data["skipped"] = found.skipped  # the CLI warns of each on stderr
    if cases:
        data["junit"] = {"cases": len(cases), "matched_tests": len(results), "results": dict(sorted(results.items()))}
    if save:
        from kb.links.persist import save as keep

        keep(store, data)
    return data
