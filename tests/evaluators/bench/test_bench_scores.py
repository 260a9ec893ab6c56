"""The benchmark's validator (MazeBench's error codes and order) and its v1/v2 scores."""

import numpy as np
import pytest

from maze_envs.core.errors import MazeConfigError
from maze_envs.evaluators.bench.scores import path_similarity, score
from maze_envs.evaluators.bench.validate import grade_path

# 0 free, 1 wall; start (0, 0), goal (2, 2); the shortest path goes right then down.
GRID = np.array([[0, 0, 0],
                 [1, 1, 0],
                 [0, 0, 0]])
START, GOAL = (0, 0), (2, 2)
SHORTEST = [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2)]


def check(path):
    return grade_path(GRID, START, GOAL, path, SHORTEST)


@pytest.mark.parametrize("path, code, index", [
    ([], "empty_path", 0),
    ([(0, 1), (0, 2), (1, 2), (2, 2)], "wrong_start", 0),
    ([(0, 0), (0, 1), (0, 2)], "wrong_goal", 2),
    ([(0, 0), (0, 2), (1, 2), (2, 2)], "illegal_move", 1),
    ([(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)], "wall_collision", 1),
    ([(0, 0), (0, -1), (0, 0), (0, 1), (0, 2), (1, 2), (2, 2)], "out_of_bounds", 1),
    ([(0, 0), (0, 1), (0, 0), (0, 1), (0, 2), (1, 2), (2, 2)], "loop", 2),
])
def test_each_error_code(path, code, index):
    verdict = check(path)
    assert (verdict.valid, verdict.error, verdict.index) == (False, code, index)


def test_checks_run_in_the_reference_order():
    # wrong start and a wall: the start is reported; a non-adjacent jump into a wall: the jump is reported
    assert check([(1, 0), (2, 0), (2, 1), (2, 2)]).error == "wrong_start"
    assert check([(0, 0), (1, 1), (2, 1), (2, 2)]).error == "illegal_move"


def test_shortest_path_scores_100_in_both_weightings():
    verdict = check(SHORTEST)
    assert verdict.valid and verdict.path_length == verdict.optimal_length == 4
    v1, v2 = score(verdict, SHORTEST, SHORTEST, "v1"), score(verdict, SHORTEST, SHORTEST, "v2")
    assert (v1.scoring, v1.S, v1.Q, v1.O, v1.P, v1.A, v1.total) == ("v1", 100, 100, 100, None, 100, 100)
    assert (v2.scoring, v2.S, v2.Q, v2.O, v2.P, v2.A, v2.total) == ("v2", 100, 100, 100, 100, 100, 100)


def test_longer_valid_path_is_scored_by_the_formulas():
    grid = np.zeros((2, 3), dtype=int)
    shortest = [(0, 0), (0, 1), (0, 2)]
    path = [(0, 0), (1, 0), (1, 1), (1, 2), (0, 2)]
    verdict = grade_path(grid, (0, 0), (0, 2), path, shortest)
    assert verdict.valid and (verdict.path_length, verdict.optimal_length) == (4, 2)
    v1 = score(verdict, path, shortest, "v1")
    assert v1.O == 50 and v1.A == pytest.approx((100 + 100 + 50) / 3, abs=1e-4)
    assert v1.total == pytest.approx(0.4 * 100 + 0.3 * 100 + 0.3 * 50)
    similarity = 2 / 6 * min(1, 3 / 5)        # {(0,0),(0,2)} shared of 6 cells, 3 of 5 cells long (full precision)
    assert path_similarity(path, shortest) == pytest.approx(similarity)
    v2 = score(verdict, path, shortest, "v2")
    assert v2.P == pytest.approx(100 * similarity)
    assert v2.total == pytest.approx(0.3 * 100 + 0.25 * 100 + 0.25 * 50 + 0.2 * 100 * similarity)


def test_json_lists_as_the_shortest_path_do_not_crash():
    as_json = [list(cell) for cell in SHORTEST]
    assert score(check(SHORTEST), SHORTEST, as_json, "v2").P == 100


def test_invalid_path_scores_zero_and_start_equal_goal_scores_full_o():
    zero = score(check([]), [], SHORTEST, "v2")
    assert (zero.S, zero.Q, zero.O, zero.P, zero.A, zero.total) == (0, 0, 0, 0, 0, 0)
    one = grade_path(np.zeros((1, 1), int), (0, 0), (0, 0), [(0, 0)], [(0, 0)])
    assert score(one, [(0, 0)], [(0, 0)], "v1").O == 100


def test_unknown_scoring_names_the_parameter():
    with pytest.raises(MazeConfigError, match="^scoring: "):
        score(check(SHORTEST), SHORTEST, SHORTEST, "v3")
