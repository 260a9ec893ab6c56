"""One benchmark trial under ``--protocol mazebench`` (the protocol's ``BenchRules.trial``): MazeBench's loop, prompt
and verdict with the strict verdict on the same replies for a chat model; a baseline plays by this benchmark's
rules (MazeBench's loops ask a model)."""

from __future__ import annotations

from typing import Any, Mapping

import gymnasium as gym

from maze_envs.llm import ChatClient

from ..config import BenchConfig
from ..episode import MODE_ENVS
from ..players import Players, baseline_name, require_players
from ..run import Trial, default_trial, trial_budgets
from .interactive import mazebench_interactive_trial
from .text2d import mazebench_one_shot_trial


def mazebench_trial(clients: Mapping[str, ChatClient], config: BenchConfig, trial: Trial,
                    players: Players | None = None) -> dict[str, Any]:
    """Return the body of one trial's record under MazeBench's rules (a baseline's: ``default_trial``'s), played
    by ``players``' chat-model agent in the ai and partial-observe modes."""
    if baseline_name(trial.model) is not None:
        return default_trial(clients, config, trial, players)
    client = clients[trial.model]
    params = {"temperature": config.temperature, "max_tokens": config.max_tokens}
    if config.mode in MODE_ENVS:
        model_players = require_players(players, config.mode)

        def make_agent(env: gym.Env, replay: Any, max_calls: int) -> Any:
            return model_players.model(env, replay, memory=config.memory, explored_map=False, max_calls=max_calls,
                                       params=params)
        return mazebench_interactive_trial(client, trial.maze, mode=config.mode, scoring=config.scoring,
                                           budgets=trial_budgets(config, trial), memory=config.memory,
                                           visibility=config.visibility, seed=trial.seed, params=params,
                                           make_agent=make_agent)
    return mazebench_one_shot_trial(client, trial.maze, scoring=config.scoring, params=params, mode=config.mode,
                                    cell_px=config.cell_px)
