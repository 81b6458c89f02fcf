"""When each line of a file was last committed (``git blame``), for dating citations."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, date, datetime


def line_dates(path: str) -> dict[int, date]:
    """Line number -> commit date of that line; empty outside a git work tree or for new files."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    try:
        proc = subprocess.run(
            ["git", "-C", folder, "blame", "--line-porcelain", "--", os.path.basename(path)],
            capture_output=True,
            text=True,
            timeout=60,
            errors="replace",
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    if proc.returncode != 0:
        return {}
    out: dict[int, date] = {}
    line = 0
    uncommitted = False
    for row in proc.stdout.splitlines():
        if row.startswith("\t"):
            continue
        parts = row.split(" ")
        if len(parts) >= 3 and len(parts[0]) == 40 and parts[1].isdigit():
            line = int(parts[2])
            uncommitted = set(parts[0]) == {"0"}
        elif parts[0] == "committer-time" and not uncommitted and line:
            out[line] = datetime.fromtimestamp(int(parts[1]), UTC).date()
    return out
