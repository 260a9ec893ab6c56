"""The step rules give the same answer for one env (Python scalars) and for a batch (numpy arrays)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from maze_envs.core import generate
from maze_envs.core.codes import WALL
from maze_envs.envs.grid.rules import Board, EpisodeRules, idle_steps, look, move, newly_seen, walk


def _boards(seeds, pad):
    grids = [generate(4, 5, "kruskal", s, loops=0.3, placement="random").to_grid() for s in seeds]
    board = Board(grids[0].shape, pad)
    codes = np.concatenate([board.codes(g) for g in grids])
    starts = np.array([i * board.size + board.index(g.start) for i, g in enumerate(grids)])
    goals = np.array([i * board.size + board.index(g.goal) for i, g in enumerate(grids)])
    return board, codes, starts, goals


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=6), st.data())
def test_moves_and_walks_of_a_batch_equal_those_of_each_env(seeds, data):
    board, codes, pos, goals = _boards(seeds, pad=2)
    free_array = codes != WALL
    free_list = free_array.tolist()
    n = len(seeds)
    for _ in range(8):
        direction = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
        count = np.array(data.draw(st.lists(st.integers(1, 2), min_size=n, max_size=n)))
        active = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        deltas = np.array(board.deltas)[direction]
        one_pos, one_blocked = move(free_array, pos, deltas, active)
        many = walk(free_array, pos, deltas, count, goals, 2, active)
        for i in range(n):
            if not active[i]:
                assert ((one_pos[i], one_blocked[i], many[0][i], many[1][i], many[2][i])
                        == (pos[i], False, pos[i], 0, False))
                continue
            assert (one_pos[i], one_blocked[i]) == move(free_list, int(pos[i]), board.deltas[direction[i]])
            single = walk(free_list, int(pos[i]), board.deltas[direction[i]], int(count[i]), int(goals[i]),
                          int(count[i]))
            assert (many[0][i], many[1][i], many[2][i]) == single
        pos = many[0]


@given(st.integers(0, 30), st.integers(0, 30), st.integers(1, 40), st.integers(0, 5), st.sampled_from([None, 3]),
       st.floats(-1, 1), st.floats(-1, 1))
def test_outcome_and_idle_steps_of_a_batch_equal_those_of_each_env(pos, goal, steps, idle, max_idle, goal_reward,
                                                                    step_reward):
    rules = EpisodeRules(goal_reward, step_reward, 20, max_idle)
    single = rules.outcome(pos, goal, steps, idle)
    batch = rules.outcome(np.array([pos, goal]), np.array([goal, goal]), np.array([steps, steps]),
                          np.array([idle, idle]))
    assert single == (batch[0][0], batch[1][0], batch[2][0])
    assert isinstance(single[0], float) and type(single[1]) is bool and type(single[2]) is bool
    assert single[0] == (goal_reward if pos == goal else step_reward)
    assert (batch[0][1], batch[1][1], batch[2][1]) == (goal_reward, True, False)
    for revealed in (False, True):
        assert idle_steps(idle, revealed) == idle_steps(np.array([idle]), np.array([revealed]))[0] == (
            0 if revealed else idle + 1)


def test_looks_of_a_batch_equal_those_of_each_env():
    board, codes, pos, _ = _boards(range(5), pad=3)
    offsets = board.window_offsets(3)
    window, shown, visible = look(codes, pos, offsets, 3)
    seen = np.zeros(codes.size, dtype=bool)
    new = newly_seen(seen, shown, visible)
    for i, p in enumerate(pos.tolist()):
        one = look(codes, p, offsets, 3)
        assert all(np.array_equal(a[i], b) for a, b in zip((window, shown, visible), one, strict=False))
        assert np.array_equal(new[i], newly_seen(seen, one[1], one[2]))
    assert (new == visible).all()
