"""Test units: the tests, classes and scenarios of a source file, and which one encloses an offset."""

from __future__ import annotations

import bisect
import heapq
import re
from dataclasses import dataclass, field

from kb.links.scanner import SourceFile


@dataclass
class Frame:
    """A class-like container or a function/test/scenario, with its extent in the file."""

    kind: str  # "class" | "function"
    name: str
    decl: int  # start of its declaration, leading comments and annotations included
    body: int  # start of its body
    end: int
    line: int  # line of its name
    test: bool = False
    parent: Frame | None = None
    children: list[Frame] = field(default_factory=list)
    id: str = ""  # test id, for tests
    classname: str = ""  # for JUnit matching
    classes: tuple[str, ...] = ()  # the classes around it, outermost first (the MAX_NESTING innermost)


MAX_NESTING = 32  # classes a test id names at most (the innermost): real code nests a few, a hostile file thousands
_CLASS = re.compile(
    r"\b(class|interface|object|struct|record|enum|impl|mod|trait|namespace)\s+(?:[\w<>.]+\s+for\s+)?(\w+)"
)
# Possessive runs: the same matches as a per-character loop, without its backtracking (1.6x on phase-rs).
# A name starts where a word does: a match starting inside a word would also match from the word's
# start, which search() tries first, so (?<!\w) changes no result and spares the tries from inside
# every word (argentum-engine's 126,000 declaration heads: 13.5 -> 2.1 s, the same matches).
_FUNC = re.compile(
    r"(`[^`\n]+`|(?<!\w)\w++)\s*(?:<[^>{};]*>)?\s*\((?:[^()]++|\([^()]*+\))*+\)\s*(?:(?:->|:|throws|where)[^{};]*+)?$"
)
_FUNC_WORD = re.compile(r"\b(?:fn|fun|func|void|def)\b")
# Kotlin expression bodies that open a block: fun test() = runTest { ... }
_KT_EXPR = re.compile(
    r"\bfun\s+(`[^`\n]+`|\w+)\s*\(([^()]|\([^()]*\))*\)\s*(?::\s*[\w<>?, ]+)?\s*=\s*[\w.]+\s*(?:\([^()]*\))?\s*$"
)
_CONTROL = {
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "synchronized",
    "using",
    "lock",
    "foreach",
    "fixed",
    "when",
    "try",
    "else",
    "do",
    "return",
    "new",
    "match",
    "loop",
    "unsafe",
    "select",
    "go",
    "defer",
    "function",
}
_JS_CALL = re.compile(r"\b(describe|context|suite|it|test|specify)(?:\.\w+)*(?:\([^()]*\))?\s*\(")
_KT_GROUPS = ("describe", "context", "given", "feature", "When", "`when`", "Given", "Feature", "Context")
_KT_SPEC = re.compile(
    r"(?<![\w.])(describe|context|given|feature|Given|Feature|Context|When|`when`|test|it|should|then|Then|scenario|"
    r"Scenario|expect|xtest|xit|xdescribe|xcontext)\s*\((?=[^()]*\)\s*$)"
)
_DART_CALL = re.compile(r"\b(group|test|testWidgets)\s*\(")
_CPP_TEST = re.compile(
    r"\b(?:(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)"
    r"|(?:TEST_CASE|SCENARIO)\s*\(())[^{};]*$"
)
_TEST_MARK = {
    "java": re.compile(r"@(?:\w+\.)*(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate|Property)\b"),
    "kotlin": re.compile(r"@(?:\w+\.)*(?:Test|ParameterizedTest|RepeatedTest|TestFactory)\b"),
    "csharp": re.compile(r"\[\s*(?:\w+\.)*(?:Test|Fact|Theory|TestMethod|DataTestMethod|TestCase|TestCaseSource)\b"),
    "rust": re.compile(r"#\[\s*(?:\w+::)*(?:test|rstest|test_case)\b"),
}


