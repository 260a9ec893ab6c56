"""Point-goal evaluation: ``EvalConfig``, ``POINT_GOAL_PROTOCOL``, ``make_eval_config`` and ``PointGoalEvaluator``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from maze_envs.envs.nav.config import POINT_GOAL_PROTOCOL, EvalConfig, make_eval_config
from maze_envs.runs import RunOptions

from ..loop import EvalOutcome, new_run_dir, run_evaluation

__all__ = ["POINT_GOAL_PROTOCOL", "EvalConfig", "PointGoalEvaluator", "make_eval_config"]


class PointGoalEvaluator:
    """Evaluates an agent on the tasks under ``data_dir`` (maps from ``map_dir``) with ``config``."""

    def __init__(self, config: EvalConfig, data_dir: str | os.PathLike, map_dir: str | os.PathLike | None = None,
                 backend: str = "cpu"):
        self.config = config
        self.data_dir = data_dir
        self.map_dir = map_dir
        self.backend = backend

    def evaluate(self, agent: Any, output_dir: str | os.PathLike = "./eval_output",
                 resume_dir: str | os.PathLike | None = None, options: RunOptions = RunOptions()) -> EvalOutcome:
        """Run every task into ``resume_dir`` (skipping finished ones) or a new ``<output_dir>/<timestamp>``;
        return what the run did."""
        run_dir = Path(resume_dir) if resume_dir is not None else new_run_dir(output_dir)
        if resume_dir is not None:
            options = RunOptions(options.backend, options.workers, options.ray_address, True, options.retry_errors)
        return run_evaluation(agent, self.config, self.data_dir, map_dir=self.map_dir, run_dir=run_dir,
                              options=options, backend=self.backend)
