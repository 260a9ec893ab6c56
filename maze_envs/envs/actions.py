"""The checks of what ``reset`` and ``step`` are given: every env, single or vector, refuses an action outside its
space the same way (``InvalidActionError``), a ``step`` before the first ``reset`` the same way
(``ResetNeededError``), and ``reset`` options that are not a mapping the same way (``MazeConfigError``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from maze_envs.core.errors import InvalidActionError, MazeConfigError, MazeEnvsError, brief_repr
from maze_envs.core.words import plural


class ResetNeededError(MazeEnvsError, gym.error.ResetNeeded):
    """An env's ``step`` was called before ``reset`` started an episode (or after the episode it allows ended)."""


def reset_needed(owner: str, detail: str = "") -> ResetNeededError:
    """Return the ``ResetNeededError`` of ``owner.step()`` called without an episode (``detail`` says more)."""
    return ResetNeededError(f"{owner}.step() was called before reset(){detail}; call reset() to start an episode")


def _not_in(space: spaces.Space, action: Any) -> InvalidActionError:
    return InvalidActionError(f"action {brief_repr(action)} is not in the action space {space}")


def checked_options(options: Any) -> Mapping[str, Any]:
    """Return ``reset``'s ``options`` as a mapping (None: an empty one); raise ``MazeConfigError`` naming
    ``options`` when it is anything else."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise MazeConfigError(f"must be None or a dict, got {type(options).__name__} {brief_repr(options)}",
                              parameter="options")
    return options


def _box_fault(space: spaces.Box, value: Any) -> str | None:
    """Return why ``value`` is not a point of ``space`` (numbers of its shape within its bounds; any real dtype, a
    list included), or None when it is one."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        return "it is not an array of numbers"
    if array.dtype.kind not in ("iu" if space.dtype.kind in "iu" else "iuf"):
        return f"it holds {array.dtype} values, not numbers"
    if array.shape != space.shape:
        return f"expected shape {space.shape}, got {array.shape}"
    if not (np.isfinite(array).all() and (array >= space.low).all() and (array <= space.high).all()):
        return "values must be finite and within the bounds"
    return None


def _fault(space: spaces.Space, action: Any) -> str | None:
    """Return why ``action`` is not in ``space`` (naming the field of a ``Dict`` at fault), or None when it is."""
    if isinstance(space, spaces.Dict):
        if not isinstance(action, Mapping):
            return f"expected a dict with the fields {', '.join(space.spaces)}"
        if set(action) != set(space.spaces):
            missing, extra = sorted(set(space.spaces) - set(action)), sorted(map(str, set(action) - set(space.spaces)))
            lacking = [f"{plural('missing field', len(missing))} {', '.join(missing)}"] if missing else []
            unknown = [f"{plural('unknown field', len(extra))} {brief_repr(', '.join(extra))}"] if extra else []
            return "; ".join(lacking + unknown)
        for key, sub in space.spaces.items():
            fault = _fault(sub, action[key])
            if fault is not None:
                return f"field {key!r} {brief_repr(action[key], 60)} is not in {sub}: {fault}"
        return None
    if isinstance(space, spaces.Box):
        return _box_fault(space, action)
    try:
        return None if space.contains(action) else "outside the space"
    except (TypeError, ValueError, OverflowError):
        return "outside the space"


def checked_action(space: spaces.Space, action: Any) -> Any:
    """Return ``action`` when ``space`` contains it (a ``Box`` takes numbers of any real dtype, a list included,
    within its shape and bounds); else raise ``InvalidActionError`` showing both and, for a ``Dict``, naming the
    field at fault."""
    fault = _fault(space, action)
    if fault is not None:
        if isinstance(space, spaces.Dict):
            raise InvalidActionError(f"action {brief_repr(action)} is not in the action space {space}: {fault}")
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
