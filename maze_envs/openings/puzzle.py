"""The labelled-openings puzzle: a perfect maze with one connected pair of border openings and decoys.

Procedure (the labelled-openings dataset's generation procedure):

1. A recursive-backtracker (DFS) maze grown from cell (0, 0).
2. The connected pair: every pair of eligible border cells (at least ``corner_buffer`` cells
   from each corner) whose path holds at least ``rows*cols/3`` cells is a candidate; one is
   drawn uniformly (``opposite_sides`` keeps only pairs on opposite sides).
3. Decoys: eligible border cells off the main path, in random order, each grow a region along
   open passages (never into the main path or an earlier decoy) of ``3 .. max(12, rows*cols*3/5)``
   cells, which is then walled off. Pockets that walling off cuts from the main region are joined
   back to it through one opened wall each where they border it (pockets enclosed by decoys stay
   closed), so the main region stays a tree and the main path is unchanged.
4. Labels ``A, B, C, ...`` go to the openings after a uniform shuffle.
5. Validation: the pair must be connected with a long enough path (else the maze is redrawn);
   a decoy that reaches the pair makes the sample drop its decoys rather than be discarded.
6. Position balance (on by default, off for ``opposite_sides``): long paths join far-apart
   openings more often, so steps 2-3 alone make the pair guessable from where the openings
   sit (measured: opposite sides 33% vs 27% for a random pair of the same openings; same side
   8% vs 20%). A finished sample is kept with ``balance_acceptance``, which evens this out.

Path lengths count cells, both ends included (``pair_path_lengths``).
"""

from __future__ import annotations

import itertools
import math
import string
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Sequence

import numpy as np
from scipy.sparse import csgraph

from maze_envs.core.budget import WORK_BUDGET_SECONDS, check_work
from maze_envs.core.errors import MazeConfigError, MazeEnvsError, brief_repr
from maze_envs.core.generators import Seed, as_rng, dfs
from maze_envs.core.maze import MOVES, Cell, Maze, Opening
from maze_envs.core.solve import pair_path_lengths, shortest_path

LABELS = string.ascii_uppercase
OPPOSITE = {"top": "bottom", "bottom": "top", "left": "right", "right": "left"}
MIN_DECOY_CELLS = 3
POSITION_BALANCE = 0.2
PRIOR_MAZES = 48
MAX_BALANCE_DRAWS = 200
TYPICAL_MAZES = 8  # mazes a sample draws besides the prior's, counted by ``sample_seconds`` (measured mean: 2-4)
SECONDS_PER_CELL = 5e-7  # growing one cell of a DFS maze, on one core
SECONDS_PER_PAIR_STEP = 2e-8  # one ancestor step of one pair of border cells in the pair search, on one core


class OpeningsError(MazeEnvsError):
    """A puzzle cannot be made as asked (no qualifying pair, or too few openings fit); the message says why."""


@dataclass(frozen=True)
class LabelledOpening:
    """One opening of a puzzle with its letter and whether it belongs to the connected pair."""

    label: str
    opening: Opening
    is_connected: bool


@dataclass
class OpeningsPuzzle:
    """A labelled-openings sample: the maze (``maze.openings`` holds every opening), labels, path and decoys.

    ``labels`` is in label order (A, B, ...). ``path`` runs between the connected pair's cells,
    both included. ``decoys`` maps each decoy label to the cells of its walled-off region.
    """

    maze: Maze
    labels: tuple[LabelledOpening, ...]
    path: list[Cell]
    decoys: dict[str, list[Cell]] = field(default_factory=dict)

    @property
    def num_openings(self) -> int:
        """Return the number of openings."""
        return len(self.labels)

    @property
    def connected_pair(self) -> tuple[str, str]:
        """Return the two connected labels in alphabetical order."""
        a, b = (lo.label for lo in self.labels if lo.is_connected)
        return (a, b)

    @property
    def answer(self) -> str:
        """Return the answer string, e.g. ``"B-C"``."""
        return "-".join(self.connected_pair)

    @property
    def path_length(self) -> int:
        """Return the number of cells on the path between the connected pair."""
        return len(self.path)

    @property
    def difficulty(self) -> str:
        """Return ``easy``, ``medium`` or ``hard`` (see ``classify_difficulty``)."""
        return classify_difficulty(self.maze.rows, self.maze.cols, self.num_openings)

    def opening(self, label: str) -> Opening:
        """Return the opening carrying ``label``; raises ``KeyError`` if there is none."""
        for lo in self.labels:
            if lo.label == label:
                return lo.opening
        raise KeyError(label)


