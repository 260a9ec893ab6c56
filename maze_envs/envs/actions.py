"""The one check of an action at ``step``: every env, single or vector, refuses an action outside its space the
same way (``InvalidActionError``), and a ``step`` before the first ``reset`` the same way (``ResetNeededError``)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from maze_envs.core.errors import InvalidActionError, MazeEnvsError, brief_repr


class ResetNeededError(MazeEnvsError, gym.error.ResetNeeded):
    """An env's ``step`` was called before ``reset`` started an episode (or after the episode it allows ended)."""


def reset_needed(owner: str, detail: str = "") -> ResetNeededError:
    """Return the ``ResetNeededError`` of ``owner.step()`` called without an episode (``detail`` says more)."""
    return ResetNeededError(f"{owner}.step() was called before reset(){detail}; call reset() to start an episode")


def _not_in(space: spaces.Space, action: Any) -> InvalidActionError:
    return InvalidActionError(f"action {brief_repr(action)} is not in the action space {space}")


def checked_action(space: spaces.Space, action: Any) -> Any:
    """Return ``action`` when ``space`` contains it; else raise ``InvalidActionError`` showing both."""
    try:
        valid = bool(space.contains(action))
    except (TypeError, ValueError, OverflowError):
        valid = False
    if not valid:
        raise _not_in(space, action)
    return action


def checked_actions(space: spaces.Box | spaces.MultiDiscrete, actions: Any) -> np.ndarray:
    """Return a vector env's batch of ``actions`` as an int64 array when it is an integer array of the shape of
    ``space`` (the batched integer action space) within its bounds; else raise ``InvalidActionError`` showing both."""
    if isinstance(space, spaces.MultiDiscrete):
        low, high = space.start, space.start + space.nvec - 1
    else:
        low, high = space.low, space.high
    try:
        array = np.asarray(actions)
        valid = (array.dtype.kind in "iu" and array.shape == space.shape
                 and bool(((array >= low) & (array <= high)).all()))
    except (TypeError, ValueError, OverflowError):
        valid = False
    if not valid:
        raise _not_in(space, actions)
    return array.astype(np.int64, copy=False)
