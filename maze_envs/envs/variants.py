"""The registered variant ids (``registration.VARIANT_ENTRIES``) for stock RL code, and their ``Text``-free wrapper.

Stock training scripts pass no kwargs and expect plain arrays: CleanRL's ``ppo.py`` and RLlib's default
encoders want a flat float vector, CNN policies an ``H x W x 3`` uint8 image, stable-baselines3 and
Gymnasium's ``FlattenObservation`` no ``Text`` or ``Sequence`` space. Each factory below builds a base env
with every argument it is given and wraps it:

==================================  ====================================================================
id                                  observation
==================================  ====================================================================
``Maze-Flat-v0``                    ``Maze-v0``'s grid one-hot, flat ``float32`` (``FlatObservation``)
``Maze-Image-v0``                   ``Maze-v0``'s grid as an RGB image, ``px=8`` per block
``Maze-PartialObs-Flat-v0``         ``Maze-PartialObs-v0``'s window one-hot, flat ``float32``
``Maze-PartialObs-Image-v0``        ``Maze-PartialObs-v0``'s window as an RGB image (7x7 -> 56x56x3)
``Maze-Openings-Numeric-v0``        ``labels`` as ``MultiBinary(K)`` (label present), no ``question`` text
``GaussianNav-PoiGoal-Numeric-v0``  ``poi_name`` as ``Discrete`` (index into ``poi_names``)
``GaussianNav-PointGoal-Box-v0``    ``Box`` actions and a ``Dict`` of ``Box`` (``BoxNavigation``), 64x64 views
==================================  ====================================================================

The sized ids (``Maze-5x5-v0``, ``Maze-PartialObs-Flat-9x9-v0``, ...) are these factories and the base envs with
``rows``/``cols`` set (``registration.SIZED_ENTRIES``).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from maze_envs.core.errors import MazeConfigError

from .actions import checked_action
from .grid.maze import MazeEnv
from .grid.partial import PartialObsMazeEnv
from .grid.wrappers import FlatObservation, RGBImageObservation


class NumericObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Replace the ``Text`` and ``Sequence`` fields of a ``Dict`` observation by arrays, so that stable-baselines3's
    ``check_env`` and Gymnasium's ``FlattenObservation`` accept it.

    A ``Text`` field named in ``vocabularies`` becomes ``Discrete(len(words))``, the index of its word; a
    ``Sequence`` of one-character ``Text`` becomes ``MultiBinary(len(charset))``, 1 for each character present
    (sorted order); any other ``Text`` or ``Sequence`` field is dropped.

    Example:
        >>> import gymnasium as gym, maze_envs
        >>> env = gym.make("Maze-Openings-v0")
        >>> env = NumericObservation(env)
        >>> sorted(env.observation_space.spaces)
        ['image', 'labels']
        >>> obs, info = env.reset(seed=0)
        >>> obs["labels"].dtype.name, int(obs["labels"].sum()) == env.unwrapped.puzzle.num_openings
        ('int8', True)

    Change log:
        * v0.1.0 - Initially added
    """

    def __init__(self, env: gym.Env, vocabularies: dict[str, list[str]] | None = None) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, vocabularies=vocabularies)
        gym.ObservationWrapper.__init__(self, env)
        space = env.observation_space
        if not isinstance(space, spaces.Dict):
            raise MazeConfigError(f"NumericObservation needs a Dict observation space, got {space}")
        self.vocabularies = {key: list(words) for key, words in (vocabularies or {}).items()}
        self._letters: dict[str, list[str]] = {}
        fields: dict[str, spaces.Space] = {}
        for key, sub in space.spaces.items():
            if isinstance(sub, spaces.Text) and key in self.vocabularies:
                fields[key] = spaces.Discrete(len(self.vocabularies[key]))
            elif (isinstance(sub, spaces.Sequence) and isinstance(sub.feature_space, spaces.Text)
                  and sub.feature_space.max_length == 1):
                self._letters[key] = sorted(sub.feature_space.character_set)
                fields[key] = spaces.MultiBinary(len(self._letters[key]))
            elif not isinstance(sub, (spaces.Text, spaces.Sequence)):
                fields[key] = sub
        self.observation_space = spaces.Dict(fields)

    def observation(self, observation: dict[str, Any]) -> dict[str, Any]:
        """Return the observation with its text fields as indices or presence masks (others dropped)."""
        out = {}
        for key in self.observation_space.spaces:
            value = observation[key]
            if key in self._letters:
                present = set(value)
                value = np.array([letter in present for letter in self._letters[key]], dtype=np.int8)
            elif key in self.vocabularies:
                value = self.vocabularies[key].index(value)
            out[key] = value
        return out


