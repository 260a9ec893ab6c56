"""Stable-baselines3 pieces: the one-hot features extractor, PPO/RecurrentPPO builders, and SB3Agent (any SB3 model
behind the agent interface, so ``evaluate()`` runs it like every other agent)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.logger import Logger, configure
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv

from maze_envs.core.codes import NUM_CODES

from .sb3_vec import SB3EpisodeInfo


class OneHotCodes(BaseFeaturesExtractor):
    """Features: the observation codes (a ``Box`` or a ``Dict`` of them, keys sorted) as one flat one-hot vector,
    the encoding of ``FlatObservation`` and of the single-file PPO."""

    def __init__(self, observation_space: spaces.Space) -> None:
        boxes = [observation_space.spaces[k] for k in sorted(observation_space.spaces)] \
            if isinstance(observation_space, spaces.Dict) else [observation_space]
        super().__init__(observation_space, sum(int(np.prod(b.shape)) * NUM_CODES for b in boxes))

    def forward(self, observations: Any) -> torch.Tensor:
        """Return the one-hot features of a batch of (float-cast) code observations."""
        parts = [observations[k] for k in sorted(observations)] if isinstance(observations, dict) else [observations]
        codes = torch.cat([p.long().flatten(1) for p in parts], dim=1)
        return torch.nn.functional.one_hot(codes, NUM_CODES).flatten(1).float()


def policy_kwargs(hidden: int) -> dict[str, Any]:
    """Return the policy settings of every SB3 baseline: one-hot codes, separate 2-layer tanh MLPs of ``hidden``
    units."""
    return {"features_extractor_class": OneHotCodes, "net_arch": {"pi": [hidden, hidden], "vf": [hidden, hidden]},
            "share_features_extractor": True}


def make_model(algo: str, venv: VecEnv, *, seed: int, log_dir: str | Path | None, hidden: int = 64,
               **hyper: Any) -> BaseAlgorithm:
    """Return an SB3 ``ppo`` or sb3-contrib ``recurrent-ppo`` model on ``venv`` on the CPU.

    Its logger writes ``progress.csv`` to ``log_dir``, or nothing when ``log_dir`` is None (SB3's default
    logger would otherwise create ``SB3-<date>`` folders in the temp directory).
    """
    kwargs = {"policy_kwargs": policy_kwargs(hidden), "seed": seed, "device": "cpu", "verbose": 0, **hyper}
    if algo == "ppo":
        from stable_baselines3 import PPO

        model = PPO(
            "MultiInputPolicy" if isinstance(venv.observation_space, spaces.Dict) else "MlpPolicy", venv, **kwargs
        )
    elif algo == "recurrent-ppo":
        from sb3_contrib import RecurrentPPO

        kwargs["policy_kwargs"] = {**kwargs["policy_kwargs"], "lstm_hidden_size": hidden}
        model = RecurrentPPO("MlpLstmPolicy", venv, **kwargs)
    else:
        raise ValueError(f"algo must be 'ppo' or 'recurrent-ppo', got {algo!r}")
    # configure(None, ...) would create a temp folder; a Logger with no outputs writes nothing
    model.set_logger(configure(str(log_dir), ["csv"]) if log_dir is not None else Logger(None, []))
    return model


class SB3Agent:
    """An SB3 model behind the agent interface; recurrent models keep their LSTM state through an episode."""

    def __init__(self, model: BaseAlgorithm, deterministic: bool = True, name: str | None = None) -> None:
        self.model = model
        self.deterministic = deterministic
        self.name = name or type(model).__name__
        self.reset()

    def reset(self) -> None:
        """Drop the recurrent state: the next action starts an episode."""
        self._state: Any = None
        self._start = True

    def act(self, observation: Any, info: dict[str, Any]) -> Any:
        """Return the model's action for one observation."""
        action, self._state = self.model.predict(observation, state=self._state, episode_start=np.array([self._start]),
                                                 deterministic=self.deterministic)
        self._start = False
        return action


def make_dummy_vec_env(env_id: str, num_envs: int, wrappers: tuple = (), **env_kwargs: Any) -> VecEnv:
    """Return ``num_envs`` ``gym.make`` envs (each under ``wrappers`` and ``SB3EpisodeInfo``) as SB3's
    ``DummyVecEnv``."""
    def make() -> gym.Env:
        env = gym.make(env_id, **env_kwargs)
        for wrap in wrappers:
            env = wrap(env)
        return SB3EpisodeInfo(env)

    return DummyVecEnv([make for _ in range(num_envs)])
