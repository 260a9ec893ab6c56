"""Our versioned maze JSON, which stores a layout losslessly.

``"format": "maze-envs/maze"``, ``"version": 1`` stores a ``Maze``: ``rows``, ``cols``, ``vertical_walls``
(rows x cols-1, 0/1), ``horizontal_walls`` (rows-1 x cols), ``openings`` ([{side, index}]), ``start``, ``goal`` and
``meta``. ``"maze-envs/grid"`` stores a ``Grid`` (``grid``, ``start``, ``goal``, ``meta``). The field readers here
(``require_key``, ``cell_pair``, ``array01``, ``checked_grid``) also read MazeBench's files
(``maze_envs.core.mazebench_files``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import MazeFormatError, brief_repr
from .maze import SIDES, Cell, Grid, Maze, Opening
from .solve import shortest_path
from .validate import positive_int

MAZE_FORMAT = "maze-envs/maze"
GRID_FORMAT = "maze-envs/grid"
FORMAT_VERSION = 1


def require_key(doc: dict, key: str, source: str | None) -> Any:
    """Return ``doc[key]``; raise ``MazeFormatError`` naming ``source`` and ``key`` when ``doc`` is not an object
    or lacks the key."""
    if not isinstance(doc, dict):
        raise MazeFormatError("top level must be a JSON object", source=source)
    if key not in doc:
        raise MazeFormatError("missing", source=source, field=key)
    return doc[key]


def cell_pair(value: Any, key: str, source: str | None) -> Cell:
    """Return ``value`` as a ``(row, col)`` cell; raise ``MazeFormatError`` naming ``key`` unless it is two integers."""
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)):
        raise MazeFormatError(f"expected [row, col] integers, got {brief_repr(value)}", source=source, field=key)
    return (int(value[0]), int(value[1]))


def array01(value: Any, key: str, shape: tuple[int, int] | None, source: str | None) -> np.ndarray:
    """Return ``value`` as a 2-D uint8 array of 0/1 (of ``shape`` when given); raise ``MazeFormatError`` naming
    ``key`` otherwise."""
    try:
        arr = np.asarray(value)
    except ValueError as exc:
        raise MazeFormatError("rows have different lengths", source=source, field=key) from exc
    if shape is not None and 0 in shape and arr.size == 0:
        return np.zeros(shape, dtype=np.uint8)
    if arr.ndim != 2 or arr.dtype.kind not in "iub" or not np.isin(arr, (0, 1)).all():
        raise MazeFormatError("expected a 2-D array of 0/1 integers", source=source, field=key)
    if shape is not None and arr.shape != shape:
        raise MazeFormatError(f"expected shape {shape}, got {arr.shape}", source=source, field=key)
    return arr.astype(np.uint8)



def maze_to_dict(maze: Maze) -> dict[str, Any]:
    """Return the JSON-ready dict of ``maze`` in our versioned format."""
    return {
        "format": MAZE_FORMAT, "version": FORMAT_VERSION, "rows": maze.rows, "cols": maze.cols,
        "vertical_walls": maze.vertical_walls.astype(int).tolist(),
        "horizontal_walls": maze.horizontal_walls.astype(int).tolist(),
        "openings": [{"side": o.side, "index": o.index} for o in maze.openings],
        "start": list(maze.start), "goal": list(maze.goal), "meta": maze.meta,
    }


def grid_to_dict(grid: Grid) -> dict[str, Any]:
    """Return the JSON-ready dict of ``grid`` in our versioned format."""
    return {"format": GRID_FORMAT, "version": FORMAT_VERSION, "grid": grid.blocks.astype(int).tolist(),
            "start": list(grid.start), "goal": list(grid.goal), "meta": grid.meta}


def maze_from_dict(doc: dict[str, Any], *, source: str | None = None) -> Maze:
    """Return the ``Maze`` of a dict in our format; raises ``MazeFormatError`` naming the field."""
    _check_header(doc, MAZE_FORMAT, source)
    rows, cols = (require_key(doc, k, source) for k in ("rows", "cols"))
    for key, value in (("rows", rows), ("cols", cols)):
        positive_int(value, error=lambda message, key=key: MazeFormatError(message, source=source, field=key))
    vertical = array01(require_key(doc, "vertical_walls", source), "vertical_walls", (rows, cols - 1), source)
    horizontal = array01(require_key(doc, "horizontal_walls", source), "horizontal_walls", (rows - 1, cols), source)
    openings = []
    listed = doc.get("openings", [])
    if not isinstance(listed, list):
        raise MazeFormatError(f"expected a list of {{side, index}}, got {brief_repr(listed)}", source=source,
                              field="openings")
    for i, item in enumerate(listed):
        if not isinstance(item, dict) or item.get("side") not in SIDES or not isinstance(item.get("index"), int):
            raise MazeFormatError(
                f"expected {{side, index}}, got {brief_repr(item)}", source=source, field=f"openings[{i}]"
            )
        openings.append(Opening(item["side"], item["index"]))
    meta = doc.get("meta", {})
    if not isinstance(meta, dict):
        raise MazeFormatError(f"expected an object, got {brief_repr(meta)}", source=source, field="meta")
    try:
        start = cell_pair(require_key(doc, "start", source), "start", source)
        goal = cell_pair(require_key(doc, "goal", source), "goal", source)
        maze = Maze(rows, cols, vertical, horizontal, start=start, goal=goal, openings=tuple(openings), meta=meta)
    except MazeFormatError as exc:
        raise MazeFormatError(exc.detail, source=source, field=exc.field) from exc
    if shortest_path(maze) is None:
        raise MazeFormatError(f"goal {list(maze.goal)} is unreachable from start {list(maze.start)}", source=source,
                              field="goal")
    return maze


def grid_from_dict(doc: dict[str, Any], *, source: str | None = None) -> Grid:
    """Return the ``Grid`` of a dict in our grid format; raises ``MazeFormatError`` naming the field."""
    _check_header(doc, GRID_FORMAT, source)
    blocks = array01(require_key(doc, "grid", source), "grid", None, source)
    return checked_grid(blocks, cell_pair(require_key(doc, "start", source), "start", source),
                         cell_pair(require_key(doc, "goal", source), "goal", source), source, doc.get("meta") or {})


def _check_header(doc: dict, expected: str, source: str | None) -> None:
    fmt = require_key(doc, "format", source)
    if fmt != expected:
        raise MazeFormatError(f"expected {brief_repr(expected)}, got {brief_repr(fmt)}", source=source, field="format")
    version = require_key(doc, "version", source)
    if version != FORMAT_VERSION:
        raise MazeFormatError(f"unsupported version {brief_repr(version)} (this release reads {FORMAT_VERSION})",
                              source=source, field="version")


def checked_grid(blocks: np.ndarray, start: Cell, goal: Cell, source: str | None, meta: dict) -> Grid:
    """Return the ``Grid`` of ``blocks`` from ``start`` to ``goal``; raise ``MazeFormatError`` naming the field when an
    endpoint is off the grid or in a wall, or the goal is unreachable."""
    for key, cell in (("start", start), ("goal", goal)):
        if not (0 <= cell[0] < blocks.shape[0] and 0 <= cell[1] < blocks.shape[1]):
            raise MazeFormatError(f"{list(cell)} is outside the {blocks.shape[0]}x{blocks.shape[1]} grid",
                                  source=source, field=key)
        if blocks[cell]:
            raise MazeFormatError(f"{list(cell)} is inside a wall", source=source, field=key)
    grid = Grid(blocks, start, goal, meta=meta)
    if shortest_path(grid) is None:
        raise MazeFormatError(f"goal {list(goal)} is unreachable from start {list(start)}", source=source,
                              field="goal")
    return grid
