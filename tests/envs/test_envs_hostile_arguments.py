"""Every env refuses a bad action with one typed error, and arguments that cannot fit in memory before allocating."""

import gymnasium as gym
import numpy as np
import pytest

import maze_envs  # noqa: F401
from maze_envs.core.budget import MEMORY_BUDGET_BYTES, check_budget
from maze_envs.core.errors import InvalidActionError, MazeConfigError

BAD_ACTIONS = ("up", None, 7, -1, 10**30, 2.0, [1], {"a": 1})


def started(env_id, **kwargs):
    env = gym.make(env_id, **kwargs)
    env.reset(seed=0)
    return env.unwrapped


@pytest.mark.parametrize(("env_id", "kwargs"), [
    ("Maze-v0", {}), ("Maze-PartialObs-v0", {}), ("Maze-PartialObs-v0", {"action_mode": "single"}),
    ("Maze-Openings-v0", {"rows": 8, "cols": 8, "openings": 3}),
])
@pytest.mark.parametrize("action", BAD_ACTIONS)
def test_a_bad_action_is_an_invalid_action_error_in_every_env(env_id, kwargs, action):
    env = started(env_id, **kwargs)
    with pytest.raises(InvalidActionError, match=r"action .* is not in the action space") as err:
        env.step(action)
    assert isinstance(err.value, ValueError) and len(str(err.value)) < 200


@pytest.mark.parametrize("action", [(1, 3), (4, 0), np.array([1, -1]), 1])
def test_multi_step_actions_outside_the_space_are_refused(action):
    with pytest.raises(InvalidActionError):
        started("Maze-PartialObs-v0", visibility=3, action_mode="multi").step(action)


@pytest.mark.parametrize(("env_id", "action"), [
    ("Maze-v0", 2), ("Maze-v0", np.int64(2)), ("Maze-PartialObs-v0", (2, 1)), ("Maze-PartialObs-v0", np.array([1, 0])),
])
def test_valid_actions_of_every_kind_still_step(env_id, action):
    kwargs = {"action_mode": "multi"} if env_id == "Maze-PartialObs-v0" else {}
    assert len(started(env_id, **kwargs).step(action)) == 5


def test_pad_is_not_an_argument():
    with pytest.raises(MazeConfigError, match="unknown argument.*'pad'"):
        gym.make("Maze-v0", pad=0)


@pytest.mark.parametrize(("env_id", "kwargs", "named"), [
    ("Maze-PartialObs-v0", {"visibility": 10**6}, "visibility"),
    ("Maze-v0", {"rows": 10**6, "cols": 10**6}, "rows/cols"),
    ("Maze-v0", {"rows": 2000, "cols": 2000, "render_mode": "rgb_array"}, "rows/cols and cell_px"),
    ("Maze-Openings-v0", {"rows": 10**6}, "rows/cols with cell_size"),
    ("Maze-Openings-v0", {"cell_size": 10**9}, "rows/cols with cell_size"),
])
def test_arguments_that_cannot_fit_are_refused_by_name_before_allocating(env_id, kwargs, named):
    with pytest.raises(MazeConfigError, match=rf"{named}.* would need [\d,.]+ GiB, more than the 2 GiB") as err:
        gym.make(env_id, **kwargs)
    assert len(str(err.value)) < 300


@pytest.mark.parametrize(("env_id", "kwargs"), [
    ("Maze-PartialObs-v0", {"visibility": 40}),
    ("Maze-v0", {"rows": 200, "cols": 200, "render_mode": "rgb_array", "cell_px": 4}),
])
def test_large_arguments_that_fit_still_work(env_id, kwargs):
    env = started(env_id, **kwargs)
    assert len(env.step(env.action_space.sample())) == 5
    if kwargs.get("render_mode"):
        assert env.render().shape == (401 * 4, 401 * 4, 3)


def test_check_budget_returns_what_fits():
    assert check_budget("x", MEMORY_BUDGET_BYTES) == MEMORY_BUDGET_BYTES
    with pytest.raises(MazeConfigError, match="--size would need"):
        check_budget("--size", MEMORY_BUDGET_BYTES + 1)