@dataclass(frozen=True)
class OpeningsCheck:
    """Outcome of ``validate_openings``: pair reachability, path length and decoys that leak to the pair."""

    pair_connected: bool
    path_length: int
    min_path_length: float
    leaking_decoys: tuple[str, ...]

    @property
    def pair_ok(self) -> bool:
        """Return whether the connected pair is reachable with a long enough path."""
        return self.pair_connected and self.path_length >= self.min_path_length

    @property
    def ok(self) -> bool:
        """Return whether every check passes."""
        return self.pair_ok and not self.leaking_decoys


def classify_difficulty(rows: int, cols: int, num_openings: int) -> str:
    """Return ``easy`` (rows*cols <= 100 and <= 3 openings), ``medium`` (<= 256 and <= 5) or ``hard``."""
    cells = rows * cols
    if cells <= 100 and num_openings <= 3:
        return "easy"
    if cells <= 256 and num_openings <= 5:
        return "medium"
    return "hard"


def min_path_length(rows: int, cols: int) -> float:
    """Return the minimum number of cells on the connected pair's path: ``rows*cols/3``."""
    return rows * cols / 3


def max_decoy_cells(rows: int, cols: int) -> int:
    """Return the largest decoy region in cells: ``max(12, rows*cols*3/5)``."""
    return max(12, rows * cols * 3 // 5)


def eligible_openings(rows: int, cols: int, corner_buffer: int = 1) -> list[Opening]:
    """Return every opening at least ``corner_buffer`` cells from each corner, side by side (top, right, bottom,
    left)."""
    out = [Opening("top", i) for i in range(corner_buffer, cols - corner_buffer)]
    out += [Opening("right", i) for i in range(corner_buffer, rows - corner_buffer)]
    out += [Opening("bottom", i) for i in range(corner_buffer, cols - corner_buffer)]
    out += [Opening("left", i) for i in range(corner_buffer, rows - corner_buffer)]
    return out


def check_request(rows: int, cols: int, num_openings: int, corner_buffer: int = 1) -> None:
    """Raise ``OpeningsError`` when a ``rows x cols`` grid cannot hold ``num_openings`` openings."""
    if corner_buffer < 1:
        raise MazeConfigError(f"corner_buffer must be at least 1, got {corner_buffer}")
    if not 2 <= num_openings <= len(LABELS):
        raise MazeConfigError(f"num_openings must be in [2, {len(LABELS)}], got {brief_repr(num_openings)}")
    if rows < 2 * corner_buffer + 1 or cols < 2 * corner_buffer + 1:
        raise OpeningsError(f"a {rows}x{cols} grid is too small for openings {corner_buffer} cells from "
                            f"each corner (need at least {2 * corner_buffer + 1} cells a side)")
    eligible = len(eligible_openings(rows, cols, corner_buffer))
    if num_openings > eligible:
        raise OpeningsError(f"a {rows}x{cols} grid has {eligible} border cells for openings, "
                            f"fewer than the {num_openings} asked")
    check_work("rows/cols", sample_seconds(rows, cols, corner_buffer),
               limit=f" (at most {largest_square()}x{largest_square()} for a square grid)")


def sample_seconds(rows: int, cols: int, corner_buffer: int = 1) -> float:
    """Return the estimated seconds of one ``rows x cols`` sample on one core, the first of its size included:
    every maze drawn (``PRIOR_MAZES`` for ``pair_prior``, about ``TYPICAL_MAZES`` for the sample) is grown cell by
    cell and searched for the path lengths between all pairs of eligible border cells (``qualifying_pairs``)."""
    cells = rows * cols
    border = len(eligible_openings(rows, cols, corner_buffer))
    pair_steps = border * (border - 1) // 2 * cells.bit_length()
    return (PRIOR_MAZES + TYPICAL_MAZES) * (cells * SECONDS_PER_CELL + pair_steps * SECONDS_PER_PAIR_STEP)


@lru_cache(maxsize=1)
def largest_square() -> int:
    """Return the side of the largest square grid whose samples fit ``WORK_BUDGET_SECONDS``."""
    side = 3
    while sample_seconds(side + 1, side + 1) <= WORK_BUDGET_SECONDS:
        side += 1
    return side


def qualifying_pairs(maze: Maze, candidates: Sequence[Opening]) -> np.ndarray:
    """Return the symmetric boolean matrix of candidate pairs whose path holds >= rows*cols/3 cells (diagonal False)."""
    cells = [o.cell(maze.rows, maze.cols) for o in candidates]
    ok = pair_path_lengths(maze, cells) >= min_path_length(maze.rows, maze.cols)
    np.fill_diagonal(ok, False)
    return ok


def select_pair(candidates: Sequence[Opening], qualifying: np.ndarray, rng: np.random.Generator, *,
                opposite_sides: bool = False) -> tuple[int, int] | None:
    """Return the indices of a uniform random qualifying pair of ``candidates``; None if no pair qualifies."""
    ok = np.triu(qualifying, 1)
    if opposite_sides:
        sides = np.array([o.side for o in candidates])
        opposite = np.array([OPPOSITE[s] for s in sides])
        ok &= sides[None, :] == opposite[:, None]
    first, second = np.nonzero(ok)
    if first.size == 0:
        return None
    k = int(rng.integers(first.size))
    return int(first[k]), int(second[k])


def grow_region(maze: Maze, seed_cell: Cell, blocked: np.ndarray, size: int, rng: np.random.Generator) -> list[Cell]:
    """Return up to ``size`` cells grown from ``seed_cell`` along open passages, in random frontier order, avoiding
    ``blocked``."""
    region = [seed_cell]
    seen = {seed_cell}
    frontier = [nb for nb in maze.neighbours(seed_cell) if not blocked[nb]]
    seen.update(frontier)
    while frontier and len(region) < size:
        k = int(rng.integers(len(frontier)))
        frontier[k], frontier[-1] = frontier[-1], frontier[k]
        cell = frontier.pop()
        region.append(cell)
        for nb in maze.neighbours(cell):
            if nb not in seen and not blocked[nb]:
                seen.add(nb)
                frontier.append(nb)
    return region


def wall_off(maze: Maze, region: Sequence[Cell]) -> None:
    """Close every open wall between ``region`` and the rest of ``maze`` (in place)."""
    inside = set(region)
    for cell in region:
        for nb in maze.neighbours(cell):
            if nb not in inside:
                maze.set_wall(cell, nb, closed=True)


def rejoin_orphans(maze: Maze, main_cell: Cell, decoy_mask: np.ndarray, rng: np.random.Generator) -> None:
    """Open one wall per region cut off from ``main_cell``'s region (never into a decoy), until none is left that can
    join."""
    while True:
        _, comp = csgraph.connected_components(maze.adjacency, directed=False)
        comp = comp.reshape(maze.shape)
        main = comp[main_cell]
        orphan = (comp != main) & ~decoy_mask
        if not orphan.any():
            return
        links: dict[int, list[tuple[Cell, Cell]]] = {}
        for r, c in zip(*np.nonzero(orphan), strict=False):
            for dr, dc in MOVES:
                nb = (r + dr, c + dc)
                if maze.contains(nb) and comp[nb] == main:
                    links.setdefault(int(comp[r, c]), []).append(((int(r), int(c)), nb))
        if not links:
            return
        for key in sorted(links):
            a, b = links[key][int(rng.integers(len(links[key])))]
            maze.set_wall(a, b, closed=False)


def place_decoys(maze: Maze, candidates: Sequence[Opening], path: Sequence[Cell], count: int,
                 rng: np.random.Generator) -> list[tuple[Opening, list[Cell]]]:
    """Place up to ``count`` decoys (walling their regions off in ``maze``); return each opening with its region.

    Pockets cut off by the walling are left for ``rejoin_orphans``.

    Candidates are tried in uniform random order; one on the main path or inside an earlier
    decoy is skipped, as is one whose region grows to fewer than three cells.
    """
    blocked = np.zeros(maze.shape, dtype=bool)
    for cell in path:
        blocked[cell] = True
    decoys: list[tuple[Opening, list[Cell]]] = []
    largest = max_decoy_cells(maze.rows, maze.cols)
    for k in rng.permutation(len(candidates)).tolist():
        if len(decoys) == count:
            break
        opening = candidates[k]
        cell = opening.cell(maze.rows, maze.cols)
        if blocked[cell]:
            continue
        cap = min(largest, int((~blocked).sum()) // (count - len(decoys)))
        if cap < MIN_DECOY_CELLS:
            break
        region = grow_region(maze, cell, blocked, int(rng.integers(MIN_DECOY_CELLS, cap + 1)), rng)
        if len(region) < MIN_DECOY_CELLS:
            continue
        wall_off(maze, region)
        for c in region:
            blocked[c] = True
        decoys.append((opening, region))
    return decoys


def _decoy_mask(maze: Maze, decoys: Sequence[tuple[Opening, list[Cell]]]) -> np.ndarray:
    mask = np.zeros(maze.shape, dtype=bool)
    for _, region in decoys:
        for cell in region:
            mask[cell] = True
    return mask


def assign_labels(pair: tuple[Opening, Opening], decoys: Sequence[tuple[Opening, list[Cell]]],
                  rng: np.random.Generator) -> tuple[tuple[LabelledOpening, ...], dict[str, list[Cell]]]:
    """Return the openings labelled A, B, ... after a uniform shuffle, and the decoy regions keyed by label."""
    entries: list[tuple[Opening, list[Cell] | None]] = [(pair[0], None), (pair[1], None)] + list(decoys)
    order = rng.permutation(len(entries)).tolist()
    labels, regions = [], {}
    for letter, k in zip(LABELS, order, strict=False):
        opening, region = entries[k]
        labels.append(LabelledOpening(letter, opening, region is None))
        if region is not None:
            regions[letter] = [tuple(int(v) for v in c) for c in region]
    return tuple(labels), regions


def validate_openings(puzzle: OpeningsPuzzle) -> OpeningsCheck:
    """Return the BFS checks of a puzzle: pair reachable, path long enough, no decoy reaching the pair."""
    maze = puzzle.maze
    cells = [lo.opening.cell(maze.rows, maze.cols) for lo in puzzle.labels]
    lengths = pair_path_lengths(maze, cells)
    pair = [i for i, lo in enumerate(puzzle.labels) if lo.is_connected]
    length = int(lengths[pair[0], pair[1]])
    leaking = tuple(lo.label for i, lo in enumerate(puzzle.labels)
                    if not lo.is_connected and any(lengths[i, j] for j in pair))
    return OpeningsCheck(length > 0, length, min_path_length(maze.rows, maze.cols), leaking)


def drop_decoys(puzzle: OpeningsPuzzle, rng: Seed = None) -> OpeningsPuzzle:
    """Return the puzzle with its decoys removed and the connected pair relabelled (A, B after a shuffle)."""
    rng = as_rng(rng)
    pair = tuple(lo.opening for lo in puzzle.labels if lo.is_connected)
    labels, _ = assign_labels(pair, [], rng)  # type: ignore[arg-type]
    maze = puzzle.maze.copy(openings=tuple(lo.opening for lo in labels),
                            meta=dict(puzzle.maze.meta, decoys_dropped=True))
    return replace(puzzle, maze=maze, labels=labels, decoys={})


@lru_cache(maxsize=1024)
def pair_prior(rows: int, cols: int, corner_buffer: int = 1) -> np.ndarray:
    """Return how likely each pair of eligible openings is to be picked by the pair step, read-only.

    Averaged over ``PRIOR_MAZES`` DFS mazes drawn from a seed fixed by the size (the same table on
    every run): entry ``[i, j]`` is the mean of ``1/(number of qualifying pairs)`` where pair
    ``(i, j)`` qualifies, plus a small floor.
    """
    rng = np.random.default_rng([rows, cols, corner_buffer])
    candidates = eligible_openings(rows, cols, corner_buffer)
    prior = np.zeros((len(candidates), len(candidates)))
    for _ in range(PRIOR_MAZES):
        qualifying = qualifying_pairs(dfs(rows, cols, rng, (0, 0)), candidates)
        if qualifying.any():
            prior += qualifying / qualifying.sum()
    prior = prior / PRIOR_MAZES + 1e-9
    prior.flags.writeable = False
    return prior


def balance_acceptance(rows: int, cols: int, pair: tuple[Opening, Opening], openings: Sequence[Opening],
                       corner_buffer: int = 1) -> float:
    """Return the probability of keeping a sample whose ``openings`` include the connected ``pair``.

    Long paths join far-apart openings more often, so the pair step alone favours far and
    opposite-side pairs over the decoys' pairs. Keeping a sample with probability
    ``min(1, POSITION_BALANCE * mean prior of all its opening pairs / prior of the connected pair)``
    evens that out (``pair_prior``); measured over many seeds the pair's side relation and
    spread then match those of a random pair of the same puzzle's openings.
    """
    index = {o: i for i, o in enumerate(eligible_openings(rows, cols, corner_buffer))}
    prior = pair_prior(rows, cols, corner_buffer)
    ids = [index[o] for o in openings]
    mean = float(np.mean([prior[i, j] for i, j in itertools.combinations(ids, 2)]))
    return min(1.0, POSITION_BALANCE * mean / float(prior[index[pair[0]], index[pair[1]]]))


def generate_openings(rows: int, cols: int, num_openings: int, seed: Seed = None, *, opposite_sides: bool = False,
                      balance: bool = True, corner_buffer: int = 1, max_attempts: int = 20) -> OpeningsPuzzle:
    """Return a validated labelled-openings puzzle of ``num_openings`` openings on a ``rows x cols`` DFS maze.

    A maze without a qualifying pair, or on which too few decoys fit, is redrawn up to
    ``max_attempts`` times before ``OpeningsError`` is raised. With ``balance`` (ignored with
    ``opposite_sides``), finished samples are kept with ``balance_acceptance`` so the pair's
    position gives nothing away (at most ``MAX_BALANCE_DRAWS`` draws; the last one is kept).
    ``balance=False`` is the spec's procedure as written. Same seed, same puzzle.
    """
    rows, cols, num_openings = int(rows), int(cols), int(num_openings)
    check_request(rows, cols, num_openings, corner_buffer)
    rng = as_rng(seed)
    candidates = eligible_openings(rows, cols, corner_buffer)
    shortfall = ""
    failures = draws = 0
    while failures < max_attempts:
        failures += 1
        maze = dfs(rows, cols, rng, (0, 0))
        qualifying = qualifying_pairs(maze, candidates)
        chosen = select_pair(candidates, qualifying, rng, opposite_sides=opposite_sides)
        if chosen is None:
            shortfall = (f"no pair of border cells{' on opposite sides' if opposite_sides else ''} has a path of "
                         f">= {math.ceil(min_path_length(rows, cols))} cells")
            continue
        pair = (candidates[chosen[0]], candidates[chosen[1]])
        path = shortest_path(maze, pair[0].cell(rows, cols), pair[1].cell(rows, cols))
        decoys = place_decoys(maze, candidates, path, num_openings - 2, rng)
        if len(decoys) < num_openings - 2:
            shortfall = f"only {len(decoys) + 2} of {num_openings} openings fit"
            continue
        failures -= 1
        if balance and not opposite_sides and draws < MAX_BALANCE_DRAWS:
            draws += 1
            openings = list(pair) + [o for o, _ in decoys]
            if rng.random() >= balance_acceptance(rows, cols, pair, openings, corner_buffer):
                continue
        rejoin_orphans(maze, path[0], _decoy_mask(maze, decoys), rng)
        labels, regions = assign_labels(pair, decoys, rng)
        meta = {"algorithm": "dfs", "puzzle": "openings"}
        if isinstance(seed, (int, np.integer)):
            meta["seed"] = int(seed)
        maze = maze.copy(openings=tuple(lo.opening for lo in labels), start=path[0], goal=path[-1], meta=meta)
        puzzle = OpeningsPuzzle(maze, labels, path, regions)
        check = validate_openings(puzzle)
        if not check.pair_ok:
            failures += 1
            shortfall = f"the connected pair failed validation ({check})"
            continue
        return drop_decoys(puzzle, rng) if check.leaking_decoys else puzzle
    raise OpeningsError(f"cannot make a {rows}x{cols} puzzle with {num_openings} openings after "
                        f"{max_attempts} mazes: {shortfall}")


def connected_labels(maze: Maze, openings: dict[str, Opening]) -> list[tuple[str, str]]:
    """Return every pair of labels (alphabetical) whose openings' cells are joined by a path in ``maze``, by BFS."""
    labels = sorted(openings)
    lengths = pair_path_lengths(maze, [openings[label].cell(maze.rows, maze.cols) for label in labels])
    return [(labels[i], labels[j]) for i in range(len(labels)) for j in range(i + 1, len(labels)) if lengths[i, j]]
