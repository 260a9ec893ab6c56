"""Observation wrappers: Gymnasium's checker on each, content checks, and stable-baselines3's checker on the flat
one."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import maze_envs  # noqa: F401
from maze_envs.core import Grid
from maze_envs.core.codes import PALETTE
from maze_envs.envs.grid.wrappers import FlatObservation, OneHotObservation, RGBImageObservation, TextObservation

MAKERS = {
    "rgb": lambda e: RGBImageObservation(e, px=3),
    "onehot": OneHotObservation,
    "flat": FlatObservation,
    "grid": TextObservation,
    "coordinates": lambda e: TextObservation(e, "coordinates"),
    "adjacency": lambda e: TextObservation(e, "adjacency"),
}
ENVS = [("Maze-v0", {}), ("Maze-PartialObs-v0", {}), ("Maze-PartialObs-v0", {"explored_map": True})]
CORRIDOR = Grid(np.array([[1, 1, 1, 1, 1], [1, 0, 0, 0, 1], [1, 1, 1, 1, 1]]), (1, 1), (1, 3))


@pytest.mark.parametrize("name", list(MAKERS))
@pytest.mark.parametrize("env_id, kwargs", ENVS)
def test_wrapped_envs_pass_the_gymnasium_checker(name, env_id, kwargs):
    env = MAKERS[name](gym.make(env_id, rows=3, cols=3, **kwargs))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*different from the unwrapped")
        check_env(env, skip_render_check=True)


def test_wrapper_contents_on_a_known_layout():
    obs = RGBImageObservation(gym.make("Maze-v0", maze=CORRIDOR), px=2).reset(seed=0)[0]
    assert obs.shape == (6, 10, 3) and tuple(obs[2, 2]) == tuple(PALETTE[2]) and tuple(obs[0, 0]) == (0, 0, 0)
    onehot = OneHotObservation(gym.make("Maze-v0", maze=CORRIDOR)).reset(seed=0)[0]
    assert onehot.shape == (3, 5, 5) and (onehot.sum(-1) == 1).all() and onehot[1, 3, 3] == 1
    flat = FlatObservation(gym.make("Maze-v0", maze=CORRIDOR)).reset(seed=0)[0]
    assert flat.dtype == np.float32 and flat.shape == (75,) and flat.sum() == 15
    assert TextObservation(gym.make("Maze-v0", maze=CORRIDOR)).reset(seed=0)[0] == "█████\n█A G█\n█████"
    text = TextObservation(gym.make("Maze-v0", maze=CORRIDOR), "coordinates").reset(seed=0)[0]
    assert text.splitlines()[0].split() == ["0", "1", "2", "3", "4"] and text.splitlines()[2].startswith("1 █ A")
    adjacency = TextObservation(gym.make("Maze-v0", maze=CORRIDOR), "adjacency").reset(seed=0)[0]
    assert "agent: (1, 1)" in adjacency and "goal: (1, 3)" in adjacency and "(1, 2) -> (1, 3) (1, 1)" in adjacency
    partial = TextObservation(gym.make("Maze-PartialObs-v0", maze=CORRIDOR, visibility=1)).reset(seed=0)[0]
    assert partial == "?█?\n█A \n?█?"


def test_text_observation_shows_the_explored_map_when_the_env_has_one():
    env = TextObservation(gym.make("Maze-PartialObs-v0", maze=CORRIDOR, visibility=1, explored_map=True,
                                   action_mode="multi"))
    env.reset(seed=0)
    text = env.step(np.array([1, 0]))[0]
    assert text == "view:\n?█?\n AG\n?█?\n\nexplored:\n?██??\n█  G?\n?██??"
    assert env.observation_space.contains(text)
    only_view = TextObservation(
        gym.make("Maze-PartialObs-v0", maze=CORRIDOR, visibility=1, explored_map=True), key="view"
    )
    assert only_view.reset(seed=0)[0] == "?█?\n█A \n?█?"


def test_stable_baselines3_checker_accepts_the_flat_wrapper():
    sb3 = pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed (the rl extra)")
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    for env_id, kwargs in ENVS:
        env = FlatObservation(gym.make(env_id, rows=3, cols=3, **kwargs))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            sb3_check_env(env, warn=True)
    model = sb3.PPO("MlpPolicy", FlatObservation(gym.make("Maze-v0", rows=2, cols=2)), n_steps=32, batch_size=32,
                    seed=0, device="cpu")
    model.learn(64)
