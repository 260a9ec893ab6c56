"""What CleanRL's single-file scripts rely on, checked on our ids with our own code (CleanRL itself is not
installed: the package index carries only its 0.4.x line, written for the old ``gym``).

``ppo.py`` and ``dqn.py`` build ``gymnasium.vector.SyncVectorEnv`` of ``RecordEpisodeStatistics(gym.make(id))``
thunks and need a ``Discrete`` action and a flat observation (``np.array(shape).prod()`` inputs);
``ppo_continuous_action.py`` wraps ``FlattenObservation``, ``ClipAction``, ``NormalizeObservation``,
``TransformObservation``, ``NormalizeReward`` and ``TransformReward`` and needs a ``Box`` action. All read episode
returns from the infos, and ``dqn.py`` the final observation of a truncated episode, so the tests check what
Gymnasium 1.x puts there: ``infos["episode"]`` with its ``_episode`` mask on the step an episode ends, the final
observation as that step's observation (next-step autoreset: the following step only resets, with reward 0), and
``final_obs``/``final_info`` (not the 0.29 names ``final_observation``) only under same-step autoreset.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

DISCRETE_IDS = ("maze_envs:Maze-PartialObs-Flat-5x5-v0", "maze_envs:Maze-Flat-5x5-v0",
                "maze_envs:Maze-PartialObs-Flat-v0")
NAV_BOX = "maze_envs:GaussianNav-PointGoal-Box-v0"
TINY_NAV = {"scenes": 1, "view_width": 36, "view_height": 36, "max_steps": 8}


def thunks(env_id: str, count: int, **kwargs):
    """Return ``count`` env thunks as CleanRL's ``make_env`` writes them: ``gym.make`` then the statistics."""
    def make():
        return gym.wrappers.RecordEpisodeStatistics(gym.make(env_id, **kwargs))
    return [make for _ in range(count)]


def continuous_thunks(env_id: str, count: int, gamma: float = 0.99, **kwargs):
    """Return the wrapper stack of ``ppo_continuous_action.py``'s ``make_env`` in its Gymnasium 1.x form."""
    def make():
        env = gym.make(env_id, **kwargs)
        env = gym.wrappers.FlattenObservation(env)
        env = gym.wrappers.RecordEpisodeStatistics(env)
        env = gym.wrappers.ClipAction(env)
        env = gym.wrappers.NormalizeObservation(env)
        env = gym.wrappers.TransformObservation(env, lambda obs: np.clip(obs, -10, 10), env.observation_space)
        env = gym.wrappers.NormalizeReward(env, gamma=gamma)
        return gym.wrappers.TransformReward(env, lambda reward: np.clip(reward, -10, 10))
    return [make for _ in range(count)]


def play(envs: gym.vector.VectorEnv, steps: int, seed: int = 0) -> list[tuple[int, float, int]]:
    """Step random actions and check every step against CleanRL's reading of Gymnasium 1.x's next-step autoreset;
    return the ``(sub-env, return, length)`` of every episode ``infos["episode"]`` reported."""
    envs.action_space.seed(seed)
    obs, infos = envs.reset(seed=seed)
    n = envs.num_envs
    returns, lengths = np.zeros(n), np.zeros(n, dtype=int)
    restarting = np.zeros(n, dtype=bool)
    episodes = []
    for _ in range(steps):
        obs, rewards, terminations, truncations, infos = envs.step(envs.action_space.sample())
        assert obs in envs.observation_space and "final_observation" not in infos and "final_obs" not in infos
        assert np.all(rewards[restarting] == 0) and not (terminations | truncations)[restarting].any()
        returns = np.where(restarting, 0.0, returns + rewards)
        lengths = np.where(restarting, 0, lengths + 1)
        done = terminations | truncations
        if done.any():
            assert "episode" in infos and np.array_equal(infos["_episode"], done)
            for i in np.flatnonzero(done):
                assert infos["episode"]["r"][i] == pytest.approx(returns[i], abs=1e-5)
                assert infos["episode"]["l"][i] == lengths[i]
                episodes.append((int(i), float(infos["episode"]["r"][i]), int(infos["episode"]["l"][i])))
        else:
            assert "episode" not in infos
        restarting = done
    return episodes


