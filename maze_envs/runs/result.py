"""``RunResult``: what every run on the engine returns (benchmark, suite, judge): its records, its summary and the
files it wrote."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class RunResult:
    """A finished (or stopped) run: every ``records`` entry, the ``summary``, and where the records
    (``results_path``), the summary (``summary_path``) and the HTML report (``report_path``) were written."""

    records: list[dict[str, Any]]
    summary: dict[str, Any]
    results_path: Path
    summary_path: Path
    report_path: Path