def _name_of(decl: str, language: str, src: SourceFile, decl_end: int) -> tuple[str, str] | None:
    """("class"|"function"|"js-class"|"js-test", name) for the text before a ``{``."""
    full = decl.rstrip()
    tail = full[-600:]  # a declaration's head is short; long initialisers would make the search quadratic
    tail_start = decl_end - len(decl) + len(full) - len(tail)
    if language in ("typescript", "javascript", "dart"):  # Dart's package:test reads as Jest: group(…), test(…)
        for m in reversed(list((_DART_CALL if language == "dart" else _JS_CALL).finditer(tail))):
            name = _string_at(src, tail_start + m.end())
            if name is not None:
                return ("js-class" if m.group(1) in ("describe", "context", "suite", "group") else "js-test"), name
    if language == "cpp" and (m := _CPP_TEST.search(tail)):  # GoogleTest's TEST(Suite, Name), Catch2's TEST_CASE("…")
        name = f"{m.group(2)}.{m.group(3)}" if m.group(2) else _string_at(src, tail_start + m.end(4))
        return ("js-test", name) if name is not None else None
    if language in ("kotlin", "scala"):  # Kotest specs: test("…") { }, context("…") { }; ScalaTest's test("…") { }
        m = _KT_SPEC.search(tail)
        name = _string_at(src, tail_start + m.end()) if m else None
        if m and name is not None:
            return ("js-class" if m.group(1) in _KT_GROUPS else "js-test"), name
        if not tail.strip():  # the string is masked out of the code: only the real text shows it
            name = _string_at(src, tail_start)
            if name is not None:
                return "js-test", name
    m = _CLASS.search(tail)
    # "class X : Base() {" is a class; "fn f() -> impl Iterator {" is a function.
    if m and m.group(1) != "namespace" and not _FUNC_WORD.search(tail[: m.start()]):
        return "class", m.group(2)
    m = _KT_EXPR.search(tail) if language == "kotlin" else None
    if m:
        return "function", m.group(1).strip("`")
    m = _FUNC.search(tail)
    if m:
        name = m.group(1)
        before = tail[: m.start()].rstrip()
        if name in _CONTROL or before.endswith("new") or before.endswith("."):
            return None
        return "function", name.strip("`")
    return None


def _string_at(src: SourceFile, offset: int) -> str | None:
    """The string literal starting at ``offset`` (after spaces), unquoted."""
    while offset < len(src.text) and src.text[offset] in " \t\n":
        offset += 1
    if src.starts is None:
        src.starts = {r.start: r for r in src.regions}
    r = src.starts.get(offset)
    return unescape(r.text[1:-1]) if r is not None and r.kind == "string" else None


_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)", re.DOTALL)
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def _unescape_one(m: re.Match) -> str:
    code = m.group(1)
    if len(code) > 1:
        return chr(int(code.strip("u{}x"), 16))
    return _ESCAPED.get(code, code)


def unescape(name: str) -> str:
    """A string literal's value as the test runner shows it: ``doesn\\'t`` -> ``doesn't``, ``\\"x\\"`` -> ``"x"``."""
    return _ESCAPE.sub(_unescape_one, name) if "\\" in name else name


def _is_test(frame: Frame, decl: str, language: str) -> bool:
    if language == "go":
        return frame.parent is None and re.match(r"Test[A-Z0-9_]", frame.name) is not None
    mark = _TEST_MARK.get(language)
    if mark and mark.search(decl):
        return True
    # JUnit 3 / plain test classes: public void testXxx() inside a class.
    return language in ("java", "csharp", "swift") and frame.parent is not None and frame.name.startswith("test")


_EXPR_BRACE = re.compile(r"[=(,\]]\s*$")
_EXPR = Frame("expr", "", 0, 0, 0, 0)  # stack marker for an initializer's braces


def brace_frames(src: SourceFile) -> list[Frame]:
    """Frames of a brace language, found by matching braces in the masked code."""
    code, language = src.code, src.language
    roots: list[Frame] = []
    stack: list[Frame | None] = []  # _EXPR marks an initializer's braces
    last = -1
    expr = _EXPR_BRACE if language in ("java", "csharp") else None
    for m in re.finditer(r"[{};]", code):
        ch, pos = m.group(0), m.start()
        if ch == "{" and expr and expr.search(code, max(0, pos - 40), pos):
            # An array initializer (@ValueSource(ints = {1, 2}), @CsvSource({...}), new[] {...}) is data,
            # not a block: it must not cut the annotations above a method off its declaration.
            stack.append(_EXPR)
            continue
        if ch == "}" and stack and stack[-1] is _EXPR:
            stack.pop()
            continue
        if ch == "{":
            decl = code[last + 1 : pos]
            named = _name_of(decl, language, src, pos)
            frame = None
            if named:
                kind, name = named
                # Leading comments (javadoc, ///, #[attr]) count as part of the declaration: look at the real text.
                orig = src.text[last + 1 : pos]
                start = last + 1 + len(orig) - len(orig.lstrip())
                parent = next((f for f in reversed(stack) if f is not None and f is not _EXPR), None)
                frame = Frame(
                    "class" if kind in ("class", "js-class") else "function",
                    name,
                    start,
                    pos,
                    len(code),
                    src.line_of(_name_pos(decl, name, last + 1)),
                    parent=parent,
                )
                frame.test = kind == "js-test" or (kind == "function" and _is_test(frame, decl, language))
                (parent.children if parent else roots).append(frame)
            stack.append(frame)
        elif ch == "}" and stack:
            frame = stack.pop()
            if frame is not None:
                frame.end = pos + 1
        last = pos
    return roots


