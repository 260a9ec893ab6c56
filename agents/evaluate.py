"""evaluate(): any agent on held-out seeds of any registered env, measured by the episode-metrics wrapper.

The one evaluation path of the project: the RL table, the LLM benchmark's agent modes and the demo all
read its ``EvaluationTable``.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import gymnasium as gym
from gymnasium import spaces

import maze_envs  # noqa: F401  (registers the ids)
from maze_envs.core.errors import MazeConfigError, brief_repr
from maze_envs.core.stats import MetricSummary, summarise
from maze_envs.envs.metrics import METRIC_KEYS, EpisodeMetricsWrapper

from .base import Agent, run_episode
from .rl.trained import TrainedEnv

AgentLike = Agent | Callable[[gym.Env], Agent]
HIDDEN_INFO = ("position", "goal")


@dataclass
class EvaluationTable:
    """Per-episode metric rows (``seed`` plus ``METRIC_KEYS``) and their per-metric summaries."""

    env_id: str
    agent: str
    rows: list[dict[str, Any]]
    env_kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def summary(self) -> dict[str, MetricSummary]:
        """Return the summary of every metric some episode reported (``None`` values are left out): the success
        rate with its Wilson interval, every other metric with its bootstrap interval (``maze_envs.core.stats``)."""
        out = {}
        for key in METRIC_KEYS:
            values = [row[key] for row in self.rows if row.get(key) is not None]
            if values:
                out[key] = summarise(values, interval="wilson" if key == "success" else "bootstrap")
        return out

    def mean(self, key: str) -> float:
        """Return the mean of metric ``key`` over the episodes that report it (NaN if none do)."""
        values = [float(row[key]) for row in self.rows if row.get(key) is not None]
        return sum(values) / len(values) if values else math.nan

    def as_dict(self) -> dict[str, Any]:
        """Return the table as JSON-ready data: env, agent, kwargs, summaries and rows."""
        return {"env_id": self.env_id, "agent": self.agent, "env_kwargs": self.env_kwargs,
                "summary": {k: vars(v) for k, v in self.summary.items()}, "rows": self.rows}

    def markdown(self, keys: Sequence[str] = ("success", "path_efficiency", "steps", "wall_bumps")) -> str:
        """Return a one-row markdown table of ``keys`` as ``mean [low, high]``."""
        summary = self.summary
        cells = [f"{summary[k].mean:.3f} [{summary[k].low:.3f}, {summary[k].high:.3f}]" if k in summary else "-"
                 for k in keys]
        return "\n".join([f"| agent | env | n | {' | '.join(keys)} |", "|" + " --- |" * (len(keys) + 3),
                          f"| {self.agent} | {self.env_id} | {len(self.rows)} | {' | '.join(cells)} |"])


def _agent_name(agent: Any) -> str:
    return getattr(agent, "name", None) or type(agent).__name__


def _first_parameter(factory: Callable) -> str | None:
    try:
        parameters = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return None
    return parameters[0].name if parameters else None


def checked_agent(agent: AgentLike, env: gym.Env, env_id: str) -> Agent:
    """Return the agent that plays ``env``: ``agent`` itself or what its factory makes of ``env``.

    Raises ``MazeConfigError`` naming ``agent`` and saying what was expected when ``agent`` is neither an agent nor
    a factory of one, is a class that takes an action space rather than the env, or acts in another action space;
    a trained policy (``trained``, a ``TrainedEnv``) whose spaces differ from the env's raises
    ``PolicyMismatchError`` naming the env it was trained on and this one.
    """
    name = _agent_name(agent) if not isinstance(agent, type) else agent.__name__
    if isinstance(agent, Agent) and not isinstance(agent, type):
        actor = agent
    elif callable(agent):
        if _first_parameter(agent) == "action_space":
            raise MazeConfigError(f"{name} takes an action space, but evaluate() calls a factory with the env; pass "
                                  f"an agent ({name}(env.action_space)) or a factory (lambda env: "
                                  f"{name}(env.action_space))", parameter="agent")
        actor = agent(env)
        if not isinstance(actor, Agent):
            raise MazeConfigError(f"the factory {name} returned {brief_repr(actor)}, not an agent with reset() and "
                                  "act(observation, info)", parameter="agent")
    else:
        raise MazeConfigError(f"expected an agent (reset() and act(observation, info)) or a factory called with "
                              f"the env, got {brief_repr(agent)}", parameter="agent")
    trained = getattr(actor, "trained", None)
    if isinstance(trained, TrainedEnv):
        trained.check(env.observation_space, env.action_space, source=_agent_name(actor),
                      given=f"evaluate()'s {env_id}")
    space = getattr(actor, "action_space", None)
    if isinstance(space, spaces.Space) and space != env.action_space:
        raise MazeConfigError(f"{_agent_name(actor)} acts in {space}, but {env_id} takes {env.action_space}",
                              parameter="agent")
    return actor


def evaluate(agent: AgentLike, env_id: str, seeds: Iterable[int], *,
             wrappers: Sequence[Callable[[gym.Env], gym.Env]] = (), hide: Sequence[str] = HIDDEN_INFO,
             **env_kwargs: Any) -> EvaluationTable:
    """Return the table of ``agent`` playing one episode of ``gym.make(env_id, **env_kwargs)`` per seed.

    ``agent`` is an agent (``reset()``/``act(observation, info)``) or a factory called with the wrapped env
    (``OracleAgent``, ``lambda env: RandomAgent(env.action_space, 0)``). ``wrappers`` are applied over the
    metrics wrapper in order (observation wrappers a trained policy expects). ``hide`` drops info keys the
    agent must not read (the hidden position and goal by default). A wrong ``agent`` raises ``MazeConfigError``
    saying what was expected (``checked_agent``).
    
    Example:
        >>> from maze_envs.agents.oracle import OracleAgent
        >>> table = evaluate(OracleAgent, "Maze-v0", range(3), rows=3, cols=3)
        >>> table.mean("success"), table.mean("path_efficiency")
        (1.0, 1.0)
    """
    env = EpisodeMetricsWrapper(gym.make(env_id, **env_kwargs))
    for wrap in wrappers:
        env = wrap(env)
    try:
        actor = checked_agent(agent, env, env_id)
    except MazeConfigError:
        env.close()
        raise
    rows = []
    try:
        for seed in seeds:
            result = run_episode(env, actor, int(seed), hide=hide)
            rows.append({"seed": int(seed), **result.info["episode_metrics"]})
    finally:
        env.close()
    return EvaluationTable(env_id, _agent_name(actor), rows, dict(env_kwargs))
