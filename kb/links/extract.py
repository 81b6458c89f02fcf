"""Turn a source tree into citations (each tied to its test, or to code) and the list of tests."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from kb.errors import InputError
from kb.links import copies, forms, scanner, units
from kb.links.owners import Owners
from kb.model import Citation


@dataclass
class Cite(Citation):
    """A citation with what resolution needs: language, game, written-against date and context."""

    language: str = ""
    game: str = "mtg"
    scope: str = ""  # "test" (inside it), "class" (class-level comment), "name" (the test's name), "code"
    written: str = ""  # ISO date the citation says (or git says) it was written against
    written_from: str = ""  # "annotation" | "date" | "file" | "git"
    context: str = field(default="", repr=False)  # the prose around it (keywords, quotes)
    path: str = field(default="", repr=False)  # on disk, for git blame
    range_to: str = ""  # a range "rule-range_to": the ids between are the against version's (kb.links.ranges)
    in_range: str = ""  # after expansion: the range this citation is one id of ("702.170-702.176")
    span: list[str] = field(default_factory=list)  # a label's ids in the against version


@dataclass
class FoundTest:
    """A test found in the tree (cited or not)."""

    id: str
    file: str
    line: int
    classname: str
    name: str
    language: str


@dataclass
class Scan:
    """Everything a scan found."""

    citations: list[Cite] = field(default_factory=list)
    tests: list[FoundTest] = field(default_factory=list)
    files: int = 0
    skipped: list[str] = field(default_factory=list)  # "file: reason" for files found but not readable
    embedded: list[dict] = field(default_factory=list)  # copies of the rules: {"file", "edition", "lines", ...}
    texts: list[Cite] = field(default_factory=list)  # literals that may be rules text without an id (rule "")


_HAS_NUMBER = re.compile(r"[1-9]\d\d")


CONTEXT = 500  # characters either side of a citation that a very long line keeps as its context


def _context(text: str, offset: int) -> str:
    """The line of a comment or string that holds the citation at ``offset`` — at most ``CONTEXT``
    characters either side of it, so that a line with thousands of citations is not read (and kept)
    once per citation."""
    lo = max(0, offset - CONTEXT)
    start = text.rfind("\n", lo, offset) + 1 or lo
    end = text.find("\n", offset, offset + CONTEXT)
    return text[start : end if end >= 0 else min(len(text), offset + CONTEXT)]


def _one_line_prose(src: scanner.SourceFile) -> dict[int, list[scanner.Region]]:
    """The one-line strings and comments of each line: a string's id reads with the rest of its line's prose
    (@scenario("702.21 / 702.18", "lifelink gains life …"); Rule("704.5j", "If two or more legendary …"))."""
    on_line: dict[int, list[scanner.Region]] = {}
    for r in src.regions:
        if r.kind in ("string", "comment") and "\n" not in r.text.strip("\n"):
            on_line.setdefault(src.line_of(r.start), []).append(r)
    return on_line


def _line_prose(regions: list[scanner.Region], region: scanner.Region, ctx: str) -> str:
    """A string's context followed by the other strings and comments of its line, in their order (at most
    ``CONTEXT`` characters of each): its own words lead, as a copied clause's id leads its text."""
    parts = [ctx] + [scanner.prose(r)[:CONTEXT] for r in regions if r is not region]
    return " ".join(p.strip() for p in parts if p.strip())


def _name_citations(src: scanner.SourceFile, frames: list, prose: list[Cite], file_date, game: str) -> list[Cite]:
    """Ids in test names: identifiers with underscores, and Kotlin `backtick names` (not those already
    read as prose: Kotest's test("CR 509.1c") { })."""
    cited = {(c.line, c.test, c.rule) for c in prose}
    out = []
    for f in frames:
        if not f.test or src.language in ("gherkin", "typescript", "javascript"):
            continue
        hits = forms.find_name_ids(f.name, game)
        if " " in f.name:  # a Kotlin `backtick name` may spell ids either way
            hits = sorted(forms.find_ids(f.name, game) + hits, key=lambda fd: fd.offset)
        for fd in hits:
            if (f.line, f.id, fd.rule) in cited:
                continue
            out.append(
                Cite(
                    file=src.rel,
                    line=f.line,
                    rule=fd.rule,
                    raw=fd.raw,
                    test=f.id,
                    kind="test",
                    language=src.language,
                    game=fd.game,
                    scope="name",
                    written=file_date.isoformat() if file_date else "",
                    written_from="file" if file_date else "",
                    context=f.name.replace("_", " "),
                    path=src.path,
                )
            )
    return out


