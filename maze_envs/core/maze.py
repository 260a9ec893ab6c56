"""The two layouts every consumer shares: ``Maze`` (cells and walls) and ``Grid`` (block occupancy).

Coordinates are ``(row, col)``. The block grid of a ``rows x cols`` maze has shape
``(2*rows+1, 2*cols+1)`` with cell ``(r, c)`` at block ``(2r+1, 2c+1)`` and ``1 = wall``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Iterator, Literal

import numpy as np
from scipy import sparse

from .errors import MazeFormatError, brief_repr

Cell = tuple[int, int]
Side = Literal["top", "right", "bottom", "left"]
SIDES: tuple[Side, ...] = ("top", "right", "bottom", "left")

# The move table, in action order (action i moves by MOVES[i]): its names and keyboard letters (WASD).
MOVES: tuple[Cell, ...] = ((-1, 0), (0, 1), (1, 0), (0, -1))
MOVE_NAMES: tuple[str, ...] = ("up", "right", "down", "left")
MOVE_KEYS: tuple[str, ...] = ("w", "d", "s", "a")


def move_index(a: Cell, b: Cell) -> int:
    """Return the action (index into ``MOVES``) that leads from ``a`` to the 4-adjacent ``b``; ValueError otherwise."""
    step = (b[0] - a[0], b[1] - a[1])
    if step not in MOVES:
        raise ValueError(f"{a} and {b} are not 4-adjacent")
    return MOVES.index(step)


@dataclass(frozen=True, order=True)
class Opening:
    """A gap in the outer border: ``side`` of the maze, ``index`` the column (top/bottom) or row (left/right)."""

    side: Side
    index: int

    def cell(self, rows: int, cols: int) -> Cell:
        """Return the border cell this opening leads into."""
        if self.side == "top":
            return (0, self.index)
        if self.side == "bottom":
            return (rows - 1, self.index)
        if self.side == "left":
            return (self.index, 0)
        return (self.index, cols - 1)

    def block(self, rows: int, cols: int) -> Cell:
        """Return the border block of the block grid that this opening clears."""
        if self.side == "top":
            return (0, 2 * self.index + 1)
        if self.side == "bottom":
            return (2 * rows, 2 * self.index + 1)
        if self.side == "left":
            return (2 * self.index + 1, 0)
        return (2 * self.index + 1, 2 * cols)


def _graph(num_nodes: int, a: np.ndarray, b: np.ndarray) -> sparse.csr_matrix:
    """Return the symmetric unweighted adjacency matrix with edges ``a[i] <-> b[i]``."""
    rows = np.concatenate([a, b])
    cols = np.concatenate([b, a])
    data = np.ones(rows.size, dtype=np.int8)
    return sparse.csr_matrix((data, (rows, cols)), shape=(num_nodes, num_nodes))


class _Layout:
    """Shared behaviour of layouts whose nodes sit on a 2-D lattice: indexing and passability."""

    shape: tuple[int, int]
    start: Cell
    goal: Cell

    def index(self, coord: Cell) -> int:
        """Return the flat node index of ``coord``."""
        return int(coord[0]) * self.shape[1] + int(coord[1])

    def coord(self, index: int) -> Cell:
        """Return the ``(row, col)`` of flat node ``index``."""
        return divmod(int(index), self.shape[1])

    def contains(self, coord: Cell) -> bool:
        """Return whether ``coord`` lies inside the layout."""
        return 0 <= coord[0] < self.shape[0] and 0 <= coord[1] < self.shape[1]

    def passable(self, a: Cell, b: Cell) -> bool:
        """Return whether one move leads from ``a`` to the 4-adjacent ``b``."""
        if not (self.contains(a) and self.contains(b)):
            return False
        if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
            return False
        return self._open_between(a, b)

    def _open_between(self, a: Cell, b: Cell) -> bool:
        raise NotImplementedError


@dataclass(eq=False)
class Maze(_Layout):
    """A ``rows x cols`` cell maze.

    ``vertical_walls`` has shape ``(rows, cols-1)``: ``vertical_walls[r][c]`` is the wall on the
    right of cell ``(r, c)``. ``horizontal_walls`` has shape ``(rows-1, cols)``:
    ``horizontal_walls[r][c]`` is the wall below cell ``(r, c)``. The outer border is walled
    except at ``openings``. ``meta`` holds provenance (algorithm, seed, ...).
    """

    rows: int
    cols: int
    vertical_walls: np.ndarray
    horizontal_walls: np.ndarray
    start: Cell = (0, 0)
    goal: Cell | None = None
    openings: tuple[Opening, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.rows, self.cols = int(self.rows), int(self.cols)
        if self.rows < 1 or self.cols < 1:
            raise MazeFormatError(f"size must be at least 1x1, got {self.rows}x{self.cols}", field="rows/cols")
        self.vertical_walls = _walls(self.vertical_walls, (self.rows, self.cols - 1), "vertical_walls")
        self.horizontal_walls = _walls(self.horizontal_walls, (self.rows - 1, self.cols), "horizontal_walls")
        self.start = _cell(self.start)
        self.goal = (self.rows - 1, self.cols - 1) if self.goal is None else _cell(self.goal)
        self.openings = tuple(sorted(set(self.openings)))
        for name, cell in (("start", self.start), ("goal", self.goal)):
            if not self.contains(cell):
                raise MazeFormatError(f"{brief_repr(cell)} is outside the {self.rows}x{self.cols} maze", field=name)
        for opening in self.openings:
            limit = self.cols if opening.side in ("top", "bottom") else self.rows
            if opening.side not in SIDES or not 0 <= opening.index < limit:
                raise MazeFormatError(f"{brief_repr(opening)} is outside the border", field="openings")

    @classmethod
    def closed(cls, rows: int, cols: int, **kwargs: Any) -> "Maze":
        """Return a maze with every wall standing."""
        return cls(rows, cols, np.ones((rows, cols - 1), bool), np.ones((rows - 1, cols), bool), **kwargs)

    @property
    def shape(self) -> tuple[int, int]:  # type: ignore[override]
        return (self.rows, self.cols)

    @property
    def num_cells(self) -> int:
        """Return ``rows * cols``."""
        return self.rows * self.cols

    @property
    def num_passages(self) -> int:
        """Return the number of open interior walls (``rows*cols - 1`` for a perfect maze)."""
        return int((~self.vertical_walls).sum() + (~self.horizontal_walls).sum())

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Return flat cell-index arrays ``(a, b)`` of every open passage."""
        idx = np.arange(self.num_cells).reshape(self.rows, self.cols)
        vr, vc = np.nonzero(~self.vertical_walls)
        hr, hc = np.nonzero(~self.horizontal_walls)
        a = np.concatenate([idx[vr, vc], idx[hr, hc]])
        b = np.concatenate([idx[vr, vc + 1], idx[hr + 1, hc]])
        return a, b

    @property
    def adjacency(self) -> sparse.csr_matrix:
        """Return the cell graph as a sparse adjacency matrix (recomputed after wall edits)."""
        key = (self.vertical_walls.tobytes(), self.horizontal_walls.tobytes())
        cached = self.__dict__.get("_adjacency")
        if cached is None or cached[0] != key:
            cached = (key, _graph(self.num_cells, *self.edges()))
            self.__dict__["_adjacency"] = cached
        return cached[1]

    def neighbours(self, cell: Cell) -> list[Cell]:
        """Return the cells reachable from ``cell`` in one move, in up/right/down/left order."""
        r, c = cell
        out = []
        if r > 0 and not self.horizontal_walls[r - 1, c]:
            out.append((r - 1, c))
        if c < self.cols - 1 and not self.vertical_walls[r, c]:
            out.append((r, c + 1))
        if r < self.rows - 1 and not self.horizontal_walls[r, c]:
            out.append((r + 1, c))
        if c > 0 and not self.vertical_walls[r, c - 1]:
            out.append((r, c - 1))
        return out

    def _open_between(self, a: Cell, b: Cell) -> bool:
        (r0, c0), (r1, _) = sorted((a, b))
        return not (self.vertical_walls[r0, c0] if r0 == r1 else self.horizontal_walls[r0, c0])

    def set_wall(self, a: Cell, b: Cell, closed: bool) -> None:
        """Open (``closed=False``) or close the wall between 4-adjacent cells ``a`` and ``b``."""
        (r0, c0), (r1, c1) = sorted((a, b))
        if r0 == r1 and c1 == c0 + 1:
            self.vertical_walls[r0, c0] = closed
        elif c0 == c1 and r1 == r0 + 1:
            self.horizontal_walls[r0, c0] = closed
        else:
            raise ValueError(f"cells {a} and {b} are not 4-adjacent")

    def cells(self) -> Iterator[Cell]:
        """Yield every cell in row-major order."""
        for r in range(self.rows):
            for c in range(self.cols):
                yield (r, c)

    def border_cells(self) -> list[Cell]:
        """Return every cell on the border, each once, clockwise from (0, 0)."""
        R, C = self.rows, self.cols
        ring = [(0, c) for c in range(C)] + [(r, C - 1) for r in range(1, R)]
        ring += [(R - 1, c) for c in range(C - 2, -1, -1)] + [(r, 0) for r in range(R - 2, 0, -1)]
        return list(dict.fromkeys(ring))

    def to_blocks(self) -> np.ndarray:
        """Return the block occupancy grid, shape ``(2*rows+1, 2*cols+1)``, uint8, ``1 = wall``."""
        blocks = np.ones((2 * self.rows + 1, 2 * self.cols + 1), dtype=np.uint8)
        blocks[1::2, 1::2] = 0
        blocks[1::2, 2:-1:2] = self.vertical_walls
        blocks[2:-1:2, 1::2] = self.horizontal_walls
        for opening in self.openings:
            blocks[opening.block(self.rows, self.cols)] = 0
        return blocks

    @classmethod
    def from_blocks(
        cls, blocks: np.ndarray, start: Cell = (0, 0), goal: Cell | None = None, *, source: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> "Maze":
        """Return the maze whose block grid is ``blocks``; ``start``/``goal`` are cell coordinates.

        Raises ``MazeFormatError`` when ``blocks`` is not a cell maze (even shape, open posts,
        walled cells, or border gaps that are not openings).
        """
        blocks = np.asarray(blocks)
        if blocks.ndim != 2 or blocks.shape[0] % 2 == 0 or blocks.shape[1] % 2 == 0 or min(blocks.shape) < 3:
            raise MazeFormatError(f"block grid must be 2-D with odd sides >= 3, got shape {blocks.shape}",
                                  source=source, field="grid")
        walls = blocks != 0
        if not walls[::2, ::2].all():
            raise MazeFormatError("a wall post (even, even) block is open", source=source, field="grid")
        if walls[1::2, 1::2].any():
            r, c = np.argwhere(walls[1::2, 1::2])[0]
            raise MazeFormatError(f"cell ({r}, {c}) is a wall", source=source, field="grid")
        rows, cols = blocks.shape[0] // 2, blocks.shape[1] // 2
        openings = [Opening("top", i) for i in np.flatnonzero(~walls[0, 1::2])]
        openings += [Opening("bottom", i) for i in np.flatnonzero(~walls[-1, 1::2])]
        openings += [Opening("left", i) for i in np.flatnonzero(~walls[1::2, 0])]
        openings += [Opening("right", i) for i in np.flatnonzero(~walls[1::2, -1])]
        return cls(rows, cols, walls[1::2, 2:-1:2], walls[2:-1:2, 1::2], start=start, goal=goal,
                   openings=tuple(Opening(o.side, int(o.index)) for o in openings), meta=dict(meta or {}))

    def to_grid(self) -> "Grid":
        """Return this maze as a ``Grid`` (block coordinates for start and goal)."""
        return Grid(self.to_blocks(), cell_to_block(self.start), cell_to_block(self.goal), meta=dict(self.meta))

    def copy(self, **changes: Any) -> "Maze":
        """Return an independent copy with ``changes`` (``start``, ``goal``, ``openings``, ``meta``) applied and
        checked."""
        fields = {"start": self.start, "goal": self.goal, "openings": self.openings, "meta": dict(self.meta)}
        fields.update(changes)
        return Maze(self.rows, self.cols, self.vertical_walls.copy(), self.horizontal_walls.copy(), **fields)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Maze):
            return NotImplemented
        return (self.shape == other.shape and self.start == other.start and self.goal == other.goal
                and self.openings == other.openings
                and np.array_equal(self.vertical_walls, other.vertical_walls)
                and np.array_equal(self.horizontal_walls, other.horizontal_walls))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Maze({self.rows}x{self.cols}, start={self.start}, goal={self.goal}, passages={self.num_passages})"


