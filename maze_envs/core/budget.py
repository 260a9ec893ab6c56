"""One memory budget for what arguments make us allocate: a request that cannot fit is refused before it starts."""

from __future__ import annotations

from .errors import MazeConfigError

MEMORY_BUDGET_BYTES = 2 << 30  # 2 GiB for any one array (a frame, a padded grid, a puzzle image)


def check_budget(arguments: str, nbytes: int, *, budget: int = MEMORY_BUDGET_BYTES) -> int:
    """Return ``nbytes`` when it fits ``budget``; else raise ``MazeConfigError`` naming the ``arguments`` that asked
    for it and the sizes in GiB."""
    if nbytes > budget:
        raise MazeConfigError(f"{arguments} would need {nbytes / 2**30:,.1f} GiB, more than the "
                              f"{budget / 2**30:g} GiB allowed for one array; choose smaller values")
    return nbytes
