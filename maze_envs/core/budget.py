"""Budgets for what arguments make us do: one for memory (what an argument makes us allocate) and one for work
(the estimated seconds one sample takes); a request over either is refused before it starts, naming the
arguments."""

from __future__ import annotations

from .errors import MazeConfigError

MEMORY_BUDGET_BYTES = 2 << 30  # 2 GiB for any one array (a frame, a padded grid, a puzzle image)
WORK_BUDGET_SECONDS = 1.0  # estimated time of one sample (a puzzle and what it needs) on one core


def check_budget(arguments: str, nbytes: int, *, budget: int = MEMORY_BUDGET_BYTES) -> int:
    """Return ``nbytes`` when it fits ``budget``; else raise ``MazeConfigError`` naming the ``arguments`` that asked
    for it and the sizes in GiB."""
    if nbytes > budget:
        raise MazeConfigError(f"{arguments} would need {nbytes / 2**30:,.1f} GiB, more than the "
                              f"{budget / 2**30:g} GiB allowed for one array; choose smaller values")
    return nbytes


def check_work(arguments: str, seconds: float, *, budget: float = WORK_BUDGET_SECONDS, limit: str = "") -> float:
    """Return ``seconds`` (a sample's estimated time) when it fits ``budget``; else raise ``MazeConfigError`` naming
    the ``arguments`` that asked for that much work (``limit`` says what the largest accepted values are)."""
    if seconds > budget:
        raise MazeConfigError(f"{arguments} would take about {seconds:.2g} s per sample (estimated for one core), "
                              f"more than the {budget:g} s allowed; choose smaller values{limit}")
    return seconds