@dataclass(eq=False, frozen=True)
class Grid(_Layout):
    """Any block occupancy grid (``1 = wall``) with start and goal blocks; not only perfect mazes.

    A grid is immutable (its ``blocks`` array is read-only, its fields cannot be reassigned), so the
    cached ``adjacency`` always describes it; to change walls, build a new ``Grid`` from a copy.
    """

    blocks: np.ndarray
    start: Cell
    goal: Cell
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        blocks = (np.asarray(self.blocks) != 0).astype(np.uint8)
        blocks.setflags(write=False)
        object.__setattr__(self, "blocks", blocks)
        if self.blocks.ndim != 2 or self.blocks.size == 0:
            raise MazeFormatError(f"grid must be a non-empty 2-D array, got shape {self.blocks.shape}", field="grid")
        object.__setattr__(self, "start", _cell(self.start))
        object.__setattr__(self, "goal", _cell(self.goal))
        for name, cell in (("start", self.start), ("goal", self.goal)):
            if not self.contains(cell):
                raise MazeFormatError(f"{brief_repr(cell)} is outside the {self.shape[0]}x{self.shape[1]} grid",
                                      field=name)
            if self.blocks[cell]:
                raise MazeFormatError(f"{brief_repr(cell)} is a wall", field=name)

    @property
    def shape(self) -> tuple[int, int]:  # type: ignore[override]
        return (int(self.blocks.shape[0]), int(self.blocks.shape[1]))

    @cached_property
    def adjacency(self) -> sparse.csr_matrix:
        """Return the graph of free blocks as a sparse adjacency matrix."""
        free = self.blocks == 0
        idx = np.arange(free.size).reshape(free.shape)
        right = free[:, :-1] & free[:, 1:]
        down = free[:-1, :] & free[1:, :]
        a = np.concatenate([idx[:, :-1][right], idx[:-1, :][down]])
        b = np.concatenate([idx[:, 1:][right], idx[1:, :][down]])
        return _graph(free.size, a, b)

    def _open_between(self, a: Cell, b: Cell) -> bool:
        return not (self.blocks[a] or self.blocks[b])

    def is_free(self, cell: Cell) -> bool:
        """Return whether ``cell`` is inside the grid and not a wall."""
        return self.contains(cell) and not self.blocks[cell]

    def to_maze(self) -> Maze:
        """Return the cell maze of this block grid; raises ``MazeFormatError`` if it is not one."""
        for name, cell in (("start", self.start), ("goal", self.goal)):
            if cell[0] % 2 == 0 or cell[1] % 2 == 0:
                raise MazeFormatError(f"{brief_repr(cell)} is not a cell block (odd, odd)", field=name)
        return Maze.from_blocks(self.blocks, block_to_cell(self.start), block_to_cell(self.goal), meta=self.meta)

    def copy(self) -> "Grid":
        """Return an independent copy (with its own ``meta``)."""
        return Grid(self.blocks, self.start, self.goal, meta=dict(self.meta))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Grid):
            return NotImplemented
        return self.start == other.start and self.goal == other.goal and np.array_equal(self.blocks, other.blocks)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Grid({self.shape[0]}x{self.shape[1]}, start={self.start}, goal={self.goal})"


