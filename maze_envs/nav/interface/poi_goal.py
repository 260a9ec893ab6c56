"""The POI-goal agent interface: ``PoiGoalObservation`` (an ``Observation`` plus ``poi_name``)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from .point_goal import Observation, WaypointPrediction


@dataclass
class PoiGoalObservation(Observation):
    """An ``Observation`` whose goal is named: ``poi_name`` (e.g. "Red Kiosk"); ``goal_world`` is None, and
    ``target_position`` is still the exact local goal vector, as in the benchmark."""

    poi_name: str = ""


class BasePoiGoalAgent(ABC):
    """A POI-goal agent: the evaluator calls ``reset()`` before each task and ``predict()`` each step."""

    @abstractmethod
    def reset(self) -> None:
        """Forget the previous task."""

    @abstractmethod
    def predict(self, observation: PoiGoalObservation) -> WaypointPrediction:
        """Return the next waypoint(s) and whether the agent has arrived."""
