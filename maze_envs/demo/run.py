"""Running ``maze-envs demo``: every step in order, a skipped step noted, then the report and the summary table."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from maze_envs.core.atomic import ensure_directory
from maze_envs.core.errors import MissingExtraError
from maze_envs.core.progress import progress

from .report import write_report
from .results import DemoSettings, StepOutcome
from .steps import DEMO_STEPS


@dataclass(frozen=True)
class DemoRun:
    """What a demo wrote: each step's outcome, in order, and the report page."""

    outcomes: tuple[StepOutcome, ...]
    report: Path


def run_demo(out: str | os.PathLike, settings: DemoSettings,
             on_step: Callable[[StepOutcome], None] = lambda outcome: None) -> DemoRun:
    """Run each demo step in order under ``out`` (a step whose extra is missing is skipped with a note), calling
    ``on_step`` with each outcome as it ends, then write ``out/report.html``; return the outcomes and the report."""
    folder = ensure_directory(out, "out")
    outcomes = []
    for name, step in progress(DEMO_STEPS, desc="demo"):
        start = time.perf_counter()
        try:
            result, note = step(folder, settings), None
        except MissingExtraError as exc:
            result, note = None, f"skipped, {exc}"
        outcomes.append(StepOutcome(name, result, note, time.perf_counter() - start))
        on_step(outcomes[-1])
    return DemoRun(tuple(outcomes), write_report(folder / "report.html", outcomes, settings))


def summary_table(outcomes: Sequence[StepOutcome]) -> str:
    """Return the text table printed at the end: every step's seconds and summary, then success by env and agent."""
    lines = [f"{'step':<12} {'seconds':>7}  result", "-" * 100]
    lines += [f"{o.name:<12} {o.seconds:>7.1f}  {o.line}" for o in outcomes]
    rows = [row for o in outcomes if o.result is not None for row in getattr(o.result, "rows", ())]
    if rows:
        lines += ["", f"{'env':<26} {'agent':<9} {'reached':>8} {'success %':>9} {'mean actions':>12} {'SPL':>5} "
                      f"{'path eff.':>9}", "-" * 84]
        lines += [f"{r.env_id:<26} {r.agent:<9} {f'{r.successes}/{r.episodes}':>8} {100 * r.success_rate:>9.0f} "
                  f"{r.mean_steps:>12.1f} {'-' if r.spl is None else f'{r.spl:.2f}':>5} "
                  f"{'-' if r.path_efficiency is None else f'{r.path_efficiency.mean:.2f}':>9}" for r in rows]
    return "\n".join(lines)