def scan_source(src: scanner.SourceFile, game: str = "mtg") -> Scan:
    """Citations and tests of one lexed file."""
    out = Scan(files=1)
    roots = units.frames(src)
    every = units.iter_frames(roots)
    owner = Owners(roots)
    for f in every:
        if f.test:
            out.tests.append(FoundTest(f.id, src.rel, f.line, f.classname, f.name, src.language))
    # A "written against" or "Based on MagicCompRules DATE" outside every test (a file header, a module
    # docstring, a class comment) dates the whole file.
    file_date = None
    for r in src.regions:
        if r.kind != "name" and (d := forms.explicit_written(r.text)) and owner(r.start)[0] != "test":
            file_date = d
            break

    on_line = _one_line_prose(src)

    def emit(found: forms.Found, offset: int, region: scanner.Region, written, how) -> None:
        scope, tests = owner(offset)
        line = src.line_of(offset)
        ctx = scanner.prose(scanner.Region(region.kind, 0, _context(region.text, found.offset)))
        if region.kind == "string" and len(on_line.get(line, ())) > 1:
            ctx = _line_prose(on_line[line], region, ctx)
        base = dict(
            file=src.rel,
            line=line,
            rule=found.rule,
            raw=found.raw.strip(),
            language=src.language,
            game=found.game,
            written=written.isoformat() if written else "",
            written_from=how,
            context=ctx,
            path=src.path,
            range_to=found.range_to,
        )
        if scope == "code":
            out.citations.append(Cite(test="", kind="code", scope="code", **base))
        elif scope == "class" and found.range_to:
            # describe("Part 2 (Rules 702.21-702.37)"): a range over a group names the group; it does not
            # say that every test checks every clause. One label, credited to no test.
            group = units.group_of(src, owner.innermost(offset))
            out.citations.append(Cite(test=group, kind="label", scope="class", **base))
            return
        for t in tests:
            out.citations.append(Cite(test=t.id, kind="test", scope=scope, **base))

    for r in src.regions:
        if r.kind == "string" and len(r.text) > copies.MIN_CHARS and copies.may_copy(text := scanner.prose(r)):
            scope, tests = owner(r.start)
            kind = "code" if scope == "code" else "test"
            for t in tests or [None]:
                out.texts.append(
                    Cite(
                        file=src.rel,
                        line=src.line_of(r.start),
                        rule="",
                        raw=text[:60] + ("…" if len(text) > 60 else ""),
                        test=t.id if t else "",
                        kind=kind,
                        language=src.language,
                        game=game,
                        scope=scope,
                        context=text,
                        path=src.path,
                    )
                )
        if not _HAS_NUMBER.search(r.text):
            continue  # most strings and comments cite nothing: skip the full patterns
        found = forms.find_ids(r.text, game)
        if not found:
            continue
        explicit = forms.explicit_written(r.text)
        for fd in found:
            # A bare date counts on the citation's own comment line ("20200417 - 800.4a"); an explicit
            # "written against" anywhere in the comment or docstring; else the file's annotation.
            if explicit:
                written, how = explicit, "annotation"
            elif r.kind == "comment":
                written, how = forms.written_date(_context(r.text, fd.offset))
            else:
                written, how = None, ""
            if written is None and file_date:
                written, how = file_date, "file"
            emit(fd, r.start + fd.offset, r, written, how)
    out.citations += _name_citations(src, every, out.citations, file_date, game)
    # The same id written the same way twice on a line for one test (a parametrize value and its id) is one citation.
    seen: set[tuple] = set()
    out.citations = [
        c for c in out.citations if (k := (c.line, c.test, c.rule, c.scope, c.raw)) not in seen and not seen.add(k)
    ]
    out.citations.sort(key=lambda c: (c.line, c.test))
    return out


def scan_tree(paths: list[str], game: str = "mtg") -> Scan:
    """Scan every source file under ``paths``."""
    total = Scan()
    named = {os.path.normpath(p) for p in paths}
    for path, rel in scanner.walk(paths, total.skipped):
        try:
            src = scanner.read_source(path, rel)
        except InputError as exc:
            if os.path.normpath(path) in named:
                raise  # a file the user named must be readable
            # One unreadable file (a dangling symlink, no permission) must not sink a whole tree's scan.
            total.skipped.append(str(exc))
            continue
        if src is None:
            continue
        if src.embedded is not None and copies.curated(src):
            src = scanner.lex(scanner.SourceFile(src.path, src.rel, src.language, src.text))  # excerpts: cited
        if src.embedded is not None:
            total.files += 1
            total.embedded.append({"file": rel, **src.embedded})
            continue
        one = scan_source(src, game)
        total.files += 1
        total.citations.extend(one.citations)
        total.texts.extend(one.texts)
        total.tests.extend(one.tests)
    return total


def spanned(c: Cite) -> bool:
    """One id of a range ("702.170-702.176", "602.2b-h"): where it is absent, the range may just run past the
    last clause, which says nothing of a renumbering."""
    return bool(c.in_range) or any(d in c.raw for d in "-–")
