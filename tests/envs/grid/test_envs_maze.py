"""Maze-v0 semantics: observation codes, moves and wall bumps, rewards, episode ends, layouts, determinism."""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest

import maze_envs  # noqa: F401
from maze_envs.core import Grid, distance_map, generate
from maze_envs.core.codes import AGENT, FREE, GOAL, WALL
from maze_envs.core.layout_files import save_layout
from maze_envs.core.mazebench_files import write_mazebench
from maze_envs.envs.grid.rules import Board, path_length

UP, RIGHT, DOWN, LEFT = range(4)
CORRIDOR = Grid(np.array([[1, 1, 1, 1, 1], [1, 0, 0, 0, 1], [1, 1, 1, 1, 1]]), (1, 1), (1, 3))


def test_observation_codes_moves_bumps_and_goal():
    env = gym.make("Maze-v0", maze=CORRIDOR, step_reward=-0.1)
    obs, info = env.reset(seed=0)
    expected = np.array([[WALL] * 5, [WALL, AGENT, FREE, GOAL, WALL], [WALL] * 5], dtype=np.uint8)
    assert np.array_equal(obs, expected)
    assert info == {"position": (1, 1), "goal": (1, 3), "optimal_length": 2, "steps": 0, "wall_bumps": 0}
    obs, reward, terminated, truncated, info = env.step(UP)
    assert np.array_equal(obs, expected) and reward == pytest.approx(-0.1)
    assert info["wall_bumps"] == 1 and info["position"] == (1, 1) and not (terminated or truncated)
    obs, reward, terminated, truncated, info = env.step(RIGHT)
    assert obs[1, 2] == AGENT and obs[1, 1] == FREE and info["position"] == (1, 2)
    obs, reward, terminated, truncated, info = env.step(np.int64(RIGHT))
    assert terminated and not truncated and reward == 1.0 and info["steps"] == 3
    assert obs[1, 3] == AGENT


def test_truncates_at_max_steps_and_default_is_four_rows_cols():
    env = gym.make("Maze-v0", maze=CORRIDOR, max_steps=2)
    env.reset(seed=0)
    assert env.step(LEFT)[3] is False
    _, _, terminated, truncated, _ = env.step(LEFT)
    assert truncated and not terminated
    assert gym.make("Maze-v0", rows=3, cols=7).unwrapped.max_steps == 4 * 3 * 7


def test_invalid_action_raises():
    env = gym.make("Maze-v0", maze=CORRIDOR)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        env.step(4)


def test_observation_matches_generated_layout_and_optimal_length():
    env = gym.make("Maze-v0", rows=6, cols=5, algorithm="wilson", placement="far")
    obs, info = env.reset(seed=11)
    layout = env.unwrapped.layout
    assert obs.shape == (13, 11) == layout.shape
    assert (obs == WALL).sum() == layout.blocks.sum()
    assert tuple(np.argwhere(obs == AGENT)[0]) == layout.start == info["position"]
    assert tuple(np.argwhere(obs == GOAL)[0]) == layout.goal == info["goal"]
    assert info["optimal_length"] == distance_map(layout)[layout.goal]


@pytest.mark.parametrize("seed", range(25))
def test_board_path_length_agrees_with_core_distance_map(seed):
    rng = np.random.default_rng(seed)
    maze = generate(int(rng.integers(2, 8)), int(rng.integers(2, 8)), "kruskal", seed, loops=0.5, placement="random")
    grid = maze.to_grid()
    board = Board(grid.shape, 1)
    free = (board.codes(grid) != WALL).tolist()
    length = path_length(free, board.deltas, board.index(grid.start), board.index(grid.goal))
    assert length == distance_map(grid)[grid.goal]


@pytest.mark.parametrize("env_id", ["Maze-v0", "Maze-PartialObs-v0"])
def test_same_seed_same_trajectory_and_new_maze_each_reset(env_id):
    def trajectory(seed):
        env = gym.make(env_id, rows=5, cols=5, placement="random")
        env.action_space.seed(seed)
        out = [env.reset(seed=seed)[0]]
        for _ in range(300):
            obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
            out += [obs, reward, terminated, truncated, info["position"]]
            if terminated or truncated:
                out.append(env.reset()[0])
        return out

    a, b = trajectory(3), trajectory(3)
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=False))
    assert not all(np.array_equal(x, y) for x, y in zip(a, trajectory(4), strict=False))
    env = gym.make(env_id, rows=5, cols=5)
    env.reset(seed=1)
    first = env.unwrapped.layout.blocks.copy()
    env.reset()
    assert not np.array_equal(first, env.unwrapped.layout.blocks)  # a new maze at each reset


