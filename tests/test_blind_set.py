"""The blind evaluation set is frozen: its bytes match the hash recorded when it was written."""

from __future__ import annotations

import hashlib

from tests.helpers import ROOT

BLIND = ROOT / "bench" / "blind"


def test_the_blind_set_is_byte_identical_to_its_recorded_hash():
    recorded = dict(line.split()[::-1] for line in (BLIND / "SHA256SUMS").read_text().splitlines())
    assert hashlib.sha256((BLIND / "queries.tsv").read_bytes()).hexdigest() == recorded["queries.tsv"]


def test_the_blind_set_has_every_kind_it_promises():
    rows = [r.split("\t") for r in (BLIND / "queries.tsv").read_text(encoding="utf-8").splitlines()]
    kinds = [r[0] for r in rows if r[0] and not r[0].startswith("#")]
    assert len(kinds) >= 300 and kinds.count("question") >= 60 and kinds.count("multi") >= 40
    assert all(len(r) >= 3 for r in rows if r[0] and not r[0].startswith("#"))