@pytest.mark.parametrize("env_id", DISCRETE_IDS)
def test_ppo_and_dqn_spaces_and_episode_infos_under_next_step_autoreset(env_id):
    envs = gym.vector.SyncVectorEnv(thunks(env_id, 4))
    assert isinstance(envs.single_action_space, spaces.Discrete) and envs.single_action_space.n == 4
    space = envs.single_observation_space
    assert isinstance(space, spaces.Box) and len(space.shape) == 1 and space.dtype == np.float32
    assert int(np.array(space.shape).prod()) == space.shape[0]  # the first Linear layer's input size
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    episodes = play(envs, 300)
    envs.close()
    assert len(episodes) >= 4 and {i for i, _, _ in episodes} == {0, 1, 2, 3}
    assert all(length >= 1 for _, _, length in episodes)
    if "5x5" in env_id:
        assert any(r > 0 for _, r, _ in episodes)  # a random policy reaches the goal: the return is not always 0


def test_dqn_replay_buffer_takes_the_spaces_and_the_final_observation_is_the_done_steps_own():
    from stable_baselines3.common.buffers import ReplayBuffer

    envs = gym.vector.SyncVectorEnv(thunks("maze_envs:Maze-PartialObs-Flat-5x5-v0", 2))
    buffer = ReplayBuffer(1000, envs.single_observation_space, envs.single_action_space, "cpu",
                          handle_timeout_termination=False, n_envs=2)
    envs.action_space.seed(1)
    obs, _ = envs.reset(seed=1)
    restarting = np.zeros(2, dtype=bool)
    stored = 0
    for _ in range(200):
        actions = envs.action_space.sample()
        next_obs, rewards, terminations, truncations, infos = envs.step(actions)
        if not restarting.any():  # Gymnasium 1.x: the step after an end only resets and is no transition
            buffer.add(obs, next_obs, actions, rewards, terminations, [{}, {}])
            stored += 2
        restarting = terminations | truncations
        obs = next_obs
    envs.close()
    assert buffer.size() * 2 == stored > 0
    sample = buffer.sample(32)
    assert sample.observations.shape == (32, envs.single_observation_space.shape[0])


def test_same_step_autoreset_puts_final_observations_and_infos_under_gymnasium_1_names():
    envs = gym.vector.SyncVectorEnv(thunks("maze_envs:Maze-PartialObs-Flat-5x5-v0", 3),
                                    autoreset_mode=AutoresetMode.SAME_STEP)
    envs.action_space.seed(2)
    envs.reset(seed=2)
    ended = 0
    for _ in range(200):
        _, _, terminations, truncations, infos = envs.step(envs.action_space.sample())
        done = terminations | truncations
        if done.any():
            assert np.array_equal(infos["_final_obs"], done) and "final_observation" not in infos
            for i in np.flatnonzero(done):
                assert infos["final_obs"][i] in envs.single_observation_space
                assert infos["final_info"]["_episode"][i] and infos["final_info"]["episode"]["l"][i] >= 1
                ended += 1
    envs.close()
    assert ended >= 3


def test_ppo_continuous_action_wrappers_and_episode_infos_on_the_nav_box_id():
    envs = gym.vector.SyncVectorEnv(continuous_thunks(NAV_BOX, 2, **TINY_NAV))
    action = envs.single_action_space  # ClipAction widens it to (-inf, inf) and clips into the env's own
    assert isinstance(action, spaces.Box) and action.shape == (3,)
    assert gym.make(NAV_BOX, **TINY_NAV).action_space == spaces.Box(-1.0, 1.0, (3,), np.float32)
    space = envs.single_observation_space
    assert isinstance(space, spaces.Box) and len(space.shape) == 1
    assert space.shape[0] == 3 * 36 * 36 * 3 + 2 + 1 + 1 + 2 + 3 + 16 + 1  # 3 views, then the numeric fields
    episodes = []
    envs.action_space.seed(0)
    envs.reset(seed=0)
    for _ in range(20):
        obs, _, _, _, infos = envs.step(envs.action_space.sample())
        assert np.all(np.abs(obs) <= 10)  # TransformObservation's clip
        if "episode" in infos:
            episodes += [int(infos["episode"]["l"][i]) for i in np.flatnonzero(infos["_episode"])]
    envs.close()
    assert episodes and all(1 <= length <= TINY_NAV["max_steps"] for length in episodes)


def test_sb3_ppo_trains_on_the_nav_box_id(tmp_path):
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_checker import check_env

    env = gym.make("GaussianNav-PointGoal-Box-v0", **TINY_NAV)
    check_env(env)
    model = PPO("MultiInputPolicy", env, n_steps=16, batch_size=8, n_epochs=1, seed=0, device="cpu")
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(32)
    assert model.num_timesteps >= 32
    assert any(not np.allclose(a.numpy(), b.detach().numpy()) for a, b in zip(before, model.policy.parameters(),
                                                                             strict=True))
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, deterministic=True)
    assert action in env.action_space
    model.save(tmp_path / "nav_ppo")
    assert (tmp_path / "nav_ppo.zip").is_file()
    env.close()
