"""What the tests share besides fixtures: where things are, and the real ``rulekb`` in a subprocess.

The real rule texts are read from ``../shared`` (beside the checkout): the whole corpora, and the pieces
of the Japanese CR the ingestor tests cut from it. Fixtures live in ``conftest.py``; the stores built
from those texts in ``_kbfixtures.py``; the hand-made web KB in ``_webkb.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"  # the bundled texts the default build serves
SHARED = ROOT.parent / "shared"
CORPORA = SHARED / "corpora"
CR_EN = CORPORA / "cr-en"
CR_JA = CORPORA / "cr-ja"
DM_RULES = CORPORA / "dm-rules"
SEEDS = SHARED / "seeds"
FIXTURES = ROOT / "tests" / "fixtures"
ENGINES = FIXTURES / "engines"
ARTIFACTS = ROOT / "tests" / "artifacts"  # screenshots and reports a failing browser test leaves


def rulekb(*args: str, home: Path | None = None, check: bool = False, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run the real ``rulekb`` entry point in a subprocess (for what CliRunner cannot show: signals,
    start-up, the installed command)."""
    env = dict(os.environ)
    if home is not None:
        env["RULEKB_HOME"] = str(home)
    proc = subprocess.run([sys.executable, "-c", "from kb.cli import main; main()", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT)  # fmt: skip
    if check and proc.returncode != 0:
        raise AssertionError(f"rulekb {' '.join(map(str, args))} failed ({proc.returncode}): {proc.stderr}")
    return proc


def rulekb_json(*args: str, home: Path):
    return json.loads(rulekb(*args, "--json", home=home, check=True).stdout)