def test_pickle_and_deepcopy_round_trip_mid_episode():
    env = gym.make("Maze-PartialObs-v0", rows=4, cols=4, action_mode="multi")
    env.reset(seed=5)
    env.step(np.array([1, 0]))
    clones = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    for action in ([2, 1], [1, 2], [0, 0]):
        a = env.step(np.array(action))
        for clone in clones:
            b = clone.step(np.array(action))
            assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4] and a[4] == b[4]
    maze = gym.make("Maze-v0", rows=3, cols=3)
    maze.reset(seed=2)
    clone = pickle.loads(pickle.dumps(maze))
    assert np.array_equal(maze.step(1)[0], clone.step(1)[0])


def test_fixed_layouts_from_maze_grid_and_file(tmp_path):
    maze = generate(4, 3, "prim", 9)
    path = save_layout(maze, tmp_path / "m.json")
    for layout in (maze, maze.to_grid(), str(path), path):
        env = gym.make("Maze-v0", maze=layout)
        first = env.reset(seed=0)[0]
        assert np.array_equal(first, env.reset(seed=1)[0])
        assert env.unwrapped.layout == maze.to_grid()


def test_mazes_dir_cycles_the_benchmark_layout_and_pads_smaller_mazes(tmp_path):
    mazes = [generate(3, 3, "dfs", s) for s in range(3)] + [generate(2, 2, "dfs", 7)]
    for i, m in enumerate(mazes[:3]):
        write_mazebench(m, tmp_path, i)
    write_mazebench(mazes[3], tmp_path, 0)
    env = gym.make("Maze-v0", mazes_dir=tmp_path)
    assert env.observation_space.shape == (7, 7)
    seen = [env.unwrapped.layout for _ in range(5) if env.reset() is not None]
    assert seen[0].blocks[:5, :5].tolist() == mazes[3].to_blocks().tolist() and seen[0].blocks[5:].all()
    assert [g.blocks.tolist() for g in seen[1:4]] == [m.to_blocks().tolist() for m in mazes[:3]]
    assert seen[4] == seen[0]
    only = gym.make("Maze-v0", mazes_dir=tmp_path, mazes_size="5x5")
    only.reset()
    assert only.observation_space.shape == (7, 7)


def test_reset_option_swaps_the_layout_for_one_episode():
    env = gym.make("Maze-v0", rows=2, cols=2)
    obs, info = env.reset(seed=0, options={"maze": CORRIDOR})
    assert info["goal"] == (1, 3) and obs[1:, :].shape == (4, 5)
    assert obs[3:].all()
    _, info = env.reset()
    assert env.unwrapped.layout.shape == (5, 5)
    with pytest.raises(Exception, match="larger"):
        env.reset(options={"maze": generate(5, 5, "dfs", 0)})


def test_num_levels_restricts_layouts_to_a_level_set():
    train = gym.make("Maze-v0", rows=4, cols=4, num_levels=3, start_level=100)
    layouts = {train.reset(seed=s)[0].tobytes() for s in range(40)}
    assert len(layouts) == 3
    expected = {generate(4, 4, "dfs", level).to_grid().blocks.tobytes() for level in (100, 101, 102)}
    assert {train.unwrapped.layout.blocks.tobytes()} <= expected


@pytest.mark.parametrize("mode", ["rgb_array", "ansi", "human"])
@pytest.mark.parametrize("env_id", ["Maze-v0", "Maze-PartialObs-v0"])
def test_every_render_mode_runs(env_id, mode, monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = gym.make(env_id, rows=3, cols=4, render_mode=mode, cell_px=4)
    env.reset(seed=0)
    out = env.render()
    if mode == "rgb_array":
        assert out.shape == (7 * 4, 9 * 4, 3) and out.dtype == np.uint8
    elif mode == "ansi":
        lines = out.splitlines()
        assert len(lines) == 7 and "A" in out
        assert ("?" in out) == (env_id == "Maze-PartialObs-v0")
    else:
        assert out is None
    env.close()


@pytest.mark.parametrize("env_id", ["Maze-v0", "Maze-PartialObs-v0"])
def test_each_reset_plays_the_layout_it_is_given_even_when_a_freed_one_had_its_id(env_id):
    # a fixed-layout env keeps per-layout work by the layout object's id; a layout given to one reset is not kept,
    # so a fresh Grid that reuses a freed one's id is prepared anew (before, its start came from the stale entry)
    blocks = np.zeros((5, 5), np.uint8)
    env = gym.make(env_id, maze=Grid(blocks, (0, 0), (4, 4))).unwrapped
    env.reset(seed=0)
    starts = [(i % 5, (i * 3) % 5) for i in range(60) if (i % 5, (i * 3) % 5) != (4, 4)]
    seen = [tuple(env.reset(options={"maze": Grid(blocks, start, (4, 4))})[1]["position"]) for start in starts]
    assert seen == starts
