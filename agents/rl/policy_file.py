"""A saved policy (``ppo_native``'s ``model.pt``) as an agent of an env: adapted where the env it was trained on
(``trained.TrainedEnv``) allows, else one ``PolicyMismatchError`` names both envs."""

from __future__ import annotations

import os
import re
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from maze_envs.core.codes import MASKED

from .trained import PolicyMismatchError, TrainedEnv

__all__ = ["NarrowerView", "PolicyMismatchError", "TrainedEnv", "policy_for_env"]


class NarrowerView:
    """An agent adapter: ``agent`` was trained on a partial view of radius ``radius`` and plays an env whose view is
    wider. Each window is cropped to the trained side and the blocks beyond Manhattan distance ``radius`` masked,
    which is exactly the trained env's window (visibility is Manhattan distance plus line of sight, and the line
    of sight does not depend on the radius)."""

    def __init__(self, agent: Any, side: int, radius: int) -> None:
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)
        self.margin = side // 2 - radius
        offsets = np.abs(np.arange(-radius, radius + 1))
        self.outside = (offsets[:, None] + offsets[None, :]) > radius
        self.observation_space = spaces.Box(0, MASKED, self.outside.shape, np.uint8)

    def reset(self) -> None:
        """Forget the episode (the wrapped agent's reset)."""
        self.agent.reset()

    def act(self, observation: Any, info: dict[str, Any]) -> Any:
        """Return the wrapped agent's action on the cropped window."""
        m = self.margin
        window = np.array(observation[m:observation.shape[0] - m, m:observation.shape[1] - m])
        window[self.outside] = MASKED
        return self.agent.act(window, info)


def _window_radius(space: str) -> int | None:
    """Return ``k`` of a partial-view window space's text ``Box(0, 4, (2k+1, 2k+1), uint8)``, else None."""
    found = re.fullmatch(rf"Box\(0, {MASKED}, \((\d+), (\d+)\), uint8\)", space)
    return int(found[1]) // 2 if found and found[1] == found[2] and int(found[1]) % 2 else None


def policy_for_env(path: str | os.PathLike, env: gym.Env, *, given: str = "this env") -> Any:
    """Return the policy saved at ``path`` (``agents.rl.ppo_native``'s ``model.pt``) as an agent of ``env``, adapted
    where the trained env allows: a ``Discrete(4)`` policy moves one block in a ``(direction, n)`` env
    (``OneBlockMoves``), a narrower trained view sees the env's window cropped to it (``NarrowerView``), an
    ego-map policy keeps its map itself (``EgocentricMapAgent``). Raises ``PolicyMismatchError`` naming the
    trained env and ``given`` when no adaptation gives the spaces the policy was trained on (another
    observation, an ego map of another block-grid shape, ``(direction, n)`` actions the env cannot take)."""
    from ..base import OneBlockMoves
    from .egomap import EgocentricMapAgent
    from .ppo_native import load_policy

    source = str(path)
    agent, _ = load_policy(path)
    trained = agent.trained
    player: Any = agent
    actions = env.action_space
    if trained.action_space == str(spaces.Discrete(4)) and actions != spaces.Discrete(4):
        player = OneBlockMoves(agent, actions)
    elif trained.action_space != str(actions):
        trained.check(env.observation_space, actions, source=source, given=given)
    if trained.ego_map:
        player = EgocentricMapAgent(player, env)
        trained.check(player.observation_space, None, source=source, given=f"{given} (under the ego map)")
        return player
    window, radius = _window_radius(str(env.observation_space)), _window_radius(trained.observation_space)
    if window is not None and radius is not None and radius < window:
        player = NarrowerView(player, 2 * window + 1, radius)
        trained.check(player.observation_space, None, source=source, given=f"{given} (cropped to the trained view)")
        return player
    trained.check(env.observation_space, None, source=source, given=given)
    return player
