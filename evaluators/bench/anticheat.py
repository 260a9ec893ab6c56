"""Anti-cheat presentations: each trial shows the maze under a random symmetry and symbol set, with a nonce.

A ``Presentation`` is one of the seven non-identity symmetries of the square (rotations by 90, 180, 270
degrees, the two mirror images and the two diagonal reflections), a symbol set (core ``Symbols``) and a random hex
``nonce`` printed in the prompt. The model is graded on exactly the grid it was shown; its answer is mapped back to the
published frame only to report it and to compare presentations. A path memorised from a published maze therefore does
not fit the grid shown, and replies cached against a published prompt never match.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from maze_envs.core.maze import Cell, Grid
from maze_envs.core.render import Symbols, render_text

# Name -> (transpose first, flip rows, flip columns): shown = flips(transpose?(original)).
SYMMETRIES: dict[str, tuple[bool, bool, bool]] = {
    "identity": (False, False, False),
    "rot90": (True, False, True),        # clockwise
    "rot180": (False, True, True),
    "rot270": (True, True, False),
    "flip_rows": (False, True, False),   # upside down
    "flip_cols": (False, False, True),   # mirror image
    "transpose": (True, False, False),
    "anti_transpose": (True, True, True),
}
NON_IDENTITY = tuple(name for name in SYMMETRIES if name != "identity")


# The symbol sets a presentation draws with (wall, passage, start, goal; the core's other symbols unused).
SYMBOL_SETS: tuple[Symbols, ...] = (
    Symbols("1", "0", "S", "G"),
    Symbols("#", ".", "S", "G"),
    Symbols("X", "_", "B", "E"),
    Symbols("@", "-", "s", "e"),
    Symbols("W", "o", "P", "Q"),
    Symbols("%", "+", "I", "O"),
)
SHOWN_SYMBOLS = ("wall", "path", "start", "goal")


@dataclass(frozen=True)
class Presentation:
    """How one trial shows a maze: the ``symmetry`` name, the ``symbols`` and the ``nonce``."""

    symmetry: str
    symbols: Symbols
    nonce: str

    def to_dict(self) -> dict:
        """Return the presentation as a JSON-ready dict."""
        symbols = {name: getattr(self.symbols, name) for name in SHOWN_SYMBOLS}
        return {"symmetry": self.symmetry, "symbols": symbols, "nonce": self.nonce}

    def shown_shape(self, shape: tuple[int, int]) -> tuple[int, int]:
        """Return the (height, width) of a grid of ``shape`` once shown."""
        return (shape[1], shape[0]) if SYMMETRIES[self.symmetry][0] else shape

    def show_grid(self, grid: np.ndarray) -> np.ndarray:
        """Return ``grid`` as shown under this presentation's symmetry."""
        transpose, flip_rows, flip_cols = SYMMETRIES[self.symmetry]
        out = grid.T if transpose else grid
        if flip_rows:
            out = out[::-1, :]
        if flip_cols:
            out = out[:, ::-1]
        return np.ascontiguousarray(out)

    def show_cell(self, cell: Cell, shape: tuple[int, int]) -> Cell:
        """Return where the cell ``(row, col)`` of a grid of ``shape`` appears once shown."""
        transpose, flip_rows, flip_cols = SYMMETRIES[self.symmetry]
        r, c = int(cell[0]), int(cell[1])
        h, w = shape
        if transpose:
            r, c, h, w = c, r, w, h
        if flip_rows:
            r = h - 1 - r
        if flip_cols:
            c = w - 1 - c
        return (r, c)

    def original_cell(self, cell: Cell, shape: tuple[int, int]) -> Cell:
        """Return the cell of the original grid of ``shape`` that is shown at ``cell`` (the inverse of
        ``show_cell``; any integer pair maps, in bounds or not)."""
        transpose, flip_rows, flip_cols = SYMMETRIES[self.symmetry]
        r, c = int(cell[0]), int(cell[1])
        h, w = self.shown_shape(shape)
        if flip_cols:
            c = w - 1 - c
        if flip_rows:
            r = h - 1 - r
        return (c, r) if transpose else (r, c)

    def original_path(self, path: Sequence[Cell], shape: tuple[int, int]) -> list[Cell]:
        """Return a path given on the shown grid in the original grid's coordinates."""
        return [self.original_cell(cell, shape) for cell in path]

    def legend(self) -> str:
        """Return the legend line of a prompt, e.g. ``'#' = wall, '.' = passage, 'S' = start, 'G' = goal``."""
        return self.symbols.legend(SHOWN_SYMBOLS)

    def draw(self, shown: Grid) -> str:
        """Return the ``shown`` grid (already transformed) as text rows in this presentation's symbols."""
        return render_text(shown, symbols=self.symbols)


def identity_presentation(symbols: Symbols = SYMBOL_SETS[0]) -> Presentation:
    """Return the presentation that shows the published maze as it is (anti-cheat off)."""
    return Presentation("identity", symbols, "")


def choose_presentation(rng: np.random.Generator) -> Presentation:
    """Return a random non-identity presentation, a random symbol set and a 12-hex-digit nonce."""
    symmetry = NON_IDENTITY[int(rng.integers(len(NON_IDENTITY)))]
    symbols = SYMBOL_SETS[int(rng.integers(len(SYMBOL_SETS)))]
    nonce = "".join(f"{int(b):02x}" for b in rng.integers(0, 256, size=6))
    return Presentation(symmetry, symbols, nonce)


def consistency(answers: Sequence[Sequence[Cell] | None]) -> float | None:
    """Return the share of answers (paths in the original frame; None = no path) equal to the most common one,
    or None when there are fewer than two. 1.0 means every presentation got the same answer."""
    if len(answers) < 2:
        return None
    keys = Counter(tuple(map(tuple, a)) if a else () for a in answers)
    return round(keys.most_common(1)[0][1] / len(answers), 4)
