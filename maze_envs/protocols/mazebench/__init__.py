"""The mazebench protocol: MazeBench's rules (https://github.com/Aileen-90/MazeBench), defects included where a
user can see them (README, "Differences").

Its parts: the grid envs' sandbox rules (-0.1 a step, -1 for a wall or out-of-bounds move, +100 on reaching the
goal and nothing after it, ``info["steps"]`` counting cells moved, the no-exploration counter reset by any newly
visited cell, multi-cell moves in the partial env); its generator (``generator``, ``text``); its reading rules
``mazebench`` and ``mazebench-sandbox`` (``reading``, registered here); and, in the evaluators' layer, its bench
trial, summary, report section and sandboxes (``evaluators.bench.mazebench``), loaded by entry point.
"""

from __future__ import annotations

from maze_envs.core.replies import register_rule

from ..registry import BenchRules, GridRules, Protocol, SandboxRules, TextMazes, register_protocol
from .reading import MazeBenchRule, MazeBenchSandboxRule
from .text import check_settings, make_mazebench_maze

HERE = "maze_envs.evaluators.bench.mazebench"

register_rule(MazeBenchRule())
register_rule(MazeBenchSandboxRule())

PROTOCOL = register_protocol(Protocol(
    name="mazebench",
    description="MazeBench's rules",
    reading_rule=MazeBenchRule.name,
    grid=GridRules(goal_reward=100.0, step_reward=-0.1, wall_reward=-1.0, max_no_exploration_steps=20,
                   exploration="visited", steps_in_cells=True, stop_after_goal=True, partial_action_mode="multi"),
    text_mazes=TextMazes(make=make_mazebench_maze, check=check_settings,
                         about="byte for byte the files MazeBench's generator writes for the same seeds (dfs or prim, "
                               "corner or random)"),
    bench=BenchRules(trial=f"{HERE}.trial:mazebench_trial", summary=f"{HERE}.summary:protocol_summary",
                     section=f"{HERE}.report:protocol_section", headline=f"{HERE}.report:headline", own_scores=True,
                     about="MazeBench's own (its prompts, parser, output filter, v1/v2 scores, sandbox loop, budgets, "
                           "stop labels and averages), each record and summary with the strict verdict beside it"),
    sandbox=SandboxRules(app=f"{HERE}.api:mazebench_sandbox_app", terminal=f"{HERE}.terminal:play_mazebench_maze",
                         watch=f"{HERE}.watch:watch_mazebench",
                         about="MazeBench's own sandbox: its CLI loop and messages ('#' walls, play goes on after the "
                               "goal), its model loop (prompt, reply parsing, budgets, stop labels; chat models only, "
                               "result printed as JSON) and its API payloads (flat mazes directory, its /step info "
                               "and rewards, '#' walls in /render)"),
))
