"""The build on every core: parsing in worker processes with a cache by content hash, lineage diffed in
worker processes; each gives exactly what the one-process way gives."""

from __future__ import annotations

import pytest

from ingest import parse_data
from ingest.common import Hints
from kb.build import _jobs, build_kb, derive, read_manifest
from kb.errors import InputError
from kb.home import Home
from kb.parsecache import PARSED, Job, parse_corpus
from kb.store import Store
from kb.versions import lineage
from tests._kbfixtures import english, is_seed, write_manifest

DATES = ("2023-11-17", "2024-02-06", "2024-03-08", "2024-06-07", "2025-02-07")


def _english_jobs(dates=DATES) -> list[Job]:
    return [Job(str(p), Hints(format="cr-en"), p.name, "{}") for p in english(*dates)]


def _plain(parsed) -> list:
    return [(p.display, p.sha256, p.options, p.encoding, p.result) for p in parsed]


def test_workers_parse_what_one_process_parses_in_the_same_order(tmp_path):
    alone = _plain(parse_corpus(_english_jobs(), parse_data, None, workers=1))
    together = _plain(parse_corpus(_english_jobs(), parse_data, tmp_path, workers=2))
    assert [p[0] for p in together] == [p.name for p in english(*DATES)]
    assert together == alone


def test_a_rebuild_reads_parsed_files_back_and_parses_a_changed_file_again(tmp_path):
    calls: list[str] = []

    def counting(data: bytes, hints):
        calls.append(hints.path)
        return parse_data(data, hints)

    first = _plain(parse_corpus(_english_jobs(), counting, tmp_path, workers=1))
    assert len(calls) == len(DATES) and len(list((tmp_path / PARSED).iterdir())) == len(DATES)
    calls.clear()
    assert _plain(parse_corpus(_english_jobs(), counting, tmp_path, workers=1)) == first and calls == []
    other = _english_jobs()
    other[0].hints.version = "20231117x"  # read with another override: another result, parsed again
    parsed = list(parse_corpus(other, counting, tmp_path, workers=1))
    assert calls == [other[0].display] and parsed[0].result.versions[0].label == "20231117x"
    assert len(list((tmp_path / PARSED).iterdir())) == len(DATES)  # only what the last build used is kept


def test_a_torn_cache_file_is_parsed_again(tmp_path):
    jobs = _english_jobs(DATES[:1])
    first = _plain(parse_corpus(jobs, parse_data, tmp_path, workers=1))
    [kept] = list((tmp_path / PARSED).iterdir())
    kept.write_bytes(kept.read_bytes()[:1000])
    assert _plain(parse_corpus(_english_jobs(DATES[:1]), parse_data, tmp_path, workers=1)) == first
    assert len(kept.read_bytes()) > 1000  # written whole again


def test_a_parse_error_in_a_worker_names_its_file_and_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe\x00not a rules text at all\x00\x00")
    jobs = _english_jobs(DATES[:4])
    jobs.insert(2, Job(str(bad), Hints(format="cr-en"), "bad.txt", "{}"))
    with pytest.raises(InputError) as caught:
        for parsed in parse_corpus(jobs, parse_data, tmp_path / "cache", workers=2):
            if parsed.result.errors:
                first = parsed.result.errors[0]
                raise InputError(first.message, path=first.path, line=first.line)
    assert caught.value.path == "bad.txt" and str(caught.value).startswith("bad.txt")


def _lineage_rows(store: Store) -> list[tuple]:
    return sorted(
        store.conn.execute(
            "SELECT old_vid, new_vid, old_rule, new_rule, kind, similarity, reference_only, editorial FROM lineage"
        ),
        key=repr,
    )


def test_lineage_diffed_in_workers_equals_lineage_diffed_here(tmp_path):
    store = Store.create(str(tmp_path / "kb.sqlite"))
    for parsed in parse_corpus(_english_jobs(), parse_data, None, workers=1):
        store.add(parsed.result, path=parsed.display, sha256=parsed.sha256)
    derive(store)  # as a build does (workers: one per core)
    store.commit()
    together = _lineage_rows(store)
    lineage.build(store, workers=1)
    store.commit()
    assert together and _lineage_rows(store) == together
    store.close()


def test_a_build_reuses_its_parsed_files_and_gives_the_same_kb(tmp_path):
    corpus = write_manifest(tmp_path / "corpus", is_seed)  # five small texts: the index builds fast
    home = Home(tmp_path / "home")
    build_kb(home, corpus)
    first = Store.open(str(home.store_path()))
    rows, versions = _lineage_rows(first), [v.as_json() for v in first.versions()]
    first.close()
    cached = sorted(p.name for p in (home.path / "cache" / PARSED).iterdir())
    assert len(cached) == len(_jobs(read_manifest(corpus))) == 5
    build_kb(home, corpus, force=True)
    again = Store.open(str(home.store_path()))
    assert _lineage_rows(again) == rows and [v.as_json() for v in again.versions()] == versions
    again.close()
    assert sorted(p.name for p in (home.path / "cache" / PARSED).iterdir()) == cached
