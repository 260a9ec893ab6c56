"""Maze-Openings-v0: check_env for every question form, oracle at 100%, random agent at chance."""

import math

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import maze_envs  # noqa: F401
from maze_envs.agents.openings import OpeningsOracleAgent, OpeningsRandomAgent
from maze_envs.core.errors import InvalidActionError, MazeConfigError
from maze_envs.envs.openings.env import QUESTION_FORMS, label_pairs

SMALL = {"rows": (8, 10), "cols": (8, 10)}


def _play(env, agent, episodes, seed):
    rewards, chance = [], []
    for ep in range(episodes):
        obs, info = env.reset(seed=seed + ep)
        agent.reset()
        obs, reward, terminated, truncated, step_info = env.step(agent.act(obs, info))
        assert terminated and not truncated and reward == float(step_info["correct"])
        rewards.append(reward)
        chance.append(1.0 / info["action_mask"].sum() if info["question_form"] != "verify" else 0.5)
    return np.array(rewards), np.array(chance)


@pytest.mark.parametrize("form", QUESTION_FORMS)
def test_check_env(form):
    env = gym.make("Maze-Openings-v0", question=form, **SMALL)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert obs["image"].shape == env.observation_space["image"].shape
    assert obs["labels"] == tuple("ABCDEF"[:info["num_openings"]]) and obs["question"].endswith(".")
    labels_space = env.observation_space["labels"]
    assert labels_space.contains(("A", "B")) and not labels_space.contains("AB")
    assert not labels_space.contains(("A", "Z")) and not labels_space.contains(("AB",))


@pytest.mark.parametrize("form", QUESTION_FORMS)
def test_oracle_scores_100_percent(form):
    env = gym.make("Maze-Openings-v0", question=form, **SMALL)
    rewards, _ = _play(env, OpeningsOracleAgent(), 40, 100)
    assert rewards.mean() == 1.0


@pytest.mark.parametrize("form", QUESTION_FORMS)
def test_random_agent_scores_at_chance(form):
    env = gym.make("Maze-Openings-v0", question=form, rows=8, cols=8)
    rewards, chance = _play(env, OpeningsRandomAgent(seed=1), 400, 1000)
    sd = math.sqrt((chance * (1 - chance)).sum()) / len(chance)
    assert abs(rewards.mean() - chance.mean()) < 4 * sd


def test_questions_answers_and_masks():
    pair = gym.make("Maze-Openings-v0", question="pair", **SMALL).unwrapped
    obs, info = pair.reset(seed=4)
    assert pair.action_space.n == 15 and label_pairs(6)[0] == (0, 1)
    n = info["num_openings"]
    assert info["action_mask"].sum() == n * (n - 1) // 2
    action = OpeningsOracleAgent().act(obs, info)
    _, _, _, _, step_info = pair.step(action)
    assert step_info["answer"] == "-".join(step_info["connected_pair"]) == pair.answer_text(action)
    partner = gym.make("Maze-Openings-v0", question="partner", **SMALL).unwrapped
    obs, info = partner.reset(seed=4)
    given = "ABCDEF"[obs["given"]]
    assert f"Opening {given} " in obs["question"] and info["action_mask"][obs["given"]] == 0
    verify = gym.make("Maze-Openings-v0", question="verify", **SMALL).unwrapped
    answers = set()
    for seed in range(30):
        obs, info = verify.reset(seed=seed)
        a, b = ("ABCDEF"[i] for i in obs["proposal"])
        assert f"openings {a} and {b} " in obs["question"]
        answers.add(verify.step(OpeningsOracleAgent().act(obs, info))[4]["answer"])
    assert answers == {"yes", "no"}


def test_determinism_render_and_misuse():
    env = gym.make("Maze-Openings-v0", question="pair", render_mode="rgb_array", **SMALL)
    a, _ = env.reset(seed=7)
    b, _ = env.reset(seed=7)
    assert np.array_equal(a["image"], b["image"]) and a["question"] == b["question"]
    assert np.array_equal(env.render(), b["image"])
    env.step(0)
    with pytest.raises(gym.error.ResetNeeded):
        env.unwrapped.step(0)
    env.reset(seed=1)
    with pytest.raises(InvalidActionError, match="not in"):
        env.unwrapped.step(99)
    with pytest.raises(MazeConfigError, match="question"):
        gym.make("Maze-Openings-v0", question="which")
    for rows in ("big", (8, 9, 10), (8.0, 9)):
        with pytest.raises(MazeConfigError, match="rows: expected an int or a"):
            gym.make("Maze-Openings-v0", rows=rows)
    assert "## Version History" in type(env.unwrapped).__doc__
