"""Keyboard bindings of the grid envs, shared by their ``get_keys_to_action`` (Gymnasium's ``play``) and by
``maze_envs.play``: arrow keys or WASD move, ``r`` new episode, ``p`` path overlay, ``q``/Esc quit.

pygame is imported only inside ``key_bindings``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from maze_envs.core.maze import MOVE_KEYS, MOVE_NAMES


def key_bindings() -> dict[int, str | int]:
    """Return pygame key code -> direction (0-3, the arrow and letter keys of ``MOVES``) or command
    (``"reset"``, ``"path"``, ``"quit"``)."""
    import pygame

    keys: dict[int, str | int] = {}
    for action, (name, letter) in enumerate(zip(MOVE_NAMES, MOVE_KEYS, strict=False)):
        keys[getattr(pygame, f"K_{name.upper()}")] = action
        keys[getattr(pygame, f"K_{letter}")] = action
    keys.update({pygame.K_r: "reset", pygame.K_p: "path", pygame.K_q: "quit", pygame.K_ESCAPE: "quit"})
    return keys


def move_action(action_space: spaces.Space, direction: int) -> Any:
    """Return the action of ``action_space`` that moves one block in ``direction`` (0 up, 1 right, 2 down, 3 left):
    the direction itself for ``Discrete(4)``, ``[direction, 0]`` for the partial env's ``MultiDiscrete([4, k])``."""
    if isinstance(action_space, spaces.MultiDiscrete):
        return np.array([direction, 0], dtype=action_space.dtype)
    return direction


def keys_to_action(action_space: spaces.Space) -> dict[tuple[int, ...], Any]:
    """Return Gymnasium ``play``'s mapping of key combinations (1-tuples of pygame key codes) to one-block moves."""
    return {(key,): move_action(action_space, command) for key, command in key_bindings().items()
            if isinstance(command, int)}
