"""Training levels and held-out test sets compared by layout, not by seed.

Two seeds can make the same maze (small sizes have few layouts; a level seed and a reset seed can draw the same
one), so a test set is held out only when none of its layouts is a training layout. A layout is its block grid,
start and goal; ``layout_hash`` names it. ``LevelRange`` is what a policy was trained on (``num_levels`` generator
seeds from ``start_level``, or ``0`` for unlimited: a fresh maze every reset); ``check_disjoint`` refuses a test
set that shares a layout with the training levels.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import MazeConfigError
from .maze import Grid
from .numbers import INT64_MAX
from .validate import integer


class LevelOverlapError(MazeConfigError):
    """A held-out test set shares layouts with the levels a policy was trained on."""


def layout_hash(grid: Grid) -> str:
    """Return the hex SHA-256 of ``grid``'s layout: its block shape, walls, start and goal (not its metadata), so
    equal mazes made from different seeds get the same hash."""
    digest = hashlib.sha256()
    digest.update(repr((grid.shape, tuple(grid.start), tuple(grid.goal))).encode("ascii"))
    digest.update(grid.blocks.tobytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class LevelRange:
    """The levels a policy trained on: the generator seeds ``start_level .. start_level + num_levels - 1``, or every
    generated maze when ``num_levels`` is 0 (unlimited)."""

    num_levels: int = 0
    start_level: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_levels", integer(self.num_levels, 0, INT64_MAX, name="num_levels"))
        object.__setattr__(self, "start_level", integer(self.start_level, 0, INT64_MAX, name="start_level"))

    @classmethod
    def of(cls, env_kwargs: Mapping[str, Any]) -> LevelRange:
        """Return the level range that env arguments ``env_kwargs`` train on (their ``num_levels`` and
        ``start_level``; unlimited when absent)."""
        return cls(int(env_kwargs.get("num_levels", 0) or 0), int(env_kwargs.get("start_level", 0) or 0))

    @property
    def unlimited(self) -> bool:
        """Return whether every reset draws a fresh maze (no fixed level set to enumerate)."""
        return self.num_levels == 0

    def seeds(self) -> range:
        """Return the generator seeds of the levels; raises ``MazeConfigError`` for an unlimited range."""
        if self.unlimited:
            raise MazeConfigError("an unlimited level range has no seeds to enumerate", parameter="num_levels")
        return range(self.start_level, self.start_level + self.num_levels)

    def describe(self) -> str:
        """Return the range in words, e.g. ``200 levels (seeds 0..199)``, ``1 level (seed 7)`` or ``unlimited
        levels``."""
        if self.unlimited:
            return "unlimited levels"
        if self.num_levels == 1:
            return f"1 level (seed {self.start_level})"
        return f"{self.num_levels} levels (seeds {self.start_level}..{self.start_level + self.num_levels - 1})"


def check_disjoint(training: Iterable[str], test: Mapping[int, str], *, what: str = "the training levels") -> None:
    """Raise ``LevelOverlapError`` when a test layout (``test``: seed -> ``layout_hash``) is among the ``training``
    hashes, naming how many overlap and the first test seeds; return None when the sets are disjoint."""
    seen = set(training)
    shared = [seed for seed, key in test.items() if key in seen]
    if shared:
        first = ", ".join(str(s) for s in shared[:5])
        raise LevelOverlapError(f"the test set shares {len(shared)} of its {len(test)} layouts with {what} (test "
                                f"seeds {first}{', ...' if len(shared) > 5 else ''}); draw the test set from other "
                                "seeds or train on other levels", parameter="test_seed")