class BoxNavigation(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """A GaussianNav env with one ``Box`` action and a ``Dict`` of ``Box`` observation, the spaces that
    stable-baselines3's PPO (``MultiInputPolicy``) and CleanRL's ``ppo_continuous_action.py`` (which flattens
    the observation) train on.

    The action is ``Box(-1, 1, (2 * num_waypoints + 1,), float32)``: the waypoints' ``[front, left]`` pairs in
    units of the env's ``max_waypoint_metres``, then ``arrive``, declared when that last component is above 0.
    The observation keeps every ``Box`` field of the env (``rotation`` flattened to 16 numbers), its nested
    ``images`` as ``image_left``, ``image_front`` and ``image_right``.

    Example:
        >>> import gymnasium as gym, maze_envs
        >>> env = BoxNavigation(gym.make("GaussianNav-PointGoal-v0", view_width=8, view_height=8, scenes=1))
        >>> env.action_space
        Box(-1.0, 1.0, (3,), float32)
        >>> sorted(env.observation_space.spaces)[:4]
        ['distance_to_goal', 'goal_world', 'heading', 'image_front']
        >>> obs, info = env.reset(seed=0)
        >>> obs["image_front"].shape, obs in env.observation_space
        ((8, 8, 3), True)

    Change log:
        * v0.1.0 - Initially added
    """

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        waypoint = env.action_space["waypoint"]
        self._waypoint_shape, self._reach = waypoint.shape, float(np.max(waypoint.high))
        size = int(np.prod(self._waypoint_shape)) + 1
        self.action_space = spaces.Box(-1.0, 1.0, (size,), np.float32)
        fields: dict[str, spaces.Space] = {}
        for key, sub in env.observation_space.spaces.items():
            if isinstance(sub, spaces.Dict):
                fields.update({f"image_{name}": view for name, view in sub.spaces.items()})
            elif isinstance(sub, spaces.Box):
                fields[key] = spaces.Box(sub.low.reshape(-1), sub.high.reshape(-1), dtype=sub.dtype) \
                    if len(sub.shape) > 1 else sub
        self.observation_space = spaces.Dict(fields)

    def _observation(self, observation: dict[str, Any]) -> dict[str, Any]:
        out = {f"image_{name}": view for name, view in observation.get("images", {}).items()}
        out.update({key: np.asarray(observation[key]).reshape(self.observation_space[key].shape)
                    for key in self.observation_space.spaces if key in observation})
        return {key: out[key] for key in self.observation_space.spaces}

    def reset(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset the env; return its observation as the ``Dict`` of ``Box`` and its info."""
        observation, info = self.env.reset(**kwargs)
        return self._observation(observation), info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Step with the waypoints and ``arrive`` read from the ``Box`` action (finite values clipped into the
        space); raise ``InvalidActionError`` for an action of another shape, type or a non-finite value."""
        try:
            flat = np.asarray(action, dtype=np.float32).reshape(-1)
        except (TypeError, ValueError):
            flat = None
        if flat is None or flat.shape != self.action_space.shape or not np.isfinite(flat).all():
            checked_action(self.action_space, action)
        flat = np.clip(flat, -1.0, 1.0)
        waypoint = (flat[:-1] * self._reach).reshape(self._waypoint_shape)
        observation, reward, terminated, truncated, info = self.env.step(
            {"waypoint": waypoint, "arrive": int(flat[-1] > 0)})
        return self._observation(observation), reward, terminated, truncated, info


def flat_maze(**kwargs: Any) -> gym.Env:
    """Return ``Maze-v0`` made with ``kwargs`` under ``FlatObservation`` (``Maze-Flat-v0``).

    Example:
        >>> flat_maze(rows=3, cols=3).observation_space
        Box(0.0, 1.0, (245,), float32)
    """
    return FlatObservation(MazeEnv(**kwargs))


def image_maze(px: int = 8, **kwargs: Any) -> gym.Env:
    """Return ``Maze-v0`` made with ``kwargs`` under ``RGBImageObservation(px=px)`` (``Maze-Image-v0``).

    Example:
        >>> image_maze(px=2, rows=3, cols=3).observation_space.shape
        (14, 14, 3)
    """
    return RGBImageObservation(MazeEnv(**kwargs), px=px)


def flat_partial(**kwargs: Any) -> gym.Env:
    """Return ``Maze-PartialObs-v0`` made with ``kwargs`` under ``FlatObservation`` (``Maze-PartialObs-Flat-v0``).

    Example:
        >>> flat_partial(visibility=1).observation_space.shape
        (45,)
    """
    return FlatObservation(PartialObsMazeEnv(**kwargs))


def image_partial(px: int = 8, **kwargs: Any) -> gym.Env:
    """Return ``Maze-PartialObs-v0`` made with ``kwargs`` under ``RGBImageObservation(px=px)``
    (``Maze-PartialObs-Image-v0``).

    Example:
        >>> image_partial(visibility=3).observation_space.shape
        (56, 56, 3)
    """
    return RGBImageObservation(PartialObsMazeEnv(**kwargs), px=px)


def numeric_openings(**kwargs: Any) -> gym.Env:
    """Return ``Maze-Openings-v0`` made with ``kwargs`` under ``NumericObservation`` (``Maze-Openings-Numeric-v0``).

    Example:
        >>> env = numeric_openings(rows=4, cols=4)
        >>> sorted(env.observation_space.spaces), env.action_space
        (['image', 'labels'], Discrete(15))
    """
    from .openings.env import OpeningsEnv

    return NumericObservation(OpeningsEnv(**kwargs))


def numeric_poi_goal(**kwargs: Any) -> gym.Env:
    """Return ``GaussianNav-PoiGoal-v0`` made with ``kwargs`` with ``poi_name`` as an index into the sorted POI
    names of its scenes (``GaussianNav-PoiGoal-Numeric-v0``; the names are ``env.get_wrapper_attr("vocabularies")``).

    Example:
        >>> env = numeric_poi_goal(scenes=1, view_width=8, view_height=8)
        >>> env.observation_space["poi_name"], len(env.get_wrapper_attr("vocabularies")["poi_name"])
        (Discrete(2), 2)
    """
    from .nav.env import PoiGoalNavEnv

    env = PoiGoalNavEnv(**kwargs)
    names = sorted({task.goal_label or "unknown" for _, task in env.task_list})
    return NumericObservation(env, {"poi_name": names})


def box_point_goal(view_width: int = 64, view_height: int = 64, **kwargs: Any) -> gym.Env:
    """Return ``GaussianNav-PointGoal-v0`` made with ``kwargs`` (64x64 views unless given) under ``BoxNavigation``
    (``GaussianNav-PointGoal-Box-v0``).

    Example:
        >>> env = box_point_goal(scenes=1, view_width=8, view_height=8)
        >>> env.action_space, env.observation_space["image_front"].shape
        (Box(-1.0, 1.0, (3,), float32), (8, 8, 3))
    """
    from .nav.env import PointGoalNavEnv

    return BoxNavigation(PointGoalNavEnv(view_width=view_width, view_height=view_height, **kwargs))
