"""One trial of the ai and partial-observe modes: the maze under the trial's presentation becomes an env, an
agent (a chat model's or a baseline) plays one episode in it, and the walk is graded like a text2d path on the
grid shown (revisits allowed: S and Q are 100 when the goal is reached without failing the exploration rule,
O = 100 * optimal / cells moved, P compares the cells walked with the shortest path), then mapped back."""

from __future__ import annotations

import time
from typing import Any, Callable

import gymnasium as gym

from maze_envs.llm import Asking, Meter, Reply, RunStats, Usage

from .anticheat import Presentation
from .config import BenchConfig
from .episode import Budgets, Episode, bench_env, episode_steps
from .mazes import BenchMaze
from .oneshot import show
from .players import Players, baseline_name
from .scores import score
from .trials import Trial
from .validate import grade_path

AgentFactory = Callable[[gym.Env], Any]


def trial_budgets(config: BenchConfig, trial: Trial) -> Budgets:
    """Return the budgets of an ai/partial-observe trial (moves default to 4 x the grid's cells)."""
    return Budgets(config.max_calls, config.max_moves or 4 * trial.maze.grid.size, config.max_no_exploration_steps)


def trial_agent(players: Players, config: BenchConfig, trial: Trial, env: gym.Env) -> Any:
    """Return a fresh agent of ``trial.model`` for ``env`` from ``players``: its baseline, or the chat model's
    agent, driven through its ``decide`` steps (its questions go to whoever plays the trial)."""
    name = baseline_name(trial.model)
    if name is not None:
        return players.baseline(name, env, trial.seed)
    return players.model(env, None, memory=config.memory, explored_map=config.explored_map,
                         max_calls=config.max_calls,
                         params={"temperature": config.temperature, "max_tokens": config.max_tokens})


def interactive_trial(make_agent: AgentFactory, maze: BenchMaze, presentation: Presentation, *, mode: str,
                      scoring: str, budgets: Budgets, visibility: int, seed: int,
                      meter: Meter | None = None) -> Asking[dict[str, Any]]:
    """Return the steps of one ai/partial-observe trial of the agent ``make_agent(env)`` builds, yielding each
    question a model's agent asks (``meter`` prices its replies: a ``ChatClient`` or a ``Tally``). They return
    the record: the walk (as shown and mapped back), its validation and scores, success, why it stopped, API
    calls, cell moves, wall collisions, invalid outputs, exploration rate, the actions with their feedback, each
    API call (prompt hash, raw reply, parsed, outcome), usage and latency. Raise the agent's errors (a failed
    call's included)."""
    shown = show(maze, presentation)
    env = bench_env(mode, shown.grid, shown.start, shown.goal, visibility=visibility)
    try:
        agent = make_agent(env)
        began = time.perf_counter()
        episode = yield from episode_steps(env, agent, budgets, seed=seed)
        elapsed = time.perf_counter() - began
        calls = list(getattr(agent, "calls", ()))
    finally:
        env.close()
    verdict = grade_path(shown.grid, shown.start, shown.goal, episode.path, shown.shortest_path,
                            allow_revisits=True)
    return {
        "presentation": presentation.to_dict(),
        "parsed_path": [list(c) for c in episode.path],
        "published_path": [list(c) for c in presentation.original_path(episode.path, maze.shape)],
        "validation": verdict.to_dict(),
        "success": episode.success,
        "outcome": episode.stopped_by,
        "scores": score(verdict, episode.path, shown.shortest_path, scoring).to_dict(),
        **counters(episode),
        "actions": [{"action": t.action, "feedback": t.feedback} for t in episode.turns],
        "calls": [c.to_dict() for c in calls],
        "usage": call_usage(calls, meter),
        "latency_s": round(sum(c.latency_s for c in calls), 4),
        "local_server": bool(meter and meter.stats.local_server),
        "elapsed_s": round(elapsed, 4),
    }


def call_usage(calls: list, meter: Meter | None) -> dict[str, Any]:
    """Return the usage totals (``RunStats.to_dict()``) of an agent's call records, priced by ``meter``."""
    stats = RunStats()
    for c in calls:
        usage = Usage(c.prompt_tokens, c.completion_tokens, c.prompt_tokens + c.completion_tokens)
        stats.add(Reply(c.raw_reply, usage, c.latency_s, {}, cached=c.cached), meter.config)
    stats.local_server = bool(meter and meter.stats.local_server)
    return stats.to_dict()


def counters(episode: Episode) -> dict[str, Any]:
    """Return the counters of an episode the benchmark reports (API calls and cell moves apart)."""
    return {"api_calls": episode.api_calls, "decisions": episode.decisions, "cell_moves": episode.cell_moves,
            "wall_collisions": episode.wall_collisions, "invalid_outputs": episode.invalid_outputs,
            "invalid_jumps": episode.invalid_jumps,
            "exploration_rate": episode.exploration_rate, "exploration_failed": episode.exploration_failed,
            "total_reward": episode.total_reward}