def _name_pos(decl: str, name: str, base: int) -> int:
    i = decl.rfind(name)
    return base + (i if i >= 0 else len(decl) - len(decl.lstrip()))


_PY_DEF = re.compile(r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+(\w+)", re.MULTILINE)


def _leading_lines(lines: list[str], text_lines: list[str], lineno: int, indent: int) -> int:
    """First line of a def's decorators and the comments right above it (0-based)."""
    first = lineno
    for i in range(lineno - 1, max(-1, lineno - 60), -1):
        code, text = lines[i].strip(), text_lines[i].strip()
        if not text:
            break  # a blank line ends what belongs to the def
        if code.startswith("@"):
            first = i
        elif not code and text.startswith("#"):
            if first == i + 1 and len(text_lines[i]) - len(text_lines[i].lstrip()) <= indent:
                first = i  # a comment at the def's own indentation, right above it
        elif not code or code[0] in ")]}" or len(lines[i]) - len(lines[i].lstrip()) > indent:
            continue  # maybe inside a decorator's arguments: kept only if an @ line comes above
        else:
            break
    return first


def python_frames(src: SourceFile) -> list[Frame]:
    """Frames of a Python file, from indentation of the masked code."""
    code = src.code
    lines = code.split("\n")
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln) + 1)
    text_lines = src.text.split("\n")
    defs = list(_PY_DEF.finditer(code))
    ends = _block_ends(
        lines, [(bisect.bisect_right(starts, m.start()) - 1, len(m.group(1).expandtabs())) for m in defs]
    )
    roots: list[Frame] = []
    open_frames: list[tuple[int, Frame]] = []
    for m, end_line in zip(defs, ends, strict=True):
        indent = len(m.group(1).expandtabs())
        lineno = bisect.bisect_right(starts, m.start()) - 1  # not a count from the start for every def
        first = _leading_lines(lines, text_lines, lineno, indent)
        while open_frames and open_frames[-1][0] >= indent:
            open_frames.pop()
        parent = open_frames[-1][1] if open_frames else None
        kind = "class" if m.group(2) == "class" else "function"
        frame = Frame(
            kind,
            m.group(3),
            starts[first],
            starts[lineno + 1] if lineno + 1 < len(starts) else len(code),
            starts[min(end_line, len(lines))],
            lineno + 1,
            parent=parent,
        )
        if kind == "function":
            frame.test = m.group(3).startswith("test") and (parent is None or parent.kind == "class")
        (parent.children if parent else roots).append(frame)
        open_frames.append((indent, frame))
    return roots


def _block_ends(lines: list[str], defs: list[tuple[int, int]]) -> list[int]:
    """For each (line, indent) of a def, the first later line indented no deeper (not a closing bracket).

    One pass over the lines with the open defs in a heap, deepest first: a def nested thousands deep
    does not rescan the rest of the file for its end."""
    ends = [len(lines)] * len(defs)
    by_line: dict[int, list[int]] = {}
    for i, (line, _) in enumerate(defs):
        by_line.setdefault(line, []).append(i)
    heap: list[tuple[int, int]] = []  # (-indent, def) of the defs still open
    for k, s in enumerate(lines):
        body = s.lstrip()
        if heap and body and not body.startswith((")", "]", "}")):
            depth = len(s) - len(body)
            while heap and -heap[0][0] >= depth:
                ends[heapq.heappop(heap)[1]] = k
        for i in by_line.get(k, ()):
            heapq.heappush(heap, (-defs[i][1], i))
    return ends


