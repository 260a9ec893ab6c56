"""Anti-cheat presentations: symmetries map back exactly, and a memorised published answer fails."""

import numpy as np
import pytest

from maze_envs.core import generate
from maze_envs.core.maze import Grid
from maze_envs.core.mazebench_files import mazebench_to_dict
from maze_envs.core.solve import shortest_path
from maze_envs.evaluators.bench.anticheat import (
    NON_IDENTITY,
    SYMBOL_SETS,
    SYMMETRIES,
    Presentation,
    choose_presentation,
    consistency,
)
from maze_envs.evaluators.bench.validate import grade_path


@pytest.mark.parametrize("symmetry", list(SYMMETRIES))
@pytest.mark.parametrize("shape", [(9, 9), (7, 11), (10, 10)])
def test_every_symmetry_maps_cells_and_paths_back_exactly(symmetry, shape):
    presentation = Presentation(symmetry, SYMBOL_SETS[1], "ab")
    grid = np.arange(shape[0] * shape[1]).reshape(shape)
    shown = presentation.show_grid(grid)
    assert shown.shape == presentation.shown_shape(shape)
    for r in range(shape[0]):
        for c in range(shape[1]):
            seen = presentation.show_cell((r, c), shape)
            assert shown[seen] == grid[r, c]
            assert presentation.original_cell(seen, shape) == (r, c)


@pytest.mark.parametrize("symmetry", list(SYMMETRIES))
def test_a_path_solved_on_the_shown_grid_is_the_published_path_mapped_back(symmetry):
    doc = mazebench_to_dict(generate(6, 8, "dfs", seed=3), size=(11, 15))
    grid = np.array(doc["grid"])
    presentation = Presentation(symmetry, SYMBOL_SETS[2], "00")
    start = presentation.show_cell(doc["start"], grid.shape)
    goal = presentation.show_cell(doc["goal"], grid.shape)
    shown_path = shortest_path(Grid(presentation.show_grid(grid), start, goal))
    assert presentation.original_path(shown_path, grid.shape) == [tuple(p) for p in doc["shortest_path"]]


def test_a_memorised_published_answer_fails_every_presentation_drawn():
    doc = mazebench_to_dict(generate(5, 5, "dfs", seed=11), size=(9, 9))
    grid, published = np.array(doc["grid"]), [tuple(p) for p in doc["shortest_path"]]
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(40):
        presentation = choose_presentation(rng)
        seen.add(presentation.symmetry)
        shown = presentation.show_grid(grid)
        start = presentation.show_cell(doc["start"], grid.shape)
        goal = presentation.show_cell(doc["goal"], grid.shape)
        shown_shortest = shortest_path(Grid(shown, start, goal))
        assert not grade_path(shown, start, goal, published, shown_shortest).valid
    assert seen == set(NON_IDENTITY)


def test_presentations_draw_symbols_and_nonces():
    presentations = [choose_presentation(np.random.default_rng(seed)) for seed in range(30)]
    assert len({p.nonce for p in presentations}) == 30
    assert all(len(p.nonce) == 12 for p in presentations)
    assert len({p.symbols for p in presentations}) > 1
    drawn = presentations[0].draw(Grid(np.array([[0, 1], [0, 0]]), (0, 0), (1, 1)))
    symbols = presentations[0].symbols
    assert drawn == f"{symbols.start}{symbols.wall}\n{symbols.path}{symbols.goal}"


def test_consistency_is_the_share_of_the_most_common_answer():
    a, b = [(0, 0), (0, 1)], [(0, 0), (1, 0)]
    assert consistency([a, a, b, None]) == 0.5
    assert consistency([a, list(map(list, a))]) == 1.0
    assert consistency([a]) is None
