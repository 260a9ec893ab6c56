"""One benchmark trial by this benchmark's rules (the default protocol's ``BenchRules.trial``): the maze under the
trial's presentation, read with the protocol's reading rule, graded and scored here."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from maze_envs import protocols
from maze_envs.llm import Asking, Meter

from ..anticheat import choose_presentation, identity_presentation
from ..config import BenchConfig
from ..episode import MODE_ENVS
from ..interactive import interactive_trial, trial_agent, trial_budgets
from ..oneshot import one_shot_trial
from ..players import Players, require_players
from ..tools import tools_trial
from ..trials import Trial


def default_trial(meter: Meter, config: BenchConfig, trial: Trial,
                  players: Players | None = None) -> Asking[dict[str, Any]]:
    """Return the steps of one trial, yielding each question to the model (``meter`` prices the replies); they
    return the body of its record. ``players`` build the agents of the ai and partial-observe modes; the tools mode
    is ``evaluators.bench.tools``."""
    if config.mode == "tools":
        return (yield from tools_trial(meter, config, trial, trial_budgets(config, trial)))
    rng = np.random.default_rng(trial.seed)
    presentation = choose_presentation(rng) if config.anti_cheat else identity_presentation()
    if config.mode in MODE_ENVS:
        make_agent = partial(trial_agent, require_players(players, config.mode), config, trial)
        return (yield from interactive_trial(make_agent, trial.maze, presentation, mode=config.mode,
                                             scoring=config.scoring, budgets=trial_budgets(config, trial),
                                             visibility=config.visibility, seed=trial.seed, meter=meter))
    params = {"temperature": config.temperature, "max_tokens": config.max_tokens}
    return (yield from one_shot_trial(meter, trial.maze, presentation, mode=config.mode, scoring=config.scoring,
                                      params=params, cell_px=config.cell_px,
                                      reading_rule=protocols.protocol(config.protocol).reading_rule))
