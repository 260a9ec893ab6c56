"""The one budget rule for what arguments make us do: a memory budget (the bytes of the largest array an argument
makes us allocate) and a work budget (the estimated seconds of one sample: a puzzle, an env's construction, reset
or step, on one core). A request over either is refused before it starts, naming the arguments."""

from __future__ import annotations

from .errors import MazeConfigError

MEMORY_BUDGET_BYTES = 2 << 30  # 2 GiB for any one array (a frame, a padded grid, a puzzle image, a batch)
WORK_BUDGET_SECONDS = 1.0  # estimated time of one sample (a puzzle, an env's make, reset or step) on one core
# A batch of samples done at once (a vector env's reset of every sub-env) may take longer in all, while each of its
# samples fits WORK_BUDGET_SECONDS and its arrays MEMORY_BUDGET_BYTES: 16,384 sub-envs of 10x10 cells, as the JAX
# peers run, fit; a batch that would take minutes does not.
BATCH_WORK_BUDGET_SECONDS = 10.0


def _gib(nbytes: float) -> str:
    try:
        gib = nbytes / 2**30
    except OverflowError:  # an int past the float range
        return f"about 2^{int(nbytes).bit_length() - 30:,}"
    return f"{gib:,.1f}" if gib < 1e15 else f"{gib:.2g}"


def check_budget(arguments: str, nbytes: float, *, budget: int = MEMORY_BUDGET_BYTES) -> float:
    """Return ``nbytes`` when it fits ``budget``; else raise ``MazeConfigError`` naming the ``arguments`` that asked
    for it and the sizes in GiB (``nbytes`` may be an int of any size or a float, inf and nan included)."""
    if not nbytes <= budget:
        raise MazeConfigError(f"{arguments} would need {_gib(nbytes)} GiB, more than the "
                              f"{budget / 2**30:g} GiB allowed for one array; choose smaller values")
    return nbytes


def check_work(arguments: str, seconds: float, *, budget: float = WORK_BUDGET_SECONDS, limit: str = "",
               per: str = "sample") -> float:
    """Return ``seconds`` (the estimated time of one ``per``: a sample, a reset, a step) when it fits ``budget``;
    else raise ``MazeConfigError`` naming the ``arguments`` that asked for that much work (``limit`` says what the
    largest accepted values are)."""
    if not seconds <= budget:
        shown = f"{seconds:.2g}" if seconds < 1e300 else "more than 1e300"
        raise MazeConfigError(f"{arguments} would take about {shown} s per {per} (estimated for one core), "
                              f"more than the {budget:g} s allowed; choose smaller values{limit}")
    return seconds


def check_cost(arguments: str, *, nbytes: float = 0, seconds: float = 0.0, per: str = "sample",
               limit: str = "", work_budget: float = WORK_BUDGET_SECONDS) -> None:
    """Apply the one budget rule to what ``arguments`` ask for: raise ``MazeConfigError`` naming them when the
    largest array (``nbytes``) passes ``MEMORY_BUDGET_BYTES`` or the work of one ``per`` (``seconds``) passes
    ``work_budget`` (``WORK_BUDGET_SECONDS``, or ``BATCH_WORK_BUDGET_SECONDS`` for a batch of samples); return None
    when both fit."""
    check_budget(arguments, nbytes)
    check_work(arguments, seconds, budget=work_budget, limit=limit, per=per)
