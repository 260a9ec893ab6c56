"""What every agent offers the code that plays it, and how an agent says it stops: the contract the agents and
the evaluators share without importing each other."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


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
