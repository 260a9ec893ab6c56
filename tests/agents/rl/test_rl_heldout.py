"""The generalization protocol: layouts compared by hash, held-out test sets refused when they share a training
layout, and success reported with Wilson intervals."""

from __future__ import annotations

import numpy as np
import pytest

from maze_envs.agents.rl.heldout import Success, held_out_kwargs, held_out_set, level_layouts, seed_layouts
from maze_envs.agents.rl.policy_file import TrainedEnv
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.levels import LevelOverlapError, LevelRange, check_disjoint, layout_hash
from maze_envs.core.maze import Grid
from maze_envs.core.stats import wilson_interval


def test_layout_hash_names_the_layout_not_the_seed_or_metadata():
    levels = level_layouts("Maze-PartialObs-v0", {"rows": 2, "cols": 2, "num_levels": 40})
    by_layout: dict[str, list[int]] = {}
    for seed, key in levels.items():
        by_layout.setdefault(key, []).append(seed)
    assert len(by_layout) < len(levels)  # 2x2 cells have few layouts: different seeds, same maze, same hash
    blocks = np.ones((5, 5), dtype=np.uint8)
    blocks[1:4, 1] = 0
    a, b = Grid(blocks, (1, 1), (3, 1), meta={"seed": 1}), Grid(blocks, (1, 1), (3, 1), meta={"seed": 2})
    assert layout_hash(a) == layout_hash(b)
    assert layout_hash(Grid(blocks, (3, 1), (1, 1))) != layout_hash(a)  # start and goal are part of the layout


def test_reset_seeds_and_level_seeds_draw_the_same_mazes():
    # Why disjointness is checked by layout: the test seed s and a training level s are one maze.
    kwargs = {"rows": 5, "cols": 5}
    assert seed_layouts("Maze-PartialObs-v0", kwargs, range(7, 12)) == \
        level_layouts("Maze-PartialObs-v0", {**kwargs, "num_levels": 5, "start_level": 7})


def test_held_out_set_refuses_a_test_set_that_shares_training_layouts():
    trained = TrainedEnv("Maze-PartialObs-v0", {"rows": 2, "cols": 2, "num_levels": 50})
    with pytest.raises(LevelOverlapError, match=r"test_seed: the test set shares \d+ of its 20 layouts with the "
                                                r"policy's training 50 levels \(seeds 0..49\)"):
        held_out_set(trained, episodes=20)
    overlapping = TrainedEnv("Maze-PartialObs-v0", {"rows": 5, "cols": 5, "num_levels": 10, "start_level": 1_000_005})
    with pytest.raises(LevelOverlapError, match="shares 10 of its 30 layouts"):
        held_out_set(overlapping, episodes=30)


def test_held_out_set_of_200_levels_is_disjoint_and_drawn_without_the_level_set():
    trained = TrainedEnv("Maze-PartialObs-v0", {"rows": 9, "cols": 9, "num_levels": 200}, ego_map=True)
    heldout = held_out_set(trained)
    assert heldout.seeds == range(1_000_000, 1_001_000) and heldout.distinct == 1000
    assert heldout.kwargs == {"rows": 9, "cols": 9} == held_out_kwargs(trained.kwargs)
    assert heldout.levels == LevelRange(200, 0) and heldout.levels.describe() == "200 levels (seeds 0..199)"
    assert not set(heldout.layouts.values()) & set(level_layouts("Maze-PartialObs-v0", trained.kwargs).values())


def test_level_range_reads_env_arguments_and_refuses_bad_ones():
    assert LevelRange.of({"rows": 3}).unlimited and LevelRange.of({"rows": 3}).describe() == "unlimited levels"
    assert list(LevelRange.of({"num_levels": 2, "start_level": 5}).seeds()) == [5, 6]
    with pytest.raises(MazeConfigError, match="num_levels"):
        LevelRange(-1)
    with pytest.raises(MazeConfigError, match="no seeds"):
        LevelRange().seeds()
    check_disjoint(["a"], {1: "b"})  # disjoint: nothing raised


def test_success_carries_its_wilson_interval():
    success = Success(950, 1000)
    assert success.interval == wilson_interval(950, 1000) and success.rate == 0.95
    low, high = success.interval
    assert low < 0.95 < high and success.as_dict()["low"] == low and str(success).startswith("0.950 [")


def test_an_env_without_a_grid_layout_is_named():
    with pytest.raises(MazeConfigError, match="env_id: Maze-Openings-v0 has no grid layout"):
        seed_layouts("Maze-Openings-v0", {}, [0])
