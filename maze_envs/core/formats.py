"""Maze files: our versioned JSON, and the LLM maze benchmark's JSON and directory layout.

Our JSON (``"format": "maze-envs/maze"``, ``"version": 1``) stores a ``Maze`` losslessly:
``rows``, ``cols``, ``vertical_walls`` (rows x cols-1, 0/1), ``horizontal_walls`` (rows-1 x cols),
``openings`` ([{side, index}]), ``start``, ``goal`` and ``meta``. ``"maze-envs/grid"`` stores a
``Grid`` (``grid``, ``start``, ``goal``, ``meta``).

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

import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterable

import numpy as np

from .atomic import atomic_write
from .benchmark_frame import BenchmarkFrame
from .errors import MazeFormatError, brief_repr
from .maze import SIDES, Cell, Grid, Maze, Opening
from .solve import shortest_path, validate_path

MAZE_FORMAT = "maze-envs/maze"
GRID_FORMAT = "maze-envs/grid"
FORMAT_VERSION = 1
MAZEBENCH_NAME = re.compile(r"^(?:text2d_|image2d_)?maze_(\d+)x(\d+)_(\d+)\.json$")


def write_json_atomic(path: str | os.PathLike, payload: Any, *, indent: int | None = None) -> Path:
    """Write ``payload`` as JSON to ``path`` via a temporary file and a rename; return the path."""
    with atomic_write(path) as fh:
        json.dump(payload, fh, indent=indent, ensure_ascii=False)
        fh.write("\n")
    return Path(path)


def parse_json(text: str, *, source: str | os.PathLike | None = None, line: int | None = None,
               error: type[MazeFormatError] = MazeFormatError) -> Any:
    """Return the value of the JSON ``text``; raises ``error`` naming ``source`` (and ``line``) when it is not
    JSON, nests deeper than Python can follow or holds an integer past Python's digit limit."""
    where = f"line {line}: " if line is not None else ""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        place = "" if line is not None else f" at line {exc.lineno} column {exc.colno}"
        raise error(f"{where}invalid JSON{place}: {exc.msg}", source=source) from None
    except RecursionError:
        raise error(f"{where}invalid JSON: arrays or objects nested too deeply", source=source) from None
    except ValueError:
        raise error(f"{where}invalid JSON: an integer has more than {sys.get_int_max_str_digits()} digits",
                    source=source) from None


def read_json(path: str | os.PathLike, *, error: type[MazeFormatError] = MazeFormatError) -> Any:
    """Return the parsed JSON document at ``path``; raises ``error`` (``MazeFormatError`` or a subclass) naming
    the file when it is missing, unreadable, not UTF-8 or not JSON."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error("file not found", source=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"cannot read file: {_reason(exc)}", source=path) from None
    return parse_json(text, source=path, error=error)


def _reason(exc: OSError | UnicodeDecodeError) -> str:
    """Return a short reason for a read failure (not the whole undecodable byte string)."""
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    return exc.strerror or type(exc).__name__


def write_jsonl(path: str | os.PathLike, records: Iterable[Any]) -> Path:
    """Write ``records`` as JSON lines to ``path`` through a temporary file and a rename; return the path."""
    with atomic_write(path) as fh:
        for record in records:
            append_jsonl(fh, record)
    return Path(path)


def append_jsonl(fh: IO[str], record: Any) -> None:
    """Write ``record`` as one JSON line to the open text file ``fh`` and flush it (returns nothing)."""
    fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    fh.flush()


def read_jsonl(path: str | os.PathLike, *, skip_bad: bool = False) -> list[dict[str, Any]]:
    """Return the object on every non-blank line of the JSONL file at ``path``.

    Raises ``MazeFormatError`` naming the file (and line) when it cannot be read or a line is not a
    JSON object; with ``skip_bad`` such lines (e.g. one cut off by an interrupted run) are left out
    instead and a missing file reads as empty.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        if skip_bad:
            return []
        raise MazeFormatError("file not found", source=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MazeFormatError(f"cannot read file: {_reason(exc)}", source=path) from None
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = parse_json(line, source=path, line=number)
            if not isinstance(record, dict):
                raise MazeFormatError(f"line {number}: expected a JSON object, got {brief_repr(record)}", source=path)
        except MazeFormatError:
            if skip_bad:
                continue
            raise
        records.append(record)
    return records


def _require(doc: dict, key: str, source: str | None) -> Any:
    if not isinstance(doc, dict):
        raise MazeFormatError("top level must be a JSON object", source=source)
    if key not in doc:
        raise MazeFormatError("missing", source=source, field=key)
    return doc[key]


def _pair(value: Any, key: str, source: str | None) -> Cell:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)):
        raise MazeFormatError(f"expected [row, col] integers, got {brief_repr(value)}", source=source, field=key)
    return (int(value[0]), int(value[1]))


def _array01(value: Any, key: str, shape: tuple[int, int] | None, source: str | None) -> np.ndarray:
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


