"""The public evaluator's example agent: step towards the goal with a noisy direction."""

from __future__ import annotations

import numpy as np

from maze_envs.nav.interface.point_goal import BasePointGoalAgent, Observation, WaypointPrediction


class RandomPointGoalAgent(BasePointGoalAgent):
    """Steps up to ``step_size`` metres along the goal direction plus N(0, ``noise_std``^2) per component
    (renormalised); declares arrival within ``arrive_distance``. ``seed`` fixes the noise."""

    def __init__(self, step_size: float = 1.0, noise_std: float = 0.3, arrive_distance: float = 0.5,
                 seed: int | None = None, **_: object):
        self.step_size = step_size
        self.noise_std = noise_std
        self.arrive_distance = arrive_distance
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Nothing to forget."""

    def predict(self, observation: Observation) -> WaypointPrediction:
        """Return a noisy step towards ``target_position`` (``[front, left]``), or arrival when close."""
        target = np.asarray(observation.target_position, float)
        if observation.distance_to_goal < self.arrive_distance:
            return WaypointPrediction(np.zeros((1, 2)), arrive=True, confidence=1.0)
        norm = float(np.linalg.norm(target))
        direction = target / norm if norm > 1e-6 else np.array([1.0, 0.0])
        direction = direction + self.rng.normal(0.0, self.noise_std, 2)
        direction /= max(float(np.linalg.norm(direction)), 1e-9)
        waypoint = direction * min(self.step_size, norm)
        return WaypointPrediction(waypoint[None], arrive=False, directions=direction[None],
                                  confidence=1.0 - self.noise_std)


class RandomWalkPointGoalAgent(BasePointGoalAgent):
    """A baseline that ignores the goal: steps ``step_size`` metres in a uniformly random direction, never
    declares arrival. ``seed`` fixes the walk."""

    def __init__(self, step_size: float = 1.0, seed: int | None = None, **_: object):
        self.step_size = step_size
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Nothing to forget."""

    def predict(self, observation: Observation) -> WaypointPrediction:
        """Return a step in a random direction."""
        angle = self.rng.uniform(-np.pi, np.pi)
        return WaypointPrediction(self.step_size * np.array([[np.cos(angle), np.sin(angle)]]))
