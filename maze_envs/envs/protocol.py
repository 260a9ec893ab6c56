"""Protocols of the grid maze envs: the project's ``default`` step rules and the ``mazebench`` preset.

``mazebench`` reproduces the sandbox of MazeBench (https://github.com/Aileen-90/MazeBench) where it is not
a defect: -0.1 a step, -1 for a wall or out-of-bounds move, +100 on reaching the goal and nothing after
it, ``info["steps"]`` counting cells moved (env actions are ``info["actions"]``; a model's API calls are its
agent's to count), and the no-exploration counter reset by any newly visited cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from maze_envs.core.validate import choice

PROTOCOL_DEFAULT = "protocol"  # an option left at this value takes the protocol's own default


@dataclass(frozen=True)
class Protocol:
    """The defaults and counting rules one protocol gives an env.

    ``wall_reward`` None pays a wall bump like any step. ``exploration`` is ``revealed`` (a step resets the
    no-exploration counter when it shows a block not seen before) or ``visited`` (when it enters a block not
    visited before; a move that fails without moving counts twice, as MazeBench's failed calls do).
    ``max_no_exploration_steps`` is the full-map env's default (the partial env's is 20 under both).
    ``partial_action_mode`` is the partial env's default ``action_mode``: ``single`` (``Discrete(4)``, what
    stock RL code expects) or ``multi`` (MazeBench's move of several cells in one action).
    """

    name: str
    goal_reward: float
    step_reward: float
    wall_reward: float | None
    max_no_exploration_steps: int | None
    exploration: str
    steps_in_cells: bool
    stop_after_goal: bool
    partial_action_mode: str = "single"


PROTOCOLS: dict[str, Protocol] = {
    "default": Protocol("default", 1.0, 0.0, None, None, "revealed", False, False),
    "mazebench": Protocol("mazebench", 100.0, -0.1, -1.0, 20, "visited", True, True, "multi"),
}


def protocol_named(name: Any) -> Protocol:
    """Return the protocol called ``name``; raise ``MazeConfigError`` naming ``protocol`` otherwise."""
    choice(name, PROTOCOLS, name="protocol")
    return PROTOCOLS[name]
