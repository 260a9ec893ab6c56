"""Registration, the Gymnasium env checker on every id, spec round-trips and make-time errors."""

from __future__ import annotations

import json
import warnings

import gymnasium as gym
import pytest
from gymnasium.envs.registration import EnvSpec
from gymnasium.utils.env_checker import check_env

import maze_envs
from maze_envs.agents.evaluate import evaluate
from maze_envs.agents.random_agent import RandomAgent
from maze_envs.core.errors import MazeConfigError, MazeEnvsError, MazeFormatError
from maze_envs.envs.registration import ALL_ENTRIES, ENV_ENTRIES, GRID_SIDES, SIZED_FAMILIES, sized_id

OURS = ("Maze-v0", "Maze-PartialObs-v0")


def test_ids_are_registered_on_import_and_register_envs_works():
    gym.register_envs(maze_envs)
    assert set(OURS) <= {entry.id for entry in ENV_ENTRIES}
    for env_id in OURS:
        assert env_id in gym.registry
        assert gym.spec(env_id).vector_entry_point


def _small(env_id: str) -> dict:
    if env_id.startswith("GaussianNav"):
        return {"scenes": 1, "view_width": 36, "view_height": 36, "max_steps": 6}
    if "Openings" in env_id or "x" in env_id.split("-")[-2]:
        return {}
    return {"rows": 3, "cols": 3}


@pytest.mark.parametrize("env_id", [entry.id for entry in ALL_ENTRIES])
def test_every_registered_id_returns_the_same_info_keys_from_reset_and_every_step(env_id):
    env = gym.make(env_id, **_small(env_id))
    for seed in (0, 1):
        _, info = env.reset(seed=seed)
        keys = sorted(info)
        env.action_space.seed(seed)
        for _ in range(60):
            _, _, terminated, truncated, info = env.step(env.action_space.sample())
            assert sorted(info) == keys, env_id
            if terminated or truncated:
                break
    env.close()


def test_sized_ids_play_their_block_grid_and_take_every_argument():
    assert len({entry.id for entry in ALL_ENTRIES}) == len(ALL_ENTRIES)
    for family in SIZED_FAMILIES:
        for side in GRID_SIDES:
            env = gym.make(sized_id(family, side))
            assert env.unwrapped.shape == (side, side) and env.unwrapped.max_steps == (side - 1) ** 2
            env.close()
    assert gym.make("Maze-PartialObs-Flat-5x5-v0").observation_space.shape == (7 * 7 * 5,)
    assert gym.make("Maze-9x9-v0", rows=6, cols=6).unwrapped.shape == (13, 13)  # kwargs still override


@pytest.mark.parametrize("family", SIZED_FAMILIES)
def test_a_random_policy_reaches_the_goal_in_a_tenth_of_the_5x5_episodes(family):
    """The id alone gives a tool a reward to learn from: a seeded random policy succeeds often enough on 5x5."""
    env_id = sized_id(family, 5)
    table = evaluate(lambda env: RandomAgent(env.action_space, 0), env_id, range(1_000_000, 1_000_200))
    assert table.mean("success") >= 0.10, (env_id, table.mean("success"))


@pytest.mark.parametrize("env_id", OURS)
@pytest.mark.parametrize("kwargs", [{}, {"rows": 3, "cols": 5, "placement": "random"}])
def test_check_env_passes_without_warnings(env_id, kwargs):
    env = gym.make(env_id, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    env.close()


def test_check_env_partial_with_explored_map_and_single_actions():
    for kwargs in ({"explored_map": True}, {"action_mode": "single", "visibility": 1}):
        env = gym.make("Maze-PartialObs-v0", rows=4, cols=4, **kwargs)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env.unwrapped)


@pytest.mark.parametrize("env_id", OURS)
def test_spec_to_json_round_trips_and_remakes(env_id):
    env = gym.make(env_id, rows=4, cols=6, algorithm="prim", step_reward=-0.1)
    text = env.spec.to_json()
    spec = EnvSpec.from_json(text)
    assert spec == env.spec
    assert json.loads(text)["kwargs"]["algorithm"] == "prim"
    again = spec.make()
    assert again.observation_space == env.observation_space
    assert again.unwrapped.step_reward == -0.1


@pytest.mark.filterwarnings("ignore:.*render_mode")
@pytest.mark.parametrize("kwargs, message", [
    ({"rows": -1}, "rows"),
    ({"cols": 0}, "cols"),
    ({"algorithm": "nope"}, "algorithm"),
    ({"placement": "middle"}, "placement"),
    ({"loops": 2}, "loops"),
    ({"max_steps": 0}, "max_steps"),
    ({"render_mode": "video"}, "render_mode"),
    ({"num_levels": -3}, "num_levels"),
])
@pytest.mark.parametrize("env_id", OURS)
def test_bad_kwargs_fail_at_make_time(env_id, kwargs, message):
    with pytest.raises(MazeConfigError, match=message):
        gym.make(env_id, **kwargs)


@pytest.mark.parametrize("kwargs, message", [
    ({"visibility": 0}, "visibility"),
    ({"visibility": -2}, "visibility"),
    ({"action_mode": "teleport"}, "action_mode"),
    ({"max_no_exploration_steps": 0}, "max_no_exploration_steps"),
    ({"explored_map": "yes"}, "explored_map"),
])
def test_bad_partial_kwargs_fail_at_make_time(kwargs, message):
    with pytest.raises(MazeConfigError, match=message):
        gym.make("Maze-PartialObs-v0", **kwargs)


@pytest.mark.parametrize("env_id", OURS + ("Maze-Openings-v0",))
def test_unknown_kwargs_fail_at_make_time_naming_them(env_id):
    with pytest.raises(MazeConfigError, match="'bogus'"):
        gym.make(env_id, bogus=1)


def test_unknown_kwargs_fail_in_the_native_vector_env():
    with pytest.raises(MazeConfigError, match="'bogus'"):
        gym.make_vec("Maze-v0", num_envs=2, vectorization_mode="vector_entry_point", bogus=1)


def test_unreadable_maze_files_fail_at_make_time_naming_the_file(tmp_path):
    missing = tmp_path / "missing.json"
    with pytest.raises(MazeFormatError, match="missing.json"):
        gym.make("Maze-v0", maze=str(missing))
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(MazeFormatError, match="broken.json"):
        gym.make("Maze-PartialObs-v0", maze=broken)
    with pytest.raises(MazeFormatError, match="mazes_dir"):
        gym.make("Maze-v0", mazes_dir=tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(MazeFormatError, match="no maze files"):
        gym.make("Maze-v0", mazes_dir=tmp_path / "empty")
    with pytest.raises(MazeEnvsError, match="maze must be"):
        gym.make("Maze-v0", maze=42)
