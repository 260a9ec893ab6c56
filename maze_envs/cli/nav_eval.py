"""Navigation evaluation commands: ``maze-envs nav-eval`` (the benchmark loop) and ``maze-envs nav-metrics``; their
flags and the library calls they make live in ``evaluators.nav.cli``."""

from __future__ import annotations

import argparse

from maze_envs.evaluators.nav import cli as nav_cli


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``nav-eval`` and ``nav-metrics``."""
    p = sub.add_parser("nav-eval", help="evaluate a navigation agent (point-goal or POI) on Gaussian-splat scenes "
                                        "(--protocol abot: as ABot-Navigation's evaluator)",
                       description=nav_cli.EVAL_DESCRIPTION)
    nav_cli.add_eval_arguments(p)
    p.set_defaults(func=nav_cli.eval_command)
    m = sub.add_parser("nav-metrics", help="metrics of a navigation run (point-goal or POI), also while it is still "
                                           "running", description=nav_cli.METRICS_DESCRIPTION)
    nav_cli.add_metrics_arguments(m)
    m.set_defaults(func=nav_cli.run_metrics)
