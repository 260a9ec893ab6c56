"""``step`` checks shared by every env: an action outside the (batched) action space is an ``InvalidActionError``
in single and native vector envs alike, and a ``step`` before ``reset`` is a ``ResetNeededError``."""

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import maze_envs  # noqa: F401  (registers the ids)
from maze_envs.core.errors import InvalidActionError, MazeEnvsError
from maze_envs.envs.actions import ResetNeededError, checked_actions

VECTOR = {"vectorization_mode": "vector_entry_point", "rows": 3, "cols": 3}


def started_vector(env_id, num_envs, **kwargs):
    venv = gym.make_vec(env_id, num_envs=num_envs, **VECTOR, **kwargs)
    venv.reset(seed=0)
    return venv


@pytest.mark.parametrize(("env_id", "num_envs", "kwargs", "actions"), [
    ("Maze-v0", 4, {}, [5, 0, 0, 0]),
    ("Maze-v0", 4, {}, np.array([0, -1, 0, 0])),
    ("Maze-v0", 4, {}, [0, 1]),
    ("Maze-v0", 2, {}, "up"),
    ("Maze-v0", 2, {}, None),
    ("Maze-v0", 2, {}, [[0, 1]]),
    ("Maze-v0", 2, {}, [10**30, 0]),
    ("Maze-PartialObs-v0", 2, {"action_mode": "multi"}, [1, 2]),
    ("Maze-PartialObs-v0", 2, {"action_mode": "multi"}, [[0, 3], [0, 0]]),
    ("Maze-PartialObs-v0", 2, {"action_mode": "multi"}, [[4, 0], [0, 0]]),
    ("Maze-PartialObs-v0", 2, {"action_mode": "single"}, [0, 4]),
])
def test_a_bad_batch_of_actions_is_an_invalid_action_error(env_id, num_envs, kwargs, actions):
    venv = started_vector(env_id, num_envs, **kwargs)
    with pytest.raises(InvalidActionError, match=r"action .* is not in the action space (MultiDiscrete|Box)") as err:
        venv.step(actions)
    assert isinstance(err.value, ValueError) and len(str(err.value)) < 300


@pytest.mark.parametrize(("env_id", "kwargs", "actions"), [
    ("Maze-v0", {}, [1, 2]), ("Maze-v0", {}, np.array([3, 0], dtype=np.uint8)), ("Maze-v0", {}, (1, 1)),
    ("Maze-PartialObs-v0", {"action_mode": "multi"}, [[1, 2], [3, 0]]),
    ("Maze-PartialObs-v0", {"action_mode": "single"}, [0, 3]),
])
def test_valid_batches_of_every_kind_step_like_their_int64_arrays(env_id, kwargs, actions):
    a, b = started_vector(env_id, 2, **kwargs), started_vector(env_id, 2, **kwargs)
    got, want = a.step(actions), b.step(np.asarray(actions, dtype=np.int64))
    for x, y in zip(got[:4], want[:4], strict=False):
        np.testing.assert_array_equal(x, y)


def test_checked_actions_returns_int64_of_the_space_shape():
    for space in (gym.spaces.MultiDiscrete([[4, 3], [4, 3]]),
                  gym.spaces.Box(0, np.array([[3, 2], [3, 2]]), dtype=np.int64)):
        out = checked_actions(space, [[3, 2], [0, 0]])
        assert out.dtype == np.int64 and out.shape == (2, 2)
        for bad in ([[3, 3], [0, 0]], [[3.0, 2.0], [0.0, 0.0]], [3, 2]):
            with pytest.raises(InvalidActionError):
                checked_actions(space, bad)


@pytest.mark.parametrize(("env_id", "kwargs", "action"), [
    ("Maze-v0", {}, 0), ("Maze-PartialObs-v0", {}, (0, 0)), ("Maze-PartialObs-v0", {"action_mode": "single"}, 0),
    ("Maze-Openings-v0", {"rows": 8, "cols": 8, "openings": 3}, 0),
])
def test_step_before_reset_says_to_call_reset(env_id, kwargs, action):
    env = gym.make(env_id, **kwargs).unwrapped
    with pytest.raises(ResetNeededError, match=r"\.step\(\) was called before reset\(\).*call reset\(\)") as err:
        env.step(action)
    assert isinstance(err.value, MazeEnvsError) and isinstance(err.value, gym.error.ResetNeeded)


@pytest.mark.parametrize("env_id", ["Maze-v0", "Maze-PartialObs-v0"])
def test_vector_step_before_reset_says_to_call_reset(env_id):
    venv = gym.make_vec(env_id, num_envs=2, **VECTOR)
    with pytest.raises(ResetNeededError, match="MazeVectorEnv.step|PartialObsMazeVectorEnv.step"):
        venv.step(np.zeros(venv.action_space.shape, dtype=np.int64))
    venv.reset(seed=1)
    assert len(venv.step(np.zeros(venv.action_space.shape, dtype=np.int64))) == 5


def test_an_openings_episode_takes_one_answer():
    env = gym.make("Maze-Openings-v0", rows=8, cols=8, openings=3).unwrapped
    env.reset(seed=0)
    env.step(0)
    with pytest.raises(ResetNeededError, match="one answer"):
        env.step(0)


def test_a_nav_env_step_before_reset_says_to_call_reset():
    pytest.importorskip("numba")
    env = gym.make("GaussianNav-PointGoal-v0", view_width=32, view_height=32, scenes=1, maze_size=(3, 3)).unwrapped
    with pytest.raises(ResetNeededError, match=r"NavEnv\.step\(\) was called before reset\(\)"):
        env.step({"waypoint": np.zeros((1, 2), np.float32), "arrive": 0})


@settings(max_examples=60, deadline=None)
@given(st.one_of(
    st.lists(st.integers(-10, 10) | st.floats(allow_nan=True) | st.none() | st.text(max_size=2), max_size=5),
    st.lists(st.lists(st.integers(-(2**70), 2**70), max_size=3), max_size=3), st.integers(), st.text(max_size=3)))
def test_fuzzed_batches_step_or_raise_invalid_action_error(actions):
    venv = started_vector("Maze-PartialObs-v0", 2, action_mode="multi")
    try:
        venv.step(actions)
    except InvalidActionError:
        return
    assert np.asarray(actions).shape == (2, 2)


@pytest.mark.parametrize("mode", [gym.vector.AutoresetMode.SAME_STEP, gym.vector.AutoresetMode.DISABLED])
def test_every_autoreset_mode_checks_the_batch_of_actions(mode):
    venv = gym.make_vec("Maze-v0", num_envs=2, vectorization_mode="vector_entry_point", rows=3, cols=3,
                        autoreset_mode=mode)
    venv.reset(seed=0)
    with pytest.raises(InvalidActionError):
        venv.step([5, 0])
