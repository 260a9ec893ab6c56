"""One benchmark frame for every layout: MazeBench (row, col) without the ring, converted at one boundary."""

import json

import gymnasium as gym
import numpy as np
import pytest

import maze_envs  # noqa: F401  (registers the envs)
from maze_envs.core import generate
from maze_envs.core.benchmark_frame import benchmark_grid, frame_of
from maze_envs.core.layout_files import load_layout
from maze_envs.core.maze import as_grid
from maze_envs.core.mazebench_files import mazebench_files, mazebench_to_dict, write_mazebench
from maze_envs.core.solve import validate_path


def _open_grid_doc() -> dict:
    grid = np.zeros((5, 7), dtype=int)
    grid[2, 1:6] = 1
    return {"width": 7, "height": 5, "grid": grid.tolist(), "start": [0, 3], "goal": [4, 3], "nonce": 3}


def _ringed_doc() -> dict:
    maze = generate(3, 3, "dfs", 4)
    blocks = maze.to_blocks()
    start, goal = (2 * maze.start[0] + 1, 2 * maze.start[1] + 1), (2 * maze.goal[0] + 1, 2 * maze.goal[1] + 1)
    return {"width": 7, "height": 7, "grid": blocks.astype(int).tolist(), "start": list(start), "goal": list(goal)}


DOCS = {
    "9x9 cells": lambda: mazebench_to_dict(generate(5, 5, "dfs", 1)),
    "10x10 with an uncarved last row": lambda: mazebench_to_dict(generate(5, 5, "prim", 2), size=(10, 10)),
    "open grid": _open_grid_doc,
    "ringed file": _ringed_doc,
}


@pytest.mark.parametrize("name", sorted(DOCS))
def test_every_benchmark_file_maps_back_to_its_own_coordinates(tmp_path, name):
    doc = DOCS[name]()
    (tmp_path / "m.json").write_text(json.dumps(doc))
    grid = as_grid(load_layout(tmp_path / "m.json"))
    shown, start, goal = benchmark_grid(grid)
    assert shown.tolist() == doc["grid"] and list(start) == doc["start"] and list(goal) == doc["goal"]
    frame = frame_of(grid)
    if "shortest_path" in doc:
        blocks = frame.path_from_benchmark([tuple(c) for c in doc["shortest_path"]])
        assert validate_path(grid, blocks).valid
        assert frame.path_to_benchmark(blocks) == [tuple(c) for c in doc["shortest_path"]]


def test_a_generated_env_maze_speaks_the_frame_mazebench_to_dict_writes():
    maze = generate(4, 6, "wilson", 9)
    doc = mazebench_to_dict(maze)
    shown, start, goal = benchmark_grid(as_grid(maze))
    assert shown.tolist() == doc["grid"] and list(start) == doc["start"] and list(goal) == doc["goal"]


def test_mazes_of_one_directory_report_positions_in_one_frame(tmp_path):
    write_mazebench(generate(4, 4, "dfs", 0), tmp_path, 0, size=(7, 7))
    (tmp_path / "7x7" / "maze_7x7_1.json").write_text(json.dumps({**_open_grid_doc(), "width": 7, "height": 5}))
    env = gym.make("Maze-v0", mazes_dir=tmp_path, mazes_size="7x7")
    starts = []
    for path in mazebench_files(tmp_path, "7x7"):
        _, info = env.reset()
        frame = frame_of(env.unwrapped.layout)
        starts.append((frame.to_benchmark(info["position"]), tuple(json.loads(path.read_text())["start"])))
    assert [mine for mine, _ in starts] == [theirs for _, theirs in starts]


def test_the_older_flat_text2d_and_image2d_files_are_read(tmp_path):
    for i, prefix in enumerate(("text2d_", "image2d_")):
        doc = mazebench_to_dict(generate(3, 3, "dfs", i))
        (tmp_path / f"{prefix}maze_5x5_{i}.json").write_text(json.dumps(doc))
    (tmp_path / "image2d_maze_5x5_1.png").write_bytes(b"")
    files = mazebench_files(tmp_path, "5x5")
    assert [p.name for p in files] == ["text2d_maze_5x5_0.json", "image2d_maze_5x5_1.json"]
    env = gym.make("Maze-v0", mazes_dir=tmp_path)
    assert env.observation_space.shape == (7, 7)
