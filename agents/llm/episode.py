"""Playing one episode with an LLM agent and summarising it the way MazeBench's ai / partial-observe runs do."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import gymnasium as gym

from maze_envs.envs.agent import AgentStopped, episode_steps

from .agent import LLMAgent


@dataclass(frozen=True)
class LLMEpisode:
    """One episode: ``success`` (goal reached, not exploration-failed), ``cells_moved``, env ``actions``,
    ``api_calls``, ``wall_collisions``, ``invalid_jumps``, ``invalid_outputs``, ``total_reward``, tokens,
    and ``error`` (None, ``max_calls``, ``invalid_outputs``, ``exploration_failed`` or ``max_steps``)."""

    success: bool
    cells_moved: int
    actions: int
    api_calls: int
    wall_collisions: int
    invalid_jumps: int
    invalid_outputs: int
    total_reward: float
    prompt_tokens: int
    completion_tokens: int
    error: str | None

    def to_dict(self) -> dict[str, Any]:
        """Return the episode as a JSON-ready dict."""
        return asdict(self)


def run_llm_episode(env: gym.Env, agent: LLMAgent, seed: int | None = None) -> LLMEpisode:
    """Play one episode of ``agent`` in ``env`` (best under ``protocol="mazebench"``) and return its summary;
    the agent keeps the per-call records (``agent.calls``, ``agent.failures``)."""
    total, actions, cells, error, terminated = 0.0, 0, 0, None, False
    try:
        for step in episode_steps(env, agent, seed):
            info, terminated = step.info, step.terminated
            total += step.reward
            actions += 1
            cells += int(info["moved"]) if "moved" in info else int(info.get("position") != step.before.get("position"))
            if step.truncated and not terminated:
                idle_limit = env.unwrapped.rules.max_idle_steps
                exhausted = idle_limit is not None and info.get("no_exploration_steps", 0) >= idle_limit
                error = "exploration_failed" if exhausted else "max_steps"
    except AgentStopped as stop:
        error = stop.reason
    return LLMEpisode(error is None and bool(terminated), cells, actions, len(agent.calls), agent.wall_collisions,
                      agent.invalid_jumps, agent.invalid_outputs, round(total, 4),
                      sum(c.prompt_tokens for c in agent.calls), sum(c.completion_tokens for c in agent.calls), error)
