"""The default protocol: this project's own rules, the fixes of every defect the reference protocols reproduce.

Grid envs: +1 at the goal, 0 a step, a wall bump paid like any step, steps counted as actions, play on after the
goal. ``generate text``: this project's generators (``default.text``). Bench: the ``strict`` reading rule, this
benchmark's grading and its means over every trial (``evaluators.bench.default.trial``). Sandbox: its
API, terminal game and watched loop (``evaluators.bench.sandbox``). Navigation: this project's documented
choices (exact view poses, distances and means over finite values).

``strict``, the bench's old name for it, is accepted as an alias.
"""

from __future__ import annotations

from ..registry import (
    DEFAULT,
    BenchRules,
    GridRules,
    NavRules,
    Protocol,
    SandboxRules,
    TextMazes,
    register_protocol,
)
from .text import make_text_maze

BENCH = "maze_envs.evaluators.bench"

PROTOCOL = register_protocol(Protocol(
    name=DEFAULT,
    description="this project's rules: strict reading and grading, means over every trial",
    aliases=("strict",),
    stamp=False,
    reading_rule="strict",
    grid=GridRules(goal_reward=1.0, step_reward=0.0, wall_reward=None, max_no_exploration_steps=None,
                   exploration="revealed", steps_in_cells=False, stop_after_goal=False),
    text_mazes=TextMazes(make=make_text_maze, about="this project's generators"),
    bench=BenchRules(trial=f"{BENCH}.default.trial:default_trial",
                     about="this benchmark's reading, grading and summaries",
                     modes=("text2d", "image2d", "ai", "partial-observe", "tools")),
    sandbox=SandboxRules(app=f"{BENCH}.sandbox.api:default_sandbox_app", terminal=f"{BENCH}.sandbox.terminal:play_maze",
                         watch=f"{BENCH}.sandbox.watch:watch",
                         about="this project's game, agent and env"),
    nav=NavRules(about="this project's documented choices"),
))
