"""MazeBench's maze files (https://github.com/Aileen-90/MazeBench): its JSON and its directory layout.

The benchmark's JSON is ``{width, height, grid, start, goal, shortest_path, nonce}``, ``1 = wall``,
coordinates ``[row, col]``. Its own files have no outer wall ring: cells sit at even indices, so a
``9x9`` grid holds 5x5 cells with corner start/goal ``(0, 0)`` and ``(8, 8)``; an even size such as
``10x10`` holds 5x5 cells plus an uncarved last row and column. ``--sizes HxW`` therefore means a
benchmark grid of H x W, i.e. ``((H+1)//2) x ((W+1)//2)`` cells. Files with the ring (our block grid,
``(2*rows+1) x (2*cols+1)``, cells at odd indices) are read too. The envs play every benchmark file on a
ringed block grid and record where its benchmark grid lies (``maze_envs.core.benchmark_frame``).

Directory layouts read: ``<dir>/<H>x<W>/maze_<H>x<W>_<i>.json`` (written too), and the older flat
``<dir>/text2d_maze_<H>x<W>_<i>.json`` and ``<dir>/image2d_maze_<H>x<W>_<i>.json`` (the JSON beside its PNG).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .benchmark_frame import BenchmarkFrame
from .errors import MazeFormatError, brief_repr
from .jsonfiles import write_json_atomic
from .maze import Cell, Grid, Maze
from .mazefile import array01, cell_pair, checked_grid, require_key
from .solve import shortest_path, validate_path
from .validate import size as check_size

MAZEBENCH_NAME = re.compile(r"^(?:text2d_|image2d_)?maze_(\d+)x(\d+)_(\d+)\.json$")


@dataclass
class MazeBenchRecord:
    """One benchmark maze: the ``grid`` as given (with its coordinates), its path, nonce and ring form."""

    grid: Grid
    shortest_path: list[Cell]
    nonce: int
    ringed: bool
    source: str | None = None

    @property
    def frame(self) -> BenchmarkFrame:
        """Return where this record's grid lies in its ringed block grid (``to_layout``'s coordinates)."""
        return BenchmarkFrame((0, 0) if self.ringed else (1, 1), self.grid.shape)

    def to_maze(self) -> Maze:
        """Return the cell ``Maze`` of this record; raises ``MazeFormatError`` if the grid is not a cell maze."""
        blocks = self.grid.blocks
        meta = {"nonce": self.nonce, **self.frame.to_meta()}
        if self.ringed:
            return Grid(blocks, self.grid.start, self.grid.goal, meta=meta).to_maze()
        h, w = blocks.shape
        h2, w2 = h - (h % 2 == 0), w - (w % 2 == 0)
        if not (blocks[h2:, :] == 1).all() or not (blocks[:, w2:] == 1).all():
            raise MazeFormatError("an even-sized grid must have an uncarved last row/column",
                                  source=self.source, field="grid")
        core = np.ones((h2 + 2, w2 + 2), dtype=np.uint8)
        core[1:-1, 1:-1] = blocks[:h2, :w2]
        for key, cell in (("start", self.grid.start), ("goal", self.grid.goal)):
            if cell[0] % 2 or cell[1] % 2:
                raise MazeFormatError(f"{list(cell)} is not a cell (even, even)", source=self.source, field=key)
        start = (self.grid.start[0] // 2, self.grid.start[1] // 2)
        goal = (self.grid.goal[0] // 2, self.grid.goal[1] // 2)
        return Maze.from_blocks(core, start, goal, source=self.source, meta=meta)

    def to_layout(self) -> Maze | Grid:
        """Return the layout the envs play: the cell ``Maze`` when the grid is one, else the grid with the outer
        wall ring (added when the file has none); either way its meta records the benchmark frame."""
        try:
            return self.to_maze()
        except MazeFormatError:
            pass
        frame = self.frame
        blocks = self.grid.blocks if self.ringed else np.pad(self.grid.blocks, 1, constant_values=1)
        meta = {"nonce": self.nonce, **frame.to_meta()}
        return Grid(blocks, frame.from_benchmark(self.grid.start), frame.from_benchmark(self.grid.goal), meta=meta)


def _has_ring(blocks: np.ndarray, start: Cell, goal: Cell) -> bool:
    h, w = blocks.shape
    border = np.concatenate([blocks[0], blocks[-1], blocks[:, 0], blocks[:, -1]])
    odd = all(v % 2 == 1 for v in (*start, *goal))
    return bool(h % 2 and w % 2 and border.all() and odd)


def mazebench_from_dict(doc: dict[str, Any], *, source: str | None = None,
                        stored_path: bool = False) -> MazeBenchRecord:
    """Return the record of a benchmark JSON dict, checking shapes, endpoints, reachability and the path.

    ``shortest_path`` missing is computed (BFS); given, it must be a shortest start-to-goal path. With
    ``stored_path`` (MazeBench's reading, ``doc.get('shortest_path', [])``) it is kept as stored, unchecked, and
    a missing one is empty."""
    blocks = array01(require_key(doc, "grid", source), "grid", None, source)
    for key, size in (("height", blocks.shape[0]), ("width", blocks.shape[1])):
        if key in doc and (type(doc[key]) is not int or doc[key] != size):
            raise MazeFormatError(
                f"says {brief_repr(doc[key])} but the grid has {size} {'rows' if key == 'height' else 'columns'}"
                f"{'' if type(doc[key]) is int else ' (expected an integer)'}",
                source=source,
                field=key,
            )
    start = cell_pair(require_key(doc, "start", source), "start", source)
    goal = cell_pair(require_key(doc, "goal", source), "goal", source)
    grid = checked_grid(blocks, start, goal, source, {})
    path = doc.get("shortest_path")
    if stored_path:
        if not isinstance(path if path is not None else [], list):
            raise MazeFormatError("expected a list of [row, col]", source=source, field="shortest_path")
        path = [cell_pair(p, "shortest_path", source) for p in path or []]
    elif path is None:
        path = shortest_path(grid)
    else:
        if not isinstance(path, list):
            raise MazeFormatError("expected a list of [row, col]", source=source, field="shortest_path")
        path = [cell_pair(p, "shortest_path", source) for p in path]
        check = validate_path(grid, path)
        if not check.valid:
            raise MazeFormatError(check.reason, source=source, field="shortest_path")
        best = shortest_path(grid)
        if len(path) != len(best):
            raise MazeFormatError(f"has {len(path)} cells but the shortest path has {len(best)}",
                                  source=source, field="shortest_path")
    nonce = doc.get("nonce", 0)
    if not isinstance(nonce, int):
        raise MazeFormatError(f"expected an integer, got {brief_repr(nonce)}", source=source, field="nonce")
    grid.meta["nonce"] = nonce
    return MazeBenchRecord(grid, path, nonce, _has_ring(blocks, start, goal), source)


def mazebench_to_dict(maze: Maze, *, nonce: int = 0, size: tuple[int, int] | None = None) -> dict[str, Any]:
    """Return ``maze`` in the benchmark's own form (no outer ring, cells at even indices).

    ``size`` (height, width) pads an even-sized grid with an uncarved last row/column; it must
    be ``2*rows-1`` or ``2*rows`` high and likewise wide.
    """
    inner = maze.to_blocks()[1:-1, 1:-1]
    h, w = size or inner.shape
    if h not in (inner.shape[0], inner.shape[0] + 1) or w not in (inner.shape[1], inner.shape[1] + 1):
        raise MazeFormatError(f"size {h}x{w} does not fit a {maze.rows}x{maze.cols}-cell maze", field="size")
    grid = np.ones((h, w), dtype=np.uint8)
    grid[: inner.shape[0], : inner.shape[1]] = inner
    path = shortest_path(maze)
    return {
        "width": int(w), "height": int(h), "grid": grid.astype(int).tolist(),
        "start": [2 * maze.start[0], 2 * maze.start[1]], "goal": [2 * maze.goal[0], 2 * maze.goal[1]],
        "shortest_path": _expand_cell_path(path), "nonce": int(nonce),
    }


def _expand_cell_path(path: list[Cell]) -> list[list[int]]:
    """Return a cell path as benchmark-grid coordinates, including the passage blocks between cells."""
    out = [[2 * path[0][0], 2 * path[0][1]]]
    for (r0, c0), (r1, c1) in zip(path, path[1:], strict=False):
        out.append([r0 + r1, c0 + c1])
        out.append([2 * r1, 2 * c1])
    return out


def cells_for_size(height: int, width: int) -> tuple[int, int]:
    """Return the ``(rows, cols)`` of cells that a benchmark grid of ``height x width`` holds."""
    if height < 1 or width < 1:
        raise MazeFormatError(f"size must be positive, got {height}x{width}", field="size")
    return ((height + 1) // 2, (width + 1) // 2)


def parse_size(text: str) -> tuple[int, int]:
    """Return ``(height, width)`` of a size string ``"HxW"``; raises ``MazeFormatError`` naming the size."""
    return check_size(text, error=lambda message: MazeFormatError(message, field="size"))


def size_directory(mazes_dir: str | os.PathLike, size: str) -> Path:
    """Return the benchmark directory for ``size``: the exact name first, else the first (sorted) that contains it."""
    root = Path(mazes_dir)
    if not root.is_dir():
        raise MazeFormatError("mazes directory not found", source=root)
    exact = root / size
    if exact.is_dir():
        return exact
    fuzzy = sorted(p for p in root.iterdir() if p.is_dir() and size in p.name)
    if not fuzzy:
        raise MazeFormatError(f"no directory named or containing {brief_repr(size)}", source=root, field="size")
    return fuzzy[0]


def mazebench_files(mazes_dir: str | os.PathLike, size: str | None = None) -> list[Path]:
    """Return the benchmark maze files of ``size`` (or every size) ordered by size, index and name: those in
    the size directory (or every subdirectory), else the older flat files named with the size."""
    root = Path(mazes_dir)
    wanted = parse_size(size) if size else None
    flat = [p for p in root.iterdir() if p.is_file() and MAZEBENCH_NAME.match(p.name)] if root.is_dir() else []
    try:
        dirs = [size_directory(root, size)] if size else sorted(p for p in root.iterdir() if p.is_dir())
    except MazeFormatError:
        if not flat:
            raise
        dirs = []
    files = []
    for path in [p for d in dirs for p in d.iterdir()] + flat:
        m = MAZEBENCH_NAME.match(path.name)
        if m and (wanted is None or (int(m[1]), int(m[2])) == wanted):
            files.append(((int(m[1]), int(m[2]), int(m[3]), path.name), path))
    return [p for _, p in sorted(files)]


def write_mazebench(maze: Maze, mazes_dir: str | os.PathLike, index: int, *, nonce: int = 0,
                    size: tuple[int, int] | None = None) -> Path:
    """Write ``maze`` as ``<mazes_dir>/<H>x<W>/maze_<H>x<W>_<index>.json``; return the path."""
    doc = mazebench_to_dict(maze, nonce=nonce, size=size)
    tag = f"{doc['height']}x{doc['width']}"
    return write_json_atomic(Path(mazes_dir) / tag / f"maze_{tag}_{index}.json", doc)
