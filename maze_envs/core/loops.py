"""Loop measures of a walk: how much an agent went back over cells it had already visited.

MazeEval (arXiv 2507.20395) found that agents that fail a maze mostly fail by looping, the same cell revisited ten
times or more. ``loop_measures`` reports that from the walk alone (every cell entered, in order, start first).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any, Sequence

from .maze import Cell

# A walk that did not reach the goal "ended in a loop" when its last LOOP_TAIL cells entered were all revisits.
LOOP_TAIL = 8


@dataclass(frozen=True)
class LoopMeasures:
    """``revisits`` (cells entered that had been visited before), ``revisits_per_cell`` (revisits over distinct
    cells visited), ``max_cell_visits`` (the most times one cell was entered, the start's first stay included),
    ``longest_revisit_run`` (the longest stretch of consecutive revisits) and ``ended_in_loop``."""

    revisits: int
    revisits_per_cell: float
    max_cell_visits: int
    longest_revisit_run: int
    ended_in_loop: bool

    def to_dict(self) -> dict[str, Any]:
        """Return the measures as a JSON-ready dict."""
        return asdict(self)


def loop_measures(path: Sequence[Cell], reached_goal: bool, *, tail: int = LOOP_TAIL) -> LoopMeasures:
    """Return the loop measures of ``path`` (every cell entered, start first): a walk that did not reach the goal
    ended in a loop when its final run of revisits is at least ``tail`` cells long."""
    cells = [tuple(c) for c in path]
    seen: set[Cell] = set()
    revisits = run = longest = 0
    for cell in cells:
        if cell in seen:
            revisits += 1
            run += 1
            longest = max(longest, run)
        else:
            seen.add(cell)
            run = 0
    visits = Counter(cells)
    return LoopMeasures(revisits=revisits, revisits_per_cell=round(revisits / len(seen), 4) if seen else 0.0,
                        max_cell_visits=max(visits.values(), default=0), longest_revisit_run=longest,
                        ended_in_loop=not reached_goal and run >= tail)
