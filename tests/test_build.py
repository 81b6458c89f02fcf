"""The build pipeline: the bundled manifest, corpus checks, provenance, and reuse of an unchanged KB."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from kb.build import BUNDLED_CORPUS, build_kb, read_manifest
from kb.errors import InputError
from kb.home import Home
from kb.model import PROVENANCES
from tests._kbfixtures import write_manifest
from tests.helpers import CR_EN


def test_the_bundled_corpus_holds_every_real_text_byte_exact_with_provenance():
    entries = read_manifest(BUNDLED_CORPUS)
    by_name = {e.path.name: e for e in entries}
    assert len(entries) == 120 + 1 + 1 + 5  # English editions, 和訳 20260116.0, the DM rules, the five seeds
    for entry in entries:  # the manifest's sha256, recorded when each text was bundled, is the reference
        assert hashlib.sha256(entry.path.read_bytes()).hexdigest() == entry.sha256, entry.path.name
        assert entry.provenance in PROVENANCES and entry.owner and entry.licence and entry.origin
    english = [e for e in entries if e.format == "cr-en"]
    assert len(english) == 120 and all(e.provenance == "official" and e.effective for e in english)
    assert by_name["JP_CR_20260116.0.txt"].provenance == "official-translation"
    assert {e.path.relative_to(BUNDLED_CORPUS).as_posix() for e in entries} == {
        p.relative_to(BUNDLED_CORPUS).as_posix()
        for p in BUNDLED_CORPUS.rglob("*")
        if p.name != "manifest.toml" and p.is_file() and not p.name.startswith(".")
    }  # and nothing in corpus/ goes unlisted


def _one_seed(tmp_path: Path, name: str = "003_1192bed475bff8cb.txt") -> Path:
    return write_manifest(tmp_path / "corpus", lambda e: e.path.name == name)


def test_an_unchanged_corpus_reuses_the_live_kb_and_force_rebuilds(tmp_path):
    corpus, home = _one_seed(tmp_path), Home(tmp_path / "home")
    first = build_kb(home, corpus)
    assert not first.get("reused")
    again = build_kb(home, corpus)
    assert again["reused"] and again["generation"] == first["generation"]
    forced = build_kb(home, corpus, force=True)
    assert not forced.get("reused") and forced["generation"] != first["generation"]
    other = _one_seed(tmp_path / "b", "000_69c867f839c48ea8.txt")
    assert not build_kb(home, other).get("reused")  # another manifest: a new build


def test_build_and_ingest_report_as_json(tmp_path, cli):
    corpus, home = _one_seed(tmp_path), tmp_path / "home"
    code, out, _ = cli("--home", home, "build", "--corpus", corpus, "--json")
    built = json.loads(out)
    assert code == 0 and built["documents"] == 1 and not built.get("reused") and built["home"] == str(home)
    assert (home / built["generation"]).is_dir() and built["lineage"] == {"pairs": 0, "links": 0}
    again = json.loads(cli("--home", home, "build", "--corpus", corpus, "--json")[1])
    assert again["reused"] and again["generation"] == built["generation"]
    seed = BUNDLED_CORPUS / "000_69c867f839c48ea8.txt"
    code, out, _ = cli("--home", home, "ingest", seed, "--json")
    [report] = json.loads(out)
    assert code == 0 and report["path"] == str(seed) and report["format"] == "viewer" and not report["skipped"]
    assert report["versions"] == ["mtg/ja/20231117.0, effective 2023-11-17, partial"] and report["clauses"] > 0
    [again] = json.loads(cli("--home", home, "ingest", seed, "--json")[1])
    assert again["skipped"] and again["path"] == str(seed)


def test_a_corpus_file_that_differs_from_its_manifest_is_refused(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    seed = next(e for e in read_manifest(BUNDLED_CORPUS) if e.path.name.startswith("003_"))
    copy = corpus / seed.path.name
    shutil.copy(seed.path, copy)
    (corpus / "manifest.toml").write_text(
        f'[[document]]\npath = "{copy.name}"\nformat = "viewer"\nsha256 = "{seed.sha256}"\n', encoding="utf-8"
    )
    build_kb(tmp_path / "home", corpus)
    copy.write_bytes(copy.read_bytes().replace("ブロック".encode(), "ブロツク".encode(), 1))
    with pytest.raises(InputError, match=r"003_1192bed475bff8cb\.txt: sha256 differs"):
        build_kb(tmp_path / "home", corpus)


@pytest.mark.heavy
def test_provenance_comes_from_the_manifest_else_from_the_format(tmp_path, cli):
    home = tmp_path / "home"
    build_kb(home, write_manifest(tmp_path / "c", lambda e: e.path.name.startswith(("000_", "002_", "004_"))))
    code, out, _ = cli("--home", home, "versions", "--json")
    assert code == 0
    rows = {r["version"]: r["provenance"] for r in json.loads(out)}
    assert rows == {"20231117.0": "viewer", "20260807.0": "wiki-quote", "5.5.0.0": "private-translation"}
    en = CR_EN / "MagicCompRules_2023-11-17.txt"
    assert cli("--home", home, "ingest", en)[0] == 0
    rows = {r["version"]: r["provenance"] for r in json.loads(cli("--home", home, "versions", "--json")[1])}
    assert rows["20231117"] == "official"


class _Terminal:
    def __init__(self, tty: bool):
        self.tty, self.out = tty, []

    def isatty(self) -> bool:
        return self.tty

    def write(self, s: str) -> None:
        self.out.append(s)

    def flush(self) -> None:
        pass


def test_progress_draws_a_bar_on_a_terminal_and_tenths_elsewhere():
    from kb.build import ConsoleProgress

    tty = _Terminal(True)
    bar = ConsoleProgress(tty)
    for i in range(0, 5):
        bar(i, 4, "ingest")
    assert "██████████████" in tty.out[2] and "2/4" in tty.out[2] and tty.out[-1] == "\n"
    log = _Terminal(False)
    steps = ConsoleProgress(log)
    for i in range(0, 101):
        steps(i, 100, "index")
    assert log.out == [f"index: {i}/100\n" for i in range(0, 101, 10)]
