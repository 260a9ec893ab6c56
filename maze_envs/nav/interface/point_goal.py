"""The point-goal agent interface: ``Observation`` in, ``WaypointPrediction`` out, as ABot-Navigation's
``abotn_evaluator.interface.point_goal`` defines them (https://github.com/amap-cvlab/ABot-Navigation)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from maze_envs.core.errors import FatalRunError, MazeConfigError


@dataclass
class Observation:
    """What the agent sees each step.

    ``images``: ``left``/``front``/``right`` RGB PIL images, as rendered (``np.asarray(image)`` gives the (H, W, 3)
    uint8 array), left = +90 deg and right = -90 deg from the heading; ``target_position``: the goal as
    agent-local ``[front, left]`` metres (float32); ``distance_to_goal``: straight-line XY metres; ``position``:
    world ``[x, y, z]``; ``rotation``: the 4x4 camera-to-world pose; ``heading``: yaw (radians); ``step_count``: steps
    taken so far; ``goal_world``: world ``[x, y]`` (point-goal only, float32). History (``history_images``:
    ``{"front": uint8 array}`` per earlier frame, shrunk, as the public evaluator gives them), occupancy and height
    maps are present when the evaluator is asked to provide them. The fields come in the public evaluator's order
    (``images, target_position, position, rotation, heading, step_count, distance_to_goal``, then the optional
    ones), so an agent that builds one positionally gets the same fields under every protocol.
    """

    images: dict[str, Image.Image]
    target_position: np.ndarray
    position: np.ndarray
    rotation: np.ndarray
    heading: float
    step_count: int
    distance_to_goal: float
    goal_world: np.ndarray | None = None
    history_images: list[dict[str, np.ndarray]] | None = None
    history_poses: list[np.ndarray] | None = None
    occ_map: np.ndarray | None = None
    height_map: np.ndarray | None = None
    meta_data: dict | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class WaypointPrediction:
    """The agent's answer: ``waypoint`` (agent-local metres, shape (2,), (1,2) or (N,2); ``[front, left]`` unless
    the evaluator reads ``right_front``), ``arrive``, optional ``directions`` ((N,2) ``[front, left]``),
    ``confidence`` (logged only) and ``extra`` (visualization data, e.g. ``affordance_pixel``)."""

    waypoint: np.ndarray
    arrive: bool = False
    directions: np.ndarray | None = None
    confidence: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class BasePointGoalAgent(ABC):
    """A point-goal agent: the evaluator calls ``reset()`` before each task and ``predict()`` each step."""

    @abstractmethod
    def reset(self) -> None:
        """Forget the previous task."""

    @abstractmethod
    def predict(self, observation: Observation) -> WaypointPrediction:
        """Return the next waypoint(s) and whether the agent has arrived."""


class AgentConfigError(MazeConfigError, FatalRunError):
    """An agent cannot run as configured (e.g. it needs an observation the evaluator was not asked to provide);
    raised from ``reset()`` or ``predict()``, it stops the whole evaluation with its message instead of ending
    one task."""
