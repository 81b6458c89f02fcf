"""Data home: generations swapped atomically, one writer, failures leave the live KB untouched."""

import os
import threading

import pytest

from kb.errors import StoreError
from kb.home import Home, default_home


def _make_generation(home: Home, payload: str) -> str:
    with home.new_generation() as gen:
        (gen / "kb.sqlite").write_text(payload)
    return os.readlink(home.link)


def test_swap_replaces_current_and_keeps_one_previous(tmp_path):
    home = Home(tmp_path)
    first = _make_generation(home, "one")
    second = _make_generation(home, "two")
    third = _make_generation(home, "three")
    assert (home.current() / "kb.sqlite").read_text() == "three"
    gens = sorted(p.name for p in tmp_path.glob("gen-*"))
    assert gens == sorted([second, third])
    assert first not in gens


def test_failed_generation_leaves_live_kb_and_no_leftovers(tmp_path):
    home = Home(tmp_path)
    live = _make_generation(home, "good")
    with pytest.raises(RuntimeError), home.new_generation() as gen:
        (gen / "kb.sqlite").write_text("half")
        raise RuntimeError("crash mid-build")
    assert os.readlink(home.link) == live
    assert (home.current() / "kb.sqlite").read_text() == "good"
    assert [p.name for p in tmp_path.glob("gen-*")] == [live]


def test_an_interrupt_as_the_directory_is_made_leaves_nothing_behind(tmp_path, monkeypatch):
    # Ctrl-C (or the server a build runs behind dying) inside mkdtemp, after its mkdir: the name was never
    # returned, and the directory is dropped all the same
    import tempfile

    home = Home(tmp_path)
    live = _make_generation(home, "good")
    real = tempfile.mkdtemp

    def interrupted(*args, **kwargs):
        real(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(tempfile, "mkdtemp", interrupted)
    with pytest.raises(KeyboardInterrupt), home.new_generation():
        pass
    assert [p.name for p in tmp_path.glob("gen-*")] == [live]


def test_an_interrupt_right_after_the_swap_keeps_the_new_kb_live(tmp_path, monkeypatch):
    home = Home(tmp_path)
    old = _make_generation(home, "old")
    real = Home._swap

    def swapped_then_interrupted(self, gen):
        real(self, gen)
        raise KeyboardInterrupt

    monkeypatch.setattr(Home, "_swap", swapped_then_interrupted)
    with pytest.raises(KeyboardInterrupt), home.new_generation() as gen:
        (gen / "kb.sqlite").write_text("new")
    assert (home.current() / "kb.sqlite").read_text() == "new"  # live, not deleted under the readers
    assert sorted(p.name for p in tmp_path.glob("gen-*")) == sorted([old, os.readlink(home.link)])


def test_second_writer_is_refused_at_once(tmp_path):
    home = Home(tmp_path)
    entered, release = threading.Event(), threading.Event()

    def hold():
        with home.writer_lock():
            entered.set()
            release.wait(5)

    t = threading.Thread(target=hold)
    t.start()
    entered.wait(5)
    try:
        with pytest.raises(StoreError, match="another rulekb build"), home.writer_lock():
            pass
    finally:
        release.set()
        t.join()


def test_missing_kb_is_a_clear_error(tmp_path):
    with pytest.raises(StoreError, match="run `rulekb build` first"):
        Home(tmp_path / "nothing").current()


def test_default_home_honours_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("RULEKB_HOME", str(tmp_path / "h"))
    assert default_home() == tmp_path / "h"
    monkeypatch.delenv("RULEKB_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "x"))
    assert default_home() == tmp_path / "x" / "rulekb"
