"""The ``rulekb`` command line: thin commands over the library; errors become one-line messages."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from kb import ruleid
from kb.clierrors import existing_paths, handles_errors
from kb.errors import RulekbError
from kb.home import Home

GAME = click.Choice(["mtg", "dm"])
LANG = click.Choice(["ja", "en"])


def emit_json(data) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--home",
    type=click.Path(readable=False),
    envvar="RULEKB_HOME",
    help="Data home (default: $RULEKB_HOME or the per-user data dir).",
)
@click.version_option(package_name="rulekb")
@click.pass_context
def cli(ctx: click.Context, home: str | None) -> None:
    """Search, compare and cite card-game comprehensive rules, in Japanese and English."""
    ctx.obj = Home(home)


def _store(ctx: click.Context):
    return ctx.obj.open_store()


@cli.command()
@click.option(
    "--corpus",
    type=click.Path(readable=False),
    help="Corpus directory with manifest.toml (default: the bundled corpus).",
)
@click.option("--force", is_flag=True, help="Rebuild even when the live KB was built from the same corpus and code.")
@click.option(
    "--current-only",
    is_flag=True,
    help="Today's editions alone (of each game, language and format, the newest dated edition): about half the time.",
)
@click.option("--quiet", "-q", is_flag=True, help="Print only the summary.")
@click.option("--json", "as_json", is_flag=True, help="JSON summary on stdout (progress stays on stderr).")
@click.pass_context
@handles_errors
def build(ctx: click.Context, corpus: str | None, force: bool, current_only: bool, quiet: bool, as_json: bool) -> None:
    """(Re)build the KB from a corpus manifest; the previous KB serves until the new one is complete."""
    from kb.build import ConsoleProgress, build_kb

    progress = ConsoleProgress()
    stats = build_kb(
        ctx.obj,
        corpus,
        progress=None if quiet else progress,
        log=None if quiet else progress.log,
        force=force,
        current_only=current_only,
    )
    if as_json:
        emit_json({**stats, "home": str(ctx.obj.path)})
        return
    if stats.get("reused"):
        click.echo(
            f"KB up to date: built {stats['built_at']} from the same {stats['documents']} documents and code "
            f"({ctx.obj.path / stats['generation']}); --force rebuilds"
        )
        return
    held = f" (today's editions; {stats['held_back']} older left out)" if stats["held_back"] else ""
    click.echo(
        f"built {stats['documents']} documents{held} in {stats['seconds']} s into {ctx.obj.path / stats['generation']}"
    )


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(readable=False))
@click.option("--format", "fmt", help="Input format (default: detected). See `rulekb formats`.")
@click.option("--game", type=GAME, help="Override the game.")
@click.option("--lang", type=LANG, help="Override the language.")
@click.option("--version", "label", help="Override the version label.")
@click.option(
    "--replace", is_flag=True, help="Let a truncated or shorter text replace a whole stored one (refused otherwise)."
)
@click.option("--json", "as_json", is_flag=True, help="What each file added, as JSON.")
@click.pass_context
@handles_errors
def ingest(
    ctx: click.Context,
    files: tuple[str, ...],
    fmt: str | None,
    game: str | None,
    lang: str | None,
    label: str | None,
    replace: bool,
    as_json: bool,
) -> None:
    """Add rule texts or wiki pages to the KB (all or nothing), saying what was detected."""
    from ingest import FORMATS
    from ingest.common import Hints
    from kb.build import ConsoleProgress, ingest_files

    if fmt and fmt not in FORMATS:
        raise click.BadParameter(f"{fmt!r} (known: {', '.join(FORMATS)})", param_hint="--format")

    def hints_for(path: str) -> Hints:
        return Hints(format=fmt or "", game=game or "", lang=lang or "", version=label or "")

    reports = ingest_files(ctx.obj, list(files), hints_for, progress=ConsoleProgress(), replace=replace)
    if as_json:
        emit_json([asdict(r) for r in reports])
        return
    for r in reports:
        click.echo(r.describe())
        for w in r.warnings:
            click.echo(f"  warning: {w}", err=True)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="JSON output.")
def formats(as_json: bool) -> None:
    """List the input formats `ingest --format` accepts."""
    from ingest import FORMATS, format_module

    rows = []
    for name in FORMATS:
        doc = (format_module(name).__doc__ or "").strip().splitlines()
        rows.append({"format": name, "description": doc[0] if doc else ""})
    if as_json:
        emit_json(rows)
        return
    for r in rows:
        click.echo(f"{r['format']:10} {r['description']}")


@cli.command()
@click.option("--game", type=GAME)
@click.option("--lang", type=LANG)
@click.option("--json", "as_json", is_flag=True, help="JSON output.")
@click.pass_context
@handles_errors
def versions(ctx: click.Context, game: str | None, lang: str | None, as_json: bool) -> None:
    """List versions oldest first, with dates and counts."""
    store = _store(ctx)
    rows = [v.as_json() for v in store.versions(game, lang)]
    if as_json:
        emit_json(rows)
        return
    for r in rows:
        flags = " partial" if r["partial"] else ""
        eff = r["effective"] or (f"~{r['estimated']['best']}" if r.get("estimated") else "undated")
        renders = f" renders en {r['renders']}" if r.get("renders") else ""
        click.echo(
            f"{r['game']}/{r['lang']}/{r['version']:<12} {eff:<12} {r['clauses']:>5} clauses {r['headings']:>4} headings "
            f"{r['terms']:>4} terms  {r.get('provenance') or '':<20}{flags}{renders}"
        )


def _rule_arg(raw: str) -> str:
    rule = ruleid.normalize(raw)
    if not ruleid.is_valid(rule, strict_letters=False):
        raise RulekbError(f"not a clause id: {raw!r} (expected e.g. 509, 509.1 or 509.1c)")
    return rule


@cli.command()
@click.argument("rule")
@click.option("--game", type=GAME)
@click.option("--lang", type=LANG)
@click.option("--version", "label", help="Version label or 'latest' (default: newest holding the rule).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handles_errors
def show(ctx: click.Context, rule: str, game: str | None, lang: str | None, label: str | None, as_json: bool) -> None:
    """Show one rule or clause with its examples, references, parent and children."""
    from kb.versions import choice
    from kb.versions.clause import clause_view

    store = _store(ctx)
    rule = _rule_arg(rule)
    if label and label != choice.LATEST:
        version = store.find_version(label, game, lang)
    else:
        version = choice.for_rule(store, rule, game or "mtg", [lang] if lang else ["ja", "en"])
    data = clause_view(store, version, rule)
    if as_json:
        emit_json(data)
        return
    click.echo(f"{data['game']}/{data['lang']}/{data['version']}  {data['rule']}  {data['title']}".rstrip())
    if data["text"]:
        click.echo(data["text"])
    for ex in data["examples"]:
        click.echo(f"  例/Example: {ex}")
    for note in data.get("notes", []):
        click.echo(f"  注/Note: {note}")
    if data["children"]:
        click.echo("children: " + ", ".join(data["children"]))
    if data["references"]:
        click.echo("references: " + ", ".join(data["references"]))


@cli.command()
@click.argument("query", nargs=-1, required=True)
@click.option("--game", type=GAME)
@click.option("--lang", type=LANG)
@click.option("--version", "label", help="Version label or 'latest' (default: the newest of each game and language).")
@click.option("--limit", type=click.IntRange(1, 200), default=10, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@click.option("--local", is_flag=True, help="Search in this process even when a `rulekb serve` of this home runs.")
@click.pass_context
@handles_errors
def search(
    ctx: click.Context,
    query: tuple[str, ...],
    game: str | None,
    lang: str | None,
    label: str | None,
    limit: int,
    as_json: bool,
    local: bool,
) -> None:
    """Search clauses, terms and articles (Japanese or English; a rule number jumps to it).

    The words of QUERY may be given as one argument or several. A running `rulekb serve` of the same
    data home answers with the index and model it has loaded; else this process loads them and searches,
    and starts a search daemon that answers the next searches warm and exits after 10 idle minutes
    (RULEKB_DAEMON=0: none)."""
    query = " ".join(query)
    question = {"op": "search", "query": query, "game": game, "lang": lang, "version": label, "limit": limit}
    answer = None
    if not local:
        from kb import remote

        answer = remote.ask(ctx.obj.path, question)
        if answer is None and remote.daemon_enabled() and remote.wait_for_daemon(ctx.obj.path):
            answer = remote.ask(ctx.obj.path, question)  # the daemon the last search started is up now
    if answer is not None:
        page, status = answer["page"], answer.get("status")
    else:
        from kb.search.searcher import Searcher

        store = _store(ctx)
        searcher = Searcher(store, ctx.obj.index_dir())
        page = searcher.search_page(query, game=game, lang=lang, version=label, limit=limit)
        status = searcher.semantic_status()
        if not local and remote.daemon_enabled():  # warm for the next search: it loads once this one is shown
            ctx.call_on_close(lambda: remote.start_daemon(ctx.obj.path))
    hits = page["hits"]
    for note in page["notes"] + [m for m in [status] if m]:
        click.echo(note, err=True)
    if as_json:
        emit_json(hits)
        return
    if not hits:
        click.echo("no results", err=True)
    elif page["confidence"] == "low":
        click.echo("見つかりません: nothing in the rules answers this query; the closest guesses follow", err=True)
    for h in hits:
        where = f"{h['game']}/{h['lang']}/{h['version']}"
        also = f" (+{h['also_in']} versions)" if h.get("also_in") else ""
        click.echo(f"{h['score']:6.2f}  {h['kind']:7} {where:<20} {h['rule'] or h['title']}{also}")
        click.echo(f"        {h['snippet']}")
        if other := h.get("other"):
            click.echo(f"        [{other['lang']} {other['version']}] {other['snippet'] or other['title'] or ''}")


@cli.command()
@click.argument("old")
@click.argument("new")
@click.option("--game", type=GAME)
@click.option("--lang", type=LANG)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handles_errors
def diff(ctx: click.Context, old: str, new: str, game: str | None, lang: str | None, as_json: bool) -> None:
    """Compare two versions of one game and language: added, removed, edited and moved clauses
    ('latest' for either; 'latest latest' with --game and --lang: the newest update)."""
    from kb.versions.choice import diff_pair
    from kb.versions.compare import diff_versions

    store = _store(ctx)
    a, b = diff_pair(store, old, new, game, lang)
    if (a.game, a.lang) != (b.game, b.lang):
        raise RulekbError(
            f"{a.label} is {a.game}/{a.lang} but {b.label} is {b.game}/{b.lang}: diff compares one game and language (see `rulekb align`)"
        )
    # the lines below show no word-level diffs: compute them for --json only
    data = diff_versions(store, a.game, a.lang, a.label, b.label, inline=as_json)
    if as_json:
        emit_json(data)
        return
    if not data["changes"]:
        click.echo(f"no changes between {a.label} and {b.label}")
    for c in data["changes"]:
        ref = " (references only)" if c.get("reference_only") else ""
        sim = f" {c['similarity']:.2f}" if c.get("similarity") is not None else ""
        click.echo(f"{c['kind']:8} {c.get('old_rule') or '-':>9} -> {c.get('new_rule') or '-':<9}{sim}{ref}")


@cli.command()
@click.argument("rule")
@click.option("--game", type=GAME, default="mtg", show_default=True)
@click.option(
    "--lang", type=LANG, help="Default: English when the KB has English editions holding the rule, else Japanese."
)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handles_errors
def history(ctx: click.Context, rule: str, game: str, lang: str | None, as_json: bool) -> None:
    """Trace one clause through every edition: created, edited, moved, removed."""
    from kb.versions.history import history as trace

    store = _store(ctx)
    rule = _rule_arg(rule)
    langs = [lang] if lang else ["en", "ja"]
    lang = next((lg for lg in langs if store.rule_versions(game, lg, rule)), langs[0])
    data = trace(store, game, lang, rule)
    if as_json:
        emit_json(data)
        return
    for e in data["events"]:
        moved = f" (was {e['old_rule']})" if e.get("old_rule") and e.get("old_rule") != e.get("rule") else ""
        click.echo(f"{e['version']:<12} {e['kind']:8} {e.get('rule') or ''}{moved}")


@cli.command()
@click.argument("version_a")
@click.argument("version_b")
@click.option("--game", type=GAME)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handles_errors
def align(ctx: click.Context, version_a: str, version_b: str, game: str | None, as_json: bool) -> None:
    """Align two versions clause by clause, e.g. ja 20231117.0 against en 20231117 (or 'latest')."""
    from kb.versions.align import align as run_align
    from kb.versions.choice import align_pair

    store = _store(ctx)
    a, b = align_pair(store, version_a, version_b, game)
    data = run_align(store, a, b)
    if as_json:
        emit_json(data)
        return
    counts: dict[str, int] = {}
    for p in data["pairs"]:
        counts[p["status"]] = counts.get(p["status"], 0) + 1
    click.echo(f"{a.lang}/{a.label} ~ {b.lang}/{b.label}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for p in data["pairs"]:
        if p["status"] != "paired":
            click.echo(f"  {p['status']:<13} {p.get('a_rule') or '-':>9} ~ {p.get('b_rule') or '-'}")


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(readable=False))
@click.option("--game", type=GAME, default="mtg", show_default=True)
@click.option("--against", help="Version to resolve citations against (default: the newest).")
@click.option("--junit", multiple=True, type=click.Path(readable=False), help="JUnit XML results (repeatable).")
@click.option("--save", is_flag=True, help="Keep the result in the KB for the web app.")
@click.option("--no-git", is_flag=True, help="Do not date citations by their git commits.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handles_errors
def link(
    ctx: click.Context,
    paths: tuple[str, ...],
    game: str,
    against: str | None,
    junit: tuple[str, ...],
    save: bool,
    no_git: bool,
    as_json: bool,
) -> None:
    """Find rule citations in an engine's tests and check them against the rules."""
    from kb.links import link as run_link

    existing_paths(paths, "any")
    existing_paths(junit, "file")
    if save:
        from kb.build import writable_copy

        with writable_copy(ctx.obj) as store:
            data = run_link(
                store, list(paths), game=game, against=against, junit=list(junit), save=True, git=not no_git
            )
    else:
        data = run_link(_store(ctx), list(paths), game=game, against=against, junit=list(junit), git=not no_git)
    for why in data.get("skipped", []):
        click.echo(f"rulekb: warning: {why} (skipped)", err=True)
    if as_json:
        emit_json(data)
        return
    for c in data["citations"]:
        if c["status"] != "ok":
            hint = f" -> {', '.join(c['suggest'][:3])}" if c.get("suggest") else ""
            click.echo(f"{c['file']}:{c['line']}: {c['status']} {c['rule']}{hint} {c.get('note') or ''}".rstrip())
    for e in data.get("embedded", []):
        click.echo(
            f"{e['file']}: embedded copy of the rules (edition {e['edition'] or 'unknown'}, {e['lines']} lines), not scanned"
        )
    counts: dict[str, int] = {}
    for c in data["citations"]:
        counts[c["status"]] = counts.get(c["status"], 0) + 1
    click.echo(
        f"{len(data['citations'])} citations against {data['against']}: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    )


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
@click.option("--workers", type=click.IntRange(1, 64), help="Server processes (default: one per core).")
@click.option(
    "--build",
    "build_first",
    is_flag=True,
    help="Build the KB first when it is missing or out of date: today's editions before serving, "
    "the whole KB behind the running server (pages switch to it when it is done).",
)
@click.option(
    "--corpus",
    type=click.Path(readable=False),
    help="With --build: corpus directory with manifest.toml (default: the bundled corpus).",
)
@click.pass_context
@handles_errors
def serve(ctx: click.Context, host: str, port: int, workers: int | None, build_first: bool, corpus: str | None) -> None:
    """Serve the web app (production WSGI server, one process per core, read-only)."""
    from web.server import serve as run

    if corpus and not build_first:
        raise RulekbError("--corpus goes with --build (serve builds from it)")
    if not build_first:
        ctx.obj.current()  # fail early, with a clear message, when nothing was built
    # With --build, the port is taken first: a port in use fails before a build, not after it.
    prepare = (lambda: _build_for_serving(ctx.obj, corpus)) if build_first else None
    run(ctx.obj.path, host=host, port=port, workers=workers, prepare=prepare)


def _build_for_serving(home: Home, corpus: str | None) -> list[str] | None:
    """Make the home servable for ``serve --build``: with nothing built (or nothing this code can read),
    build today's editions now; an out-of-date KB serves meanwhile as it is. Returns the command that
    builds the whole KB behind the server, or None when the live KB is it."""
    import sys

    from kb.build import ConsoleProgress, build_kb, live_state

    state = live_state(home, corpus)
    if state == "whole":
        return None
    if state in ("none", "unreadable"):
        progress = ConsoleProgress()
        stats = build_kb(home, corpus, progress=progress, log=progress.log, current_only=True)
        if not stats["held_back"]:
            return None  # nothing was left out: this is the whole KB
        click.echo(
            f"rulekb: built today's editions ({stats['documents']} documents) in {stats['seconds']} s;"
            f" the other {stats['held_back']} are built while the server runs",
            err=True,
        )
    where = ["--corpus", corpus] if corpus else []
    return [sys.executable, "-m", "kb", "--home", str(home.path.absolute()), "build", "--quiet", *where]


def main() -> None:
    cli(prog_name="rulekb")
