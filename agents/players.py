"""The project's agents as the LLM maze benchmark's players (``evaluators.bench.players.Players``): the baselines
``oracle`` (``OracleAgent``), ``random`` (``RandomAgent``) and ``explorer`` (``explorer_for``), and
``LLMAgent`` for a chat model. Pass ``PLAYERS`` to ``run_bench`` (the ``maze-envs bench`` and ``sandbox play``
commands do)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from maze_envs.llm import ChatClient

from .explorer import explorer_for
from .llm.agent import LLMAgent
from .oracle import OracleAgent
from .random_agent import RandomAgent


class AgentPlayers:
    """Builds a fresh agent per benchmark trial: ``baseline(name, env, seed)`` or ``model(env, client, ...)``."""

    def baseline(self, name: str, env: gym.Env, seed: int) -> Any:
        """Return a fresh agent of baseline ``name`` for ``env`` (the random one seeded with ``seed``)."""
        if name == "oracle":
            return OracleAgent(env)
        if name == "random":
            return RandomAgent(env.action_space, seed=seed)
        return explorer_for(env)

    def model(self, env: gym.Env, client: ChatClient | None, *, memory: int, explored_map: bool, max_calls: int,
              params: dict[str, Any]) -> LLMAgent:
        """Return a fresh ``LLMAgent`` of the model behind ``client`` for ``env`` (it reminds the model of its last
        ``memory`` turns, shows the map explored so far with ``explored_map``, makes at most ``max_calls`` calls
        and sends ``params`` with each; with ``client`` None it is driven through its ``decide`` steps)."""
        return LLMAgent(env, client, memory=memory, explored_map=explored_map, max_calls=max_calls, params=params)


PLAYERS = AgentPlayers()
