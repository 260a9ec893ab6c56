"""The labelled-openings generator: structure, validation, difficulty and hard failures."""

import numpy as np
import pytest

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.maze import Maze, Opening
from maze_envs.core.solve import distance_map, validate_path
from maze_envs.openings.puzzle import (
    LABELS,
    OpeningsError,
    classify_difficulty,
    connected_labels,
    drop_decoys,
    generate_openings,
    max_decoy_cells,
    qualifying_pairs,
    select_pair,
    validate_openings,
)

CASES = [(8, 8, 3), (8, 12, 6), (10, 10, 4), (12, 9, 5), (16, 16, 6), (20, 20, 6)]


def _mask(maze: Maze, cells) -> np.ndarray:
    out = np.zeros(maze.shape, dtype=bool)
    for cell in cells:
        out[tuple(cell)] = True
    return out


def _passages_within(maze: Maze, mask: np.ndarray) -> int:
    right = ~maze.vertical_walls & mask[:, :-1] & mask[:, 1:]
    down = ~maze.horizontal_walls & mask[:-1, :] & mask[1:, :]
    return int(right.sum() + down.sum())


@pytest.mark.parametrize("rows,cols,n", CASES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_puzzle_structure(rows, cols, n, seed):
    puzzle = generate_openings(rows, cols, n, seed)
    maze = puzzle.maze
    assert [lo.label for lo in puzzle.labels] == list(LABELS[:n])
    assert set(maze.openings) == {lo.opening for lo in puzzle.labels} and len(maze.openings) == n
    assert sum(lo.is_connected for lo in puzzle.labels) == 2
    for lo in puzzle.labels:  # one cell from each corner
        limit = cols if lo.opening.side in ("top", "bottom") else rows
        assert 1 <= lo.opening.index <= limit - 2
    check = validate_openings(puzzle)
    assert check.ok and check.path_length == puzzle.path_length >= rows * cols / 3
    a, b = (puzzle.opening(x).cell(rows, cols) for x in puzzle.connected_pair)
    assert {puzzle.path[0], puzzle.path[-1]} == {a, b}
    assert validate_path(maze, puzzle.path, require_start=False, require_goal=False).valid
    assert connected_labels(maze, {lo.label: lo.opening for lo in puzzle.labels}) == [puzzle.connected_pair]
    on_path = _mask(maze, puzzle.path)
    taken = on_path.copy()
    assert set(puzzle.decoys) == {lo.label for lo in puzzle.labels if not lo.is_connected}
    for label, cells in puzzle.decoys.items():
        region = _mask(maze, cells)
        assert 3 <= len(cells) <= max_decoy_cells(rows, cols) and region.sum() == len(cells)
        assert not (region & taken).any()  # no overlap with the main path or another decoy
        taken |= region
        reach = distance_map(maze, puzzle.opening(label).cell(rows, cols)) >= 0
        assert np.array_equal(reach, region)  # walled off: the region is exactly what the decoy reaches
        assert _passages_within(maze, region) == len(cells) - 1  # grown along passages: a tree
    main = distance_map(maze, puzzle.path[0]) >= 0
    assert not (main & (taken & ~on_path)).any()
    assert _passages_within(maze, main) == int(main.sum()) - 1  # the main region stays a tree


def test_same_seed_same_puzzle_and_different_seed_differs():
    a, b, c = (generate_openings(12, 14, 5, s) for s in (3, 3, 4))
    assert a.maze == b.maze and a.labels == b.labels and a.path == b.path and a.decoys == b.decoys
    assert not (a.maze == c.maze and a.labels == c.labels)


def test_opposite_sides_option():
    opposite = {"top": "bottom", "bottom": "top", "left": "right", "right": "left"}
    for seed in range(20):
        puzzle = generate_openings(9, 11, 4, seed, opposite_sides=True)
        s0, s1 = (puzzle.opening(x).side for x in puzzle.connected_pair)
        assert opposite[s0] == s1


@pytest.mark.parametrize("rows,cols,n,label", [
    (10, 10, 3, "easy"), (10, 10, 4, "medium"), (11, 10, 3, "medium"), (16, 16, 5, "medium"),
    (16, 16, 6, "hard"), (16, 17, 3, "hard"), (8, 8, 6, "hard"), (5, 20, 2, "easy"),
])
def test_difficulty_classification(rows, cols, n, label):
    assert classify_difficulty(rows, cols, n) == label


def test_hard_failures_raise_clear_errors():
    with pytest.raises(OpeningsError, match="3x3 grid has 4 border cells"):
        generate_openings(3, 3, 5, 0)
    with pytest.raises(OpeningsError, match="too small"):
        generate_openings(2, 9, 3, 0)
    with pytest.raises(MazeConfigError, match="num_openings"):
        generate_openings(9, 9, 1, 0)
    with pytest.raises(OpeningsError, match="only .* of 4 openings fit"):
        generate_openings(3, 3, 4, 0, max_attempts=5)


def test_no_qualifying_pair_on_an_open_grid():
    maze = Maze(6, 6, np.zeros((6, 5), bool), np.zeros((5, 6), bool))
    candidates = [Opening("top", 1), Opening("right", 1), Opening("bottom", 4)]
    assert select_pair(candidates, qualifying_pairs(maze, candidates), np.random.default_rng(0)) is None


def test_leaking_decoy_is_detected_and_dropped():
    puzzle = generate_openings(10, 10, 5, 11)
    label, cells = next(iter(puzzle.decoys.items()))
    region = set(map(tuple, cells))
    main = distance_map(puzzle.maze, puzzle.path[0]) >= 0
    cell, nb = next((c, (c[0] + dr, c[1] + dc)) for c in region for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1))
                    if puzzle.maze.contains((c[0] + dr, c[1] + dc)) and main[c[0] + dr, c[1] + dc])
    puzzle.maze.set_wall(cell, nb, closed=False)
    check = validate_openings(puzzle)
    assert check.pair_ok and label in check.leaking_decoys and not check.ok
    dropped = drop_decoys(puzzle, 0)
    assert dropped.num_openings == 2 and dropped.connected_pair == ("A", "B") and not dropped.decoys
    assert validate_openings(dropped).ok and len(dropped.maze.openings) == 2
