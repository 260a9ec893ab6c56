"""Who plays an ai/partial-observe trial: a chat model's agent, or a baseline without a model (``baseline:oracle``
walks a BFS shortest path on the true layout, ``baseline:random`` moves at random, ``baseline:explorer`` explores
the partial view frontier first), whose scores bound every table. The benchmark does not build agents itself: the
caller passes ``Players`` that do (``agents.players.PLAYERS`` are the project's agents)."""

from __future__ import annotations

from typing import Any, Protocol

import gymnasium as gym

from maze_envs.core.errors import MazeConfigError
from maze_envs.envs.agent import Agent
from maze_envs.llm import ChatClient

BASELINE_PREFIX = "baseline:"
BASELINES = ("oracle", "random", "explorer")


def baseline_name(model: str, parameter: str = "models") -> str | None:
    """Return the baseline a model name stands for (``baseline:oracle`` -> ``oracle``), or None for a chat model.
    Raises ``MazeConfigError`` about ``parameter`` for an unknown baseline."""
    if not model.startswith(BASELINE_PREFIX):
        return None
    name = model[len(BASELINE_PREFIX):]
    if name not in BASELINES:
        raise MazeConfigError(f"unknown baseline {model!r}; use one of "
                              f"{', '.join(BASELINE_PREFIX + b for b in BASELINES)}", parameter=parameter)
    return name


def check_players(models: tuple[str, ...] | list[str], mode: str, parameter: str = "models") -> None:
    """Raise ``MazeConfigError`` about ``parameter`` when one of ``models`` cannot play ``mode`` (baselines play
    only ai and partial-observe, the explorer only partial-observe; the tools mode is played by chat models, the
    local server's oracle, explorer and random policies among them) or a baseline is unknown."""
    for model in models:
        name = baseline_name(model, parameter)
        if name is None:
            continue
        if mode not in ("ai", "partial-observe"):
            raise MazeConfigError(f"{model} plays only the ai and partial-observe modes, not {mode}",
                                  parameter=parameter)
        if name == "explorer" and mode != "partial-observe":
            raise MazeConfigError(f"{model} explores a partial view: use it with the partial-observe mode",
                                  parameter=parameter)


class Players(Protocol):
    """What builds the agents of a benchmark's ai/partial-observe trials (a fresh one per trial and env)."""

    def baseline(self, name: str, env: gym.Env, seed: int) -> Agent:
        """Return a fresh agent of baseline ``name`` (one of ``BASELINES``) for ``env``, seeded with ``seed``."""

    def model(self, env: gym.Env, client: ChatClient | None, *, memory: int, explored_map: bool, max_calls: int,
              params: dict[str, Any]) -> Agent:
        """Return a fresh agent of the model behind ``client`` for ``env``: it reminds the model of its last
        ``memory`` turns, shows the map explored so far with ``explored_map``, makes at most ``max_calls`` calls
        (then raises ``AgentStopped``) and sends ``params`` with each. Its ``decide(observation, info)`` yields
        each question (the benchmark's trials drive it so, with ``client`` None); ``act`` asks ``client``."""


def require_players(players: Players | None, mode: str, parameter: str = "players") -> Players:
    """Return ``players``; raise ``MazeConfigError`` about ``parameter`` when it is None and ``mode`` (ai or
    partial-observe) needs agents."""
    if players is None:
        raise MazeConfigError(f"the {mode} mode plays agents: pass players (e.g. agents.players.PLAYERS)",
                              parameter=parameter)
    return players
