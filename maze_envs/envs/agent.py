"""What every agent offers the code that plays it, how an agent says it stops, and the loop that plays one
episode: the contract the agents and the evaluators share without importing each other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Protocol, Sequence, runtime_checkable

import gymnasium as gym


@runtime_checkable
class Agent(Protocol):
    """Something that acts in a maze env: ``reset()`` at each episode start, then ``act(observation, info)``."""

    def reset(self) -> None:
        """Forget the previous episode."""

    def act(self, observation: Any, info: dict[str, Any]) -> Any:
        """Return the next action for ``observation`` (agents that honour partial observability ignore ``info``)."""


class AgentStopped(RuntimeError):
    """The agent cannot act any more this episode: ``reason`` is ``max_calls`` or ``invalid_outputs``."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class Step:
    """One env step of an episode: the ``action`` played, what ``env.step`` returned (``reward`` as a float) and
    the ``before`` info the agent acted on (unhidden)."""

    action: Any
    observation: Any
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]
    before: dict[str, Any]


def episode_steps(env: gym.Env, agent: Agent, seed: int | None = None, *, hide: Sequence[str] = ()) -> Iterator[Step]:
    """Yield every step of one episode of ``agent`` in ``env`` (reset with ``seed``, then ``agent.reset()``), the
    last one terminated or truncated; ``hide`` drops those keys from the info the agent sees. Raises what
    ``agent.act`` raises (``AgentStopped`` ends an episode early)."""
    observation, info = env.reset(seed=seed)
    agent.reset()
    while True:
        before = info
        action = agent.act(observation, {k: v for k, v in info.items() if k not in hide})
        observation, reward, terminated, truncated, info = env.step(action)
        yield Step(action, observation, float(reward), bool(terminated), bool(truncated), info, before)
        if terminated or truncated:
            return
