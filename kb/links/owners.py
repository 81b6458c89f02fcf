"""Who each citation of a file belongs to: its test, the tests of its class, or code."""

from __future__ import annotations

import bisect

from kb.links.units import Frame, iter_frames


class Owners:
    """``owners(offset)`` for a file's frames: ("test", [test]), ("class", tests of the class) or ("code", []).

    The frames around an offset are kept on a stack swept forward as offsets rise (a citation costs
    O(1), not a walk down from the roots: 4,000 nested describe blocks were quadratic), and the tests
    of a class are a slice of the frames in file order. Frames that do not nest (siblings that
    overlap, a child outside its parent: badly indented Python) are walked from the roots instead,
    the first of overlapping siblings winning."""

    def __init__(self, roots: list[Frame]):
        self.frames = iter_frames(roots)  # depth first: a frame's subtree follows it
        self.at = {id(f): i for i, f in enumerate(self.frames)}
        self.size = [1] * len(self.frames)
        for i in range(len(self.frames) - 1, -1, -1):
            self.size[i] += sum(self.size[self.at[id(c)]] for c in self.frames[i].children)
        self.tests = [i for i, f in enumerate(self.frames) if f.test]
        self.by_decl = sorted(self.frames, key=lambda f: f.decl)
        self.first_member: dict[int, int] = {}
        self.roots = roots
        self.nested = all(_nests(f) for f in self.frames) and _nests(Frame("", "", -1, -1, 1 << 62, 0, children=roots))
        self._start(0)

    def _start(self, offset: int) -> None:
        self.next = 0
        self.stack: list[tuple[Frame, Frame | None, Frame | None]] = []  # frame, innermost test, innermost class
        self.offset = offset

    def innermost(self, offset: int) -> Frame | None:
        """The innermost frame around ``offset``."""
        return (self._sweep(offset) if self.nested else self._walk(offset))[0]

    def __call__(self, offset: int) -> tuple[str, list[Frame]]:
        _, test, cls = self._sweep(offset) if self.nested else self._walk(offset)
        if test is not None:
            return "test", [test]
        if cls is not None:
            if id(cls) not in self.first_member:
                self.first_member[id(cls)] = min((c.decl for c in cls.children), default=cls.end)
            if offset < cls.body or (cls.children and offset < self.first_member[id(cls)]):
                tests = self.tests_under(cls)
                if tests:
                    return "class", tests
        return "code", []

    def _walk(self, offset: int) -> tuple[Frame | None, Frame | None, Frame | None]:
        """The innermost frame, test and class around ``offset``, found from the roots down."""
        frame = test = cls = None
        level = self.roots
        while (inner := holding(level, offset)) is not None:
            frame = inner
            test = inner if inner.test else test
            cls = inner if inner.kind == "class" else cls
            level = inner.children
        return frame, test, cls

    def _sweep(self, offset: int) -> tuple[Frame | None, Frame | None, Frame | None]:
        """The innermost frame, test and class around ``offset``, from the stack of frames around it."""
        if offset < self.offset:
            self._start(offset)  # offsets came back: sweep again from the top
        self.offset = offset
        while self.next < len(self.by_decl) and self.by_decl[self.next].decl <= offset:
            f = self.by_decl[self.next]
            self.next += 1
            while self.stack and self.stack[-1][0].end <= f.decl:
                self.stack.pop()
            if f.end > offset:
                _, test, cls = self.stack[-1] if self.stack else (None, None, None)
                self.stack.append((f, f if f.test else test, f if f.kind == "class" else cls))
        while self.stack and self.stack[-1][0].end <= offset:
            self.stack.pop()
        return self.stack[-1] if self.stack else (None, None, None)

    def tests_under(self, f: Frame) -> list[Frame]:
        """The tests inside a class frame (nested classes included), in file order."""
        lo = self.at[id(f)]
        hi = lo + self.size[lo]
        return [
            self.frames[i] for i in self.tests[bisect.bisect_right(self.tests, lo) : bisect.bisect_left(self.tests, hi)]
        ]


def _nests(f: Frame) -> bool:
    """True if ``f``'s children lie inside it, in file order, without overlapping."""
    last = f.decl
    for c in f.children:
        if c.decl < last or c.end > f.end or c.end <= c.decl:
            return False
        last = c.end
    return True


def holding(level: list[Frame], offset: int) -> Frame | None:
    """The first of the sibling frames ``level`` (in file order) whose extent holds ``offset``: found by
    bisection on their starts, not by walking every sibling (20,000 tests in one class were quadratic)."""
    i = bisect.bisect_right(level, offset, key=lambda f: f.decl) - 1
    found = None
    while i >= 0 and offset < level[i].end:  # siblings do not overlap; should they, the first one wins
        found, i = level[i], i - 1
    return found
