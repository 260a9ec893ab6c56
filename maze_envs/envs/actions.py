"""The one check of an action at ``step``: every env refuses an action outside its space the same way."""

from __future__ import annotations

from typing import Any

from gymnasium import spaces

from maze_envs.core.errors import InvalidActionError, brief_repr


def checked_action(space: spaces.Space, action: Any) -> Any:
    """Return ``action`` when ``space`` contains it; else raise ``InvalidActionError`` showing both."""
    try:
        valid = bool(space.contains(action))
    except (TypeError, ValueError, OverflowError):
        valid = False
    if not valid:
        raise InvalidActionError(f"action {brief_repr(action)} is not in the action space {space}")
    return action
