"""One benchmark trial under ``--protocol mazebench`` (the protocol's ``BenchRules.trial``): MazeBench's loop, prompt
and verdict with the strict verdict on the same replies for a chat model; a baseline plays by this benchmark's
rules (MazeBench's loops ask a model)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from maze_envs import protocols
from maze_envs.llm import Asking, Meter

from ..config import BenchConfig
from ..episode import MODE_ENVS
from ..interactive import trial_budgets
from ..players import Players, baseline_name, require_players
from ..trials import Trial
from .interactive import mazebench_interactive_trial
from .text2d import mazebench_one_shot_trial


def mazebench_trial(meter: Meter, config: BenchConfig, trial: Trial,
                    players: Players | None = None) -> Asking[dict[str, Any]]:
    """Return the steps of one trial under MazeBench's rules, yielding each question (``meter`` prices the
    replies); they return the body of its record, played by ``players``' chat-model agent in the ai and
    partial-observe modes. A baseline plays by the default protocol's rules (MazeBench's loops ask a model)."""
    if baseline_name(trial.model) is not None:
        default = protocols.load(protocols.protocol(protocols.DEFAULT, "bench").bench.trial)
        return (yield from default(meter, config, trial, players))
    params = {"temperature": config.temperature, "max_tokens": config.max_tokens}
    if config.mode in MODE_ENVS:
        model_players = require_players(players, config.mode)

        def make_agent(env: gym.Env, replay: Any, max_calls: int) -> Any:
            return model_players.model(env, replay, memory=config.memory, explored_map=False, max_calls=max_calls,
                                       params=params)
        return (yield from mazebench_interactive_trial(meter, trial.maze, mode=config.mode, scoring=config.scoring,
                                                       budgets=trial_budgets(config, trial), memory=config.memory,
                                                       visibility=config.visibility, seed=trial.seed,
                                                       params=params, make_agent=make_agent))
    return (yield from mazebench_one_shot_trial(meter, trial.maze, scoring=config.scoring, params=params,
                                                mode=config.mode, cell_px=config.cell_px))
