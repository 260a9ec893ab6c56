"""``maze-envs suite``: one maze set posed in every modality (one-shot text and image prompts, interactive play
on the full map and under partial view, the grid env, a 3D splat scene, image and video generation), every item
through the run engine, and one static report that tells perception from planning.

    from . import SuiteConfig, run_suite
    run = run_suite(SuiteConfig(output_dir="out"), toolkit)   # toolkit: the agents, see ``Toolkit``

``maze_envs.suite_toolkit`` builds the ``Toolkit`` from ``agents``; this package never
imports ``agents``.
"""

from .config import DEFAULT_MODELS, MODALITIES, Modality, Player, SuiteConfig, parse_player
from .run import LOG_NAME, REPORT_NAME, SUITE_NAME, SUMMARY_NAME, run_suite
from .summary import PATTERNS, Pattern
from .work import SuiteItem, Toolkit

__all__ = ["DEFAULT_MODELS", "LOG_NAME", "MODALITIES", "PATTERNS", "REPORT_NAME", "SUITE_NAME", "SUMMARY_NAME",
           "Modality", "Pattern", "Player", "SuiteConfig", "SuiteItem", "Toolkit", "parse_player",
           "run_suite"]