# Gherkin keywords (English and the `# language:` translations a Japanese or European team writes),
# longest first so "Scenario Outline" wins over "Scenario"; Japanese "例" is an Examples table, not a test.
_GHERKIN_KINDS = {
    "Feature": ("Feature", "機能", "フィーチャ", "Fonctionnalité", "Funktionalität", "Funktion", "Característica"),
    "Background": ("Background", "背景", "Contexte", "Grundlage", "Hintergrund", "Antecedentes"),
    "Rule": ("Rule", "ルール", "Règle", "Regel", "Regla"),
    "Scenario": (
        "Scenario Outline",
        "Scenario Template",
        "Scenario",
        "Example",
        "シナリオアウトライン",
        "シナリオテンプレート",
        "シナリオテンプレ",
        "テンプレ",
        "シナリオ",
        "Plan du scénario",
        "Scénario",
        "Szenariogrundriss",
        "Szenario",
        "Beispiel",
        "Esquema del escenario",
        "Escenario",
        "Ejemplo",
    ),
}
_GHERKIN_KIND = {word: kind for kind, words in _GHERKIN_KINDS.items() for word in words}
_GHERKIN = re.compile(
    r"^[ \t]*("
    + "|".join(re.escape(w) for w in sorted(_GHERKIN_KIND, key=len, reverse=True))
    + r")[ \t]*[:：][ \t]*(.*)$",
    re.MULTILINE,
)


def gherkin_frames(src: SourceFile) -> list[Frame]:
    """A Feature frame holding one frame per Scenario (tags above a keyword belong to it)."""
    text = src.text
    feature: Frame | None = None
    scenarios: list[Frame] = []
    for m in _GHERKIN.finditer(text):
        start = m.start()
        # Tag and comment lines right above the keyword belong to it.
        while True:
            prev_end = text.rfind("\n", 0, start)
            if prev_end <= 0:
                break
            prev_start = text.rfind("\n", 0, prev_end) + 1
            prev = text[prev_start:prev_end].strip()
            if prev.startswith(("@", "#")):
                start = prev_start
            else:
                break
        if feature and scenarios:
            scenarios[-1].end = start
        keyword, name = _GHERKIN_KIND[m.group(1)], m.group(2).strip()
        if keyword == "Feature":
            feature = Frame("class", name, start, m.end(), len(text), src.line_of(m.start()))
            if all(not ln.strip() or ln.lstrip().startswith("#") for ln in text[:start].split("\n")):
                feature.decl = 0  # a file's leading comments describe the feature
        elif keyword in ("Background", "Rule") or feature is None:
            continue
        else:
            sc = Frame(
                "function",
                name or m.group(1),
                start,
                m.end(),
                len(text),
                src.line_of(m.start()),
                test=True,
                parent=feature,
            )
            feature.children.append(sc)
            scenarios.append(sc)
    return [feature] if feature else []


def frames(src: SourceFile) -> list[Frame]:
    """The frame forest of a file, with test ids filled in."""
    if src.language == "python":
        roots = python_frames(src)
    elif src.language == "gherkin":
        roots = gherkin_frames(src)
    else:
        roots = brace_frames(src)
    # Each frame's classes from its parent's: a frame nested thousands deep (4,000 "{" in a row) does not
    # walk up through every parent, and its id does not grow with the depth.
    for f in iter_frames(roots):  # parents before their children
        up = f.parent
        if up is not None:
            f.classes = (*up.classes, up.name)[-MAX_NESTING:] if up.kind == "class" else up.classes
        if f.test:
            f.id, f.classname = test_id(src, f, list(f.classes))
    return roots


def iter_frames(roots: list[Frame]) -> list[Frame]:
    """Every frame, depth first."""
    out: list[Frame] = []
    stack = list(reversed(roots))
    while stack:
        f = stack.pop()
        out.append(f)
        stack.extend(reversed(f.children))
    return out


def test_id(src: SourceFile, f: Frame, chain: list[str]) -> tuple[str, str]:
    """(test id, class name for JUnit matching) in the convention of the file's language; ``chain``: the
    names of the classes around the test, outermost first."""
    lang = src.language
    if lang == "python":
        return "::".join([src.rel, *chain, f.name]), ".".join([src.rel.rsplit(".", 1)[0].replace("/", "."), *chain])
    if lang in ("java", "kotlin", "csharp", "gherkin"):
        cls = ".".join(chain)
        return f"{cls}#{f.name}" if cls else f.name, cls
    if lang == "rust":
        return "::".join([*chain, f.name]), "::".join(chain)
    if lang == "go":
        return f.name, ""
    return " > ".join([*chain, f.name]), " ".join(chain)


def group_of(src: SourceFile, frame: Frame | None) -> str:
    """The id of the class-like frames around a place whose innermost frame is ``frame`` (a describe block,
    a class), in the file's convention."""
    chain = [] if frame is None else [*frame.classes, frame.name] if frame.kind == "class" else list(frame.classes)
    chain = chain[-MAX_NESTING:]
    if src.language == "python":
        return "::".join([src.rel, *chain])
    if src.language in ("java", "kotlin", "csharp", "gherkin"):
        return ".".join(chain)
    return ("::" if src.language == "rust" else " > ").join(chain)