# --- our own format -------------------------------------------------------------------------------

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
    rows, cols = (_require(doc, k, source) for k in ("rows", "cols"))
    for key, value in (("rows", rows), ("cols", cols)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise MazeFormatError(f"expected a positive integer, got {brief_repr(value)}", source=source, field=key)
    vertical = _array01(_require(doc, "vertical_walls", source), "vertical_walls", (rows, cols - 1), source)
    horizontal = _array01(_require(doc, "horizontal_walls", source), "horizontal_walls", (rows - 1, cols), source)
    openings = []
    listed = doc.get("openings", [])
    if not isinstance(listed, list):
        raise MazeFormatError(f"expected a list of {{side, index}}, got {brief_repr(listed)}", source=source,
                              field="openings")
    for i, item in enumerate(listed):
        if not isinstance(item, dict) or item.get("side") not in SIDES or not isinstance(item.get("index"), int):
            raise MazeFormatError(f"expected {{side, index}}, got {brief_repr(item)}", source=source, field=f"openings[{i}]")
        openings.append(Opening(item["side"], item["index"]))
    meta = doc.get("meta", {})
    if not isinstance(meta, dict):
        raise MazeFormatError(f"expected an object, got {brief_repr(meta)}", source=source, field="meta")
    try:
        maze = Maze(rows, cols, vertical, horizontal, start=_pair(_require(doc, "start", source), "start", source),
                    goal=_pair(_require(doc, "goal", source), "goal", source), openings=tuple(openings), meta=meta)
    except MazeFormatError as exc:
        raise MazeFormatError(str(exc).split(": ", 1)[-1], source=source, field=exc.field) from exc
    if shortest_path(maze) is None:
        raise MazeFormatError(f"goal {list(maze.goal)} is unreachable from start {list(maze.start)}", source=source,
                              field="goal")
    return maze


def grid_from_dict(doc: dict[str, Any], *, source: str | None = None) -> Grid:
    """Return the ``Grid`` of a dict in our grid format; raises ``MazeFormatError`` naming the field."""
    _check_header(doc, GRID_FORMAT, source)
    blocks = _array01(_require(doc, "grid", source), "grid", None, source)
    return _checked_grid(blocks, _pair(_require(doc, "start", source), "start", source),
                         _pair(_require(doc, "goal", source), "goal", source), source, doc.get("meta") or {})


def _check_header(doc: dict, expected: str, source: str | None) -> None:
    fmt = _require(doc, "format", source)
    if fmt != expected:
        raise MazeFormatError(f"expected {brief_repr(expected)}, got {brief_repr(fmt)}", source=source, field="format")
    version = _require(doc, "version", source)
    if version != FORMAT_VERSION:
        raise MazeFormatError(f"unsupported version {brief_repr(version)} (this release reads {FORMAT_VERSION})",
                              source=source, field="version")


def _checked_grid(blocks: np.ndarray, start: Cell, goal: Cell, source: str | None, meta: dict) -> Grid:
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


# --- the LLM maze benchmark's format --------------------------------------------------------------

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


def mazebench_from_dict(doc: dict[str, Any], *, source: str | None = None) -> MazeBenchRecord:
    """Return the record of a benchmark JSON dict, checking shapes, endpoints, reachability and the path."""
    blocks = _array01(_require(doc, "grid", source), "grid", None, source)
    for key, size in (("height", blocks.shape[0]), ("width", blocks.shape[1])):
        if key in doc and (type(doc[key]) is not int or doc[key] != size):
            raise MazeFormatError(f"says {brief_repr(doc[key])} but the grid has {size} {'rows' if key == 'height' else 'columns'}"
                                  f"{'' if type(doc[key]) is int else ' (expected an integer)'}",
                                  source=source, field=key)
    start = _pair(_require(doc, "start", source), "start", source)
    goal = _pair(_require(doc, "goal", source), "goal", source)
    grid = _checked_grid(blocks, start, goal, source, {})
    path = doc.get("shortest_path")
    if path is None:
        path = shortest_path(grid)
    else:
        if not isinstance(path, list):
            raise MazeFormatError("expected a list of [row, col]", source=source, field="shortest_path")
        path = [_pair(p, "shortest_path", source) for p in path]
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
    for (r0, c0), (r1, c1) in zip(path, path[1:]):
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
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not match or int(match[1]) < 1 or int(match[2]) < 1:
        raise MazeFormatError(f"expected a size like 9x9, got {brief_repr(text)}", field="size")
    return int(match[1]), int(match[2])


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


# --- one entry point for every format -------------------------------------------------------------

def layout_from_dict(doc: Any, *, source: str | None = None) -> Maze | Grid:
    """Return the layout of a parsed document in any supported format (a benchmark file: see
    ``MazeBenchRecord.to_layout``)."""
    if not isinstance(doc, dict):
        raise MazeFormatError("top level must be a JSON object", source=source)
    fmt = doc.get("format")
    if fmt == MAZE_FORMAT:
        return maze_from_dict(doc, source=source)
    if fmt == GRID_FORMAT:
        return grid_from_dict(doc, source=source)
    if fmt is not None:
        raise MazeFormatError(f"unknown format {brief_repr(fmt)}", source=source, field="format")
    return mazebench_from_dict(doc, source=source).to_layout()


def load_layout(path: str | os.PathLike) -> Maze | Grid:
    """Return the maze or grid stored at ``path`` (our JSON or the benchmark's JSON)."""
    return layout_from_dict(read_json(path), source=str(path))


def save_layout(layout: Maze | Grid, path: str | os.PathLike) -> Path:
    """Write ``layout`` to ``path`` in our versioned JSON; return the path."""
    doc = maze_to_dict(layout) if isinstance(layout, Maze) else grid_to_dict(layout)
    return write_json_atomic(path, doc)
