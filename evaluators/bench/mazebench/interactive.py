"""ai / partial-observe trials under ``--protocol mazebench``: the model plays MazeBench's sandbox loop
(``sandbox.run_sandbox``); then the same replies, in the same order, are played through this benchmark's own
agent and env (the strict verdict), so a record shows what each set of rules makes of one model's answers.

The strict replay gets the recorded replies in order and may make as many calls as there are; when it wants
more than the model gave under MazeBench's loop it stops, labelled ``replies_exhausted`` (the strict loop asked
again where MazeBench's had stopped).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from maze_envs.envs.agent import AgentStopped
from maze_envs.llm import Asking, Meter, Reply, RunStats, answer

from ..anticheat import identity_presentation
from ..episode import Budgets
from ..interactive import interactive_trial
from ..mazes import BenchMaze
from ..scores import score
from ..validate import grade_path
from .sandbox import run_sandbox
from .text2d import strict_shortest


class ReplayClient:
    """A chat client that answers with recorded replies, in order (its agent may make ``len(replies)`` calls)."""

    def __init__(self, replies: list[Reply], meter: Meter):
        self.replies = list(replies)
        self.config = meter.config
        self.stats = RunStats(local_server=meter.stats.local_server)
        self.used = 0

    def chat(self, messages: Any, **params: Any) -> Reply:
        """Return the next recorded reply; raises ``AgentStopped`` (``max_calls``) when none is left (a call of
        MazeBench's loop failed before it was answered)."""
        if self.used >= len(self.replies):
            raise AgentStopped("max_calls", f"the {len(self.replies)} recorded replies are used up")
        reply = self.replies[self.used]
        self.used += 1
        return reply


ModelAgent = Callable[[Any, Any, int], Any]


def mazebench_interactive_trial(meter: Meter, maze: BenchMaze, *, mode: str, scoring: str, budgets: Budgets,
                                memory: int, visibility: int, seed: int, params: dict[str, Any],
                                make_agent: ModelAgent) -> Asking[dict[str, Any]]:
    """Return the steps of one ai/partial-observe trial under ``--protocol mazebench``, yielding each question of
    MazeBench's loop (``meter`` prices the replies). They return its record: MazeBench's outcome (``success``,
    ``outcome`` = its stop label or ``goal``, ``cell_moves``, ``api_calls``, collisions, parse errors,
    exploration) with the walk graded like a text2d path (revisits allowed), and ``strict``: this benchmark's
    verdict on the same replies, played by ``make_agent(env, client, max_calls)`` (the benchmark's model agent)
    on a client that replays them. Raise a fatal call's error."""
    log: list[dict[str, Any]] = []
    began = time.perf_counter()
    result = yield from run_sandbox(maze, mode=mode, params=params, max_steps=budgets.max_calls, memory=memory,
                                    visibility=visibility, max_no_exploration=budgets.max_no_exploration, log=log)
    elapsed = time.perf_counter() - began
    walk = [tuple(c) for c in result.walk]
    verdict = grade_path(maze.grid, maze.start, maze.goal, walk, maze.shortest_path, allow_revisits=True)
    usage = RunStats()
    for entry in log:
        usage.add(entry["reply"], meter.config)
    replay = ReplayClient([e["reply"] for e in log], meter)
    calls = min(len(log), budgets.max_calls)
    graded = replace(maze, shortest_path=tuple(strict_shortest(maze.grid, maze)))
    strict = answer(interactive_trial(lambda env: make_agent(env, replay, max(calls, 1)), graded,
                                      identity_presentation(), mode=mode, scoring=scoring, budgets=budgets,
                                      visibility=visibility, seed=seed, meter=replay), replay)
    if strict.get("outcome") == "max_calls" and calls < budgets.max_calls:
        strict["outcome"] = "replies_exhausted"
    keep = ("success", "outcome", "api_calls", "decisions", "cell_moves", "wall_collisions", "invalid_outputs",
            "invalid_jumps", "exploration_rate", "exploration_failed", "scores", "validation", "parsed_path")
    return {
        "parsed_path": [list(c) for c in walk],
        "published_path": [list(c) for c in walk],
        "validation": verdict.to_dict(),
        "success": result.success,
        "outcome": "goal" if result.success else result.error,
        "scores": score(verdict, walk, maze.shortest_path, scoring).to_dict(),
        "api_calls": result.api_calls,
        "cell_moves": result.steps,
        "total_steps": len(result.path),
        "wall_collisions": result.wall_collisions,
        "invalid_jumps": result.invalid_jumps,
        "invalid_outputs": result.parse_errors,
        "parse_errors": result.parse_errors,
        "error_count": len(result.errors),
        "exploration_rate": result.exploration_rate,
        "exploration_failed": result.exploration_failed,
        "explored_area": result.explored_area,
        "total_reachable": result.total_reachable,
        "mazebench": {"success": result.success, "steps": result.steps, "path": result.path,
                      "actions": result.actions, "error": result.error, "errors": result.errors},
        "replies": result.replies,
        "strict": {k: strict[k] for k in keep if k in strict},
        "usage": usage.to_dict(),
        "latency_s": round(sum(e["latency_s"] for e in log), 4),
        "local_server": bool(meter.stats.local_server),
        "elapsed_s": round(elapsed, 4),
    }
