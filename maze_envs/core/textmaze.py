"""Reading mazes back from text: the grids ``render_text`` draws (replies are read by ``maze_envs.core.replies``).

Everything here works in the coordinates of the text grid itself: ``(row, col)`` of a character,
which for a rendered ``Maze`` are its block coordinates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from .errors import MazeFormatError
from .explore import explore_route
from .maze import MOVE_NAMES, MOVES, Cell, Grid, move_index
from .render import Symbols
from .solve import shortest_path


@dataclass(frozen=True)
class TextMaze:
    """A maze read from text: ``blocks`` (1 = wall or unknown), ``known`` (False where the view is masked),
    and the positions of start, goal and agent (None when not shown)."""

    blocks: np.ndarray
    known: np.ndarray
    start: Cell | None
    goal: Cell | None
    agent: Cell | None

    @property
    def position(self) -> Cell | None:
        """Return where the solver stands: the agent if shown, else the start."""
        return self.agent if self.agent is not None else self.start

    @property
    def partial(self) -> bool:
        """Return whether part of the view is masked."""
        return not bool(self.known.all())

    def grid(self, *, unknown_free: bool = False, goal: Cell | None = None) -> Grid:
        """Return a ``Grid`` from the current position to ``goal`` (default: the maze's goal).

        With ``unknown_free`` masked cells count as free (an optimistic plan), else as walls.
        """
        position, target = self.position, goal if goal is not None else self.goal
        if position is None or target is None:
            raise MazeFormatError("the text maze shows no start/agent or no goal", field="grid")
        blocks = self.blocks.copy()
        if unknown_free:
            blocks[~self.known] = 0
        return Grid(blocks, position, target)


def _grid_line(line: str, alphabet: set[str]) -> bool:
    # A row of passages only (no wall) belongs to a grid too: grids without an outer wall ring have them.
    return len(line) >= 3 and bool(line.strip()) and set(line) <= alphabet


def find_text_grid(text: str, symbols: Symbols = Symbols()) -> list[str] | None:
    """Return the rows of the last maze grid drawn in ``text`` (3+ consecutive lines of maze symbols, one with a
    wall), or None."""
    alphabet = {symbols.wall, symbols.path, symbols.start, symbols.goal, symbols.agent, symbols.masked,
                symbols.route}
    runs: list[list[str]] = []
    current: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if _grid_line(line, alphabet):
            current.append(line)
            continue
        runs.append(current)
        current = []
    runs.append(current)
    runs = [run for run in runs if len(run) >= 3 and any(symbols.wall in line for line in run)]
    return runs[-1] if runs else None


_LEGEND_ENTRY = re.compile(r"'(.)'\s*=\s*(wall|passage|path|start|goal|agent|you|unknown|not visible)\b",
                           re.IGNORECASE)
_LEGEND_FIELD = {"wall": "wall", "passage": "path", "path": "path", "start": "start", "goal": "goal",
                 "agent": "agent", "you": "agent", "unknown": "masked", "not visible": "masked"}


def legend_symbols(text: str, default: Symbols = Symbols()) -> Symbols:
    """Return the symbols a legend in ``text`` declares (``'#' = wall, '.' = passage, 'S' = start, ...``), the
    others taken from ``default``; ``default`` itself when ``text`` has no legend naming a wall."""
    found = {_LEGEND_FIELD[name.lower()]: char for char, name in _LEGEND_ENTRY.findall(text)}
    if "wall" not in found:
        return default
    # A default the legend did not name must not clash with a declared symbol (a start drawn as 'A' is no agent).
    unused = {name: "\0" for name in ("wall", "path", "start", "goal", "agent", "masked", "route")
              if name not in found and getattr(default, name) in found.values()}
    return replace(default, **found, **unused)


def parse_text_maze(text: str, symbols: Symbols = Symbols()) -> TextMaze:
    """Return the ``TextMaze`` of the last grid drawn in ``text``; raises ``MazeFormatError`` if there is none.

    Short rows (trailing spaces lost in transit) are padded with the path symbol.
    """
    rows = find_text_grid(text, symbols)
    if rows is None:
        raise MazeFormatError(f"no maze grid of '{symbols.wall}' rows found in the text", field="grid")
    width = max(len(r) for r in rows)
    chars = np.array([list(r.ljust(width, symbols.path)) for r in rows])
    known = chars != symbols.masked
    blocks = ((chars == symbols.wall) | ~known).astype(np.uint8)

    def locate(symbol: str) -> Cell | None:
        found = np.argwhere(chars == symbol)
        return (int(found[0][0]), int(found[0][1])) if len(found) else None

    return TextMaze(blocks, known, locate(symbols.start), locate(symbols.goal), locate(symbols.agent))


def image_maze(rgb: np.ndarray, height: int, width: int) -> TextMaze:
    """Return the ``TextMaze`` of a pure-colour maze picture of ``height x width`` equal cells: each cell's
    centre pixel is read, black as wall, green as start, red as goal, orange as the agent, anything else as
    passage."""
    rgb = np.asarray(rgb)
    rows = ((np.arange(height) + 0.5) * rgb.shape[0] / height).astype(int)
    cols = ((np.arange(width) + 0.5) * rgb.shape[1] / width).astype(int)
    centres = rgb[np.ix_(rows, cols)][..., :3].astype(int)  # only the centres are widened, not the whole picture
    r, g, b = centres[..., 0], centres[..., 1], centres[..., 2]
    walls = (r < 80) & (g < 80) & (b < 80)
    green = (g > 160) & (r < 100) & (b < 100)
    red = (r > 160) & (g < 100) & (b < 100)
    orange = (r > 200) & (g > 120) & (g < 200) & (b < 80)

    def locate(mask: np.ndarray) -> Cell | None:
        found = np.argwhere(mask)
        return (int(found[0][0]), int(found[0][1])) if len(found) else None

    return TextMaze(walls.astype(np.uint8), np.ones_like(walls), locate(green), locate(red), locate(orange))


def move_between(a: Cell, b: Cell) -> str:
    """Return the name of the move from ``a`` to the 4-adjacent ``b``."""
    return MOVE_NAMES[move_index(a, b)]


def format_path(path: Sequence[Cell]) -> str:
    """Return ``path`` written as ``(r,c),(r,c),...``."""
    return ",".join(f"({int(r)},{int(c)})" for r, c in path)


def plan_path(maze: TextMaze) -> list[Cell] | None:
    """Return a shortest path from the current position to the goal, masked cells counted as free; None if none."""
    if maze.position is None or maze.goal is None:
        return None
    return shortest_path(maze.grid(unknown_free=True))


def next_route(maze: TextMaze) -> list[Cell] | None:
    """Return where to go next: a shortest path to a visible goal (masked cells counted as free), else a route
    to the nearest frontier; either is cut before its first masked cell when a known part remains.

    Returns None when the position is unknown or no move leads anywhere new.
    """
    path = plan_path(maze)
    if (not path or len(path) < 2) and maze.position is not None:
        path = explore_route(maze.known, maze.blocks == 0, maze.position)
    if not path or len(path) < 2:
        return None
    unknown = [i for i, cell in enumerate(path) if not maze.known[cell]]
    return path[:max(unknown[0], 2)] if unknown else path


def wall_follow_route(maze: TextMaze, heading: int | None, max_steps: int) -> list[Cell] | None:
    """Return the route the right-hand rule walks from the agent through the known blocks of ``maze``, arriving
    with ``heading`` (an index into ``MOVES``; None: as if arriving leftward, so up is tried first): at each
    block it turns right if it can, else goes straight, else left, else back. It stops after ``max_steps`` moves
    or before a block where that choice needs a masked block or one outside the drawing.

    The rule needs only the heading as memory and, in a maze without loops, walks every corridor and so reaches
    the goal: a view with no map, told only its last move, still solves the maze. Returns None when the position
    is unknown or no move can be chosen.
    """
    here = maze.position
    if here is None:
        return None
    height, width = maze.blocks.shape
    direction = 3 if heading is None else heading
    route = [here]
    for _ in range(max_steps):
        chosen = None
        for turn in (1, 0, 3, 2):
            candidate = (direction + turn) % 4
            r, c = here[0] + MOVES[candidate][0], here[1] + MOVES[candidate][1]
            if not (0 <= r < height and 0 <= c < width) or not maze.known[r, c]:
                return route if len(route) > 1 else None
            if maze.blocks[r, c] == 0:
                chosen = candidate, (r, c)
                break
        if chosen is None:
            break
        direction, here = chosen
        route.append(here)
    return route if len(route) > 1 else None


def next_move(maze: TextMaze) -> str | None:
    """Return the first move of ``next_route`` (None when there is none)."""
    path = next_route(maze)
    return move_between(path[0], path[1]) if path else None


def route_runs(path: Sequence[Cell], limit: int) -> list[tuple[str, int]]:
    """Return ``path`` as ``(move, n)`` runs of one direction, each at most ``limit`` blocks."""
    runs: list[tuple[str, int]] = []
    for a, b in zip(path, path[1:], strict=False):
        move = move_between(a, b)
        if runs and runs[-1][0] == move and runs[-1][1] < limit:
            runs[-1] = (move, runs[-1][1] + 1)
        else:
            runs.append((move, 1))
    return runs