def cell_to_block(cell: Cell) -> Cell:
    """Return the block coordinate of maze cell ``cell``."""
    return (2 * cell[0] + 1, 2 * cell[1] + 1)


def block_to_cell(block: Cell) -> Cell:
    """Return the maze cell at block ``block`` (which must be odd, odd)."""
    return ((block[0] - 1) // 2, (block[1] - 1) // 2)


def as_grid(layout: "Maze | Grid") -> Grid:
    """Return ``layout`` as a ``Grid`` (a ``Maze`` is converted to its block grid)."""
    return layout.to_grid() if isinstance(layout, Maze) else layout


def _walls(value: Any, shape: tuple[int, int], name: str) -> np.ndarray:
    """Return ``value`` as a boolean wall array of ``shape``; raise ``MazeFormatError`` naming ``name`` otherwise.

    An empty array stands for a wall array with no entries (e.g. ``horizontal_walls`` of a one-row maze).
    """
    try:
        walls = np.asarray(value, dtype=bool)
    except (TypeError, ValueError) as exc:
        raise MazeFormatError(
            f"expected a {shape[0]}x{shape[1]} array of 0/1, got {brief_repr(value)}", field=name
        ) from exc
    if walls.shape != shape and not (walls.size == 0 and 0 in shape):
        raise MazeFormatError(f"expected shape {shape[0]}x{shape[1]}, got {'x'.join(map(str, walls.shape))}",
                              field=name)
    return walls.reshape(shape)


def _cell(value: Any) -> Cell:
    try:
        r, c = value
        return (int(r), int(c))
    except (TypeError, ValueError) as exc:
        raise MazeFormatError(f"expected a [row, col] pair, got {brief_repr(value)}") from exc
