"""Observation wrappers for the maze envs: RGB image, one-hot, flat (stable-baselines3) and text (LLM agents).

Each works on the code observations of ``Maze-v0`` (full block grid) and ``Maze-PartialObs-v0``
(egocentric window, or a ``Dict`` with ``"view"`` and ``"explored"``; the image and text wrappers
use ``key`` of a Dict, the one-hot and flat wrappers convert every key).
"""

from __future__ import annotations

import string
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from maze_envs.core.codes import AGENT, GOAL, MASKED, NUM_CODES, PALETTE, WALL, draw_codes
from maze_envs.core.maze import MOVES
from maze_envs.core.render import Symbols, upscale
from maze_envs.core.validate import choice, positive_int

from ..costs import check_env_cost, image_cost

TEXT_CHARSET = "".join(sorted(set(string.ascii_letters + string.digits + string.punctuation + " \n█·")))


def _code_box(space: spaces.Space, key: str) -> tuple[spaces.Box, str | None]:
    if isinstance(space, spaces.Dict):
        if key not in space.spaces:
            raise KeyError(f"observation has keys {list(space.spaces)}, not {key!r}")
        return space.spaces[key], key
    return space, None


class RGBImageObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Observation: an ``(H*px, W*px, 3)`` uint8 image of the code grid (walls black, free white, agent orange,
    goal red, masked grey); for a Dict observation the image of ``key``.

    Example:
        >>> import gymnasium as gym, maze_envs
        >>> env = RGBImageObservation(gym.make("Maze-PartialObs-v0", visibility=2), px=4)
        >>> obs, info = env.reset(seed=0)
        >>> obs.shape, obs.dtype.name
        ((20, 20, 3), 'uint8')
    """

    def __init__(self, env: gym.Env, px: int = 8, key: str = "view") -> None:
        gym.utils.RecordConstructorArgs.__init__(self, px=px, key=key)
        gym.ObservationWrapper.__init__(self, env)
        box, self.key = _code_box(env.observation_space, key)
        self.px = positive_int(px, name="px")
        h, w = box.shape
        check_env_cost("px with the observation's rows/cols (the image)", image_cost(h * w * self.px ** 2), "step")
        self.observation_space = spaces.Box(0, 255, (h * self.px, w * self.px, 3), np.uint8)

    def observation(self, observation: Any) -> np.ndarray:
        """Return the RGB image of the code grid."""
        codes = observation[self.key] if self.key else observation
        return upscale(PALETTE[codes], self.px, self.px)


def _one_hot(codes: np.ndarray) -> np.ndarray:
    return (codes[..., None] == np.arange(NUM_CODES, dtype=np.uint8)).astype(np.uint8)


class OneHotObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Observation: codes as one-hot planes ``(H, W, 5)`` uint8 (free, wall, agent, goal, masked), per Dict key.

    Example:
        >>> import gymnasium as gym, maze_envs
        >>> env = OneHotObservation(gym.make("Maze-v0", rows=3, cols=3))
        >>> obs, info = env.reset(seed=0)
        >>> obs.shape, int(obs.sum()) == 7 * 7
        ((7, 7, 5), True)
    """

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.ObservationWrapper.__init__(self, env)
        space = env.observation_space

        def box(b: spaces.Box) -> spaces.Box:
            return spaces.Box(0, 1, (*b.shape, NUM_CODES), np.uint8)

        if isinstance(space, spaces.Dict):
            self.observation_space = spaces.Dict({k: box(v) for k, v in space.spaces.items()})
        else:
            self.observation_space = box(space)

    def observation(self, observation: Any) -> Any:
        """Return the one-hot planes."""
        if isinstance(observation, dict):
            return {k: _one_hot(v) for k, v in observation.items()}
        return _one_hot(observation)


class FlatObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Observation: one flat ``float32`` vector in [0, 1], the one-hot codes of every key concatenated (key order
    sorted), for stable-baselines3's ``MlpPolicy``.

    Example:
        >>> import gymnasium as gym, maze_envs
        >>> env = FlatObservation(gym.make("Maze-PartialObs-v0", visibility=3))
        >>> env.observation_space
        Box(0.0, 1.0, (245,), float32)
        >>> obs, info = env.reset(seed=0)
        >>> float(obs.sum())
        49.0
    """

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.ObservationWrapper.__init__(self, env)
        space = env.observation_space
        self.keys = sorted(space.spaces) if isinstance(space, spaces.Dict) else None
        boxes = [space.spaces[k] for k in self.keys] if self.keys else [space]
        size = sum(int(np.prod(b.shape)) * NUM_CODES for b in boxes)
        self.observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self._shapes = [b.shape for b in boxes]

    def observation(self, observation: Any) -> np.ndarray:
        """Return the flat one-hot vector."""
        parts = [observation[k] for k in self.keys] if self.keys else [observation]
        return np.concatenate([_one_hot(p).ravel() for p in parts]).astype(np.float32)

    def codes(self, vector: Any) -> Any:
        """Return the code observation (array, or dict of arrays) whose flat one-hot vector is ``vector``: the
        inverse of ``observation``, for agents that read codes (the explorer) on a ``-Flat`` id."""
        vector, parts, start = np.asarray(vector), [], 0
        for shape in self._shapes:
            size = int(np.prod(shape)) * NUM_CODES
            parts.append(vector[start:start + size].reshape(*shape, NUM_CODES).argmax(-1).astype(np.uint8))
            start += size
        return dict(zip(self.keys, parts, strict=True)) if self.keys else parts[0]


def codes_to_adjacency(codes: np.ndarray) -> str:
    """Return a code grid described as text: where the agent and goal are, and each open block's open neighbours."""
    h, w = codes.shape
    open_ = (codes != WALL) & (codes != MASKED)
    lines = []
    for name, code in (("agent", AGENT), ("goal", GOAL)):
        where = np.argwhere(codes == code)
        lines.append(f"{name}: " + (f"({where[0][0]}, {where[0][1]})" if len(where) else "not visible"))
    lines.append("open blocks (row, col) -> open neighbours:")
    for r, c in np.argwhere(open_).tolist():
        nbrs = [(r + dr, c + dc) for dr, dc in MOVES
                if 0 <= r + dr < h and 0 <= c + dc < w and open_[r + dr, c + dc]]
        lines.append(f"({r}, {c}) -> " + (" ".join(f"({a}, {b})" for a, b in nbrs) or "none"))
    return "\n".join(lines)


TEXT_FORMATS = ("grid", "coordinates", "adjacency")


class TextObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Observation: a ``Text`` description for LLM agents: ``"grid"`` (ASCII rows: ``█`` wall, space free, ``A``
    agent, ``G`` goal, ``?`` unseen), ``"coordinates"`` (the grid with row/column numbers) or ``"adjacency"``
    (each open block with its open neighbours). Coordinates are those of the observed grid (the partial
    env's window has the agent at ``(k, k)``). A ``Dict`` observation (the partial env with
    ``explored_map=True``) is described key by key under ``view:`` and ``explored:`` headings, or only
    ``key`` when one is given.

    Example:
        >>> import gymnasium as gym, maze_envs
        >>> env = TextObservation(gym.make("Maze-v0", rows=2, cols=2), format="adjacency")
        >>> obs, info = env.reset(seed=0)
        >>> print(obs.splitlines()[0])
        agent: (1, 1)
    """

    def __init__(self, env: gym.Env, format: str = "grid", key: str | None = None,
                 symbols: Symbols = Symbols()) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, format=format, key=key, symbols=symbols)
        gym.ObservationWrapper.__init__(self, env)
        choice(format, TEXT_FORMATS, name="format", error=ValueError)
        space = env.observation_space
        if isinstance(space, spaces.Dict) and key is None:
            self.keys: list[str | None] = sorted(space.spaces, key=lambda name: name != "view")
            boxes = [space.spaces[k] for k in self.keys]
        else:
            box, chosen = _code_box(space, key or "view")
            self.keys, boxes = [chosen], [box]
        self.format = format
        self.symbols = symbols
        length = 64
        for box in boxes:
            h, w = box.shape
            per_block = {"grid": 2, "coordinates": 3 * (len(str(max(h, w))) + 1), "adjacency": 60}[format]
            length += (h + 3) * (w + 3) * per_block + 16
        self.observation_space = spaces.Text(max_length=length, min_length=1, charset=TEXT_CHARSET)

    def _describe(self, codes: np.ndarray) -> str:
        if self.format == "adjacency":
            return codes_to_adjacency(codes)
        return draw_codes(codes, symbols=self.symbols, coordinates=self.format == "coordinates")

    def observation(self, observation: Any) -> str:
        """Return the text description of the observation."""
        if self.keys == [None]:
            return self._describe(observation)
        if len(self.keys) == 1:
            return self._describe(observation[self.keys[0]])
        return "\n\n".join(f"{k}:\n{self._describe(observation[k])}" for k in self.keys)
