"""The oracle: A* on the dilated occupancy map the evaluator provides (``--provide-occ-map``), then straight
waypoints along the path, each as far as ``max_step`` metres with a clear line of sight; it declares arrival
when the goal is within its step. Works for point-goal and POI (``target_position`` is exact in both)."""

from __future__ import annotations

import heapq
import math

import numpy as np

from maze_envs.nav.interface.poi_goal import BasePoiGoalAgent
from maze_envs.nav.interface.point_goal import AgentConfigError, BasePointGoalAgent, Observation, WaypointPrediction
from maze_envs.nav.scene import Episode, GaussianScene

_MOVES = [(-1, 0, 1.0), (1, 0, 1.0), (0, -1, 1.0), (0, 1, 1.0),
          (-1, -1, math.sqrt(2)), (-1, 1, math.sqrt(2)), (1, -1, math.sqrt(2)), (1, 1, math.sqrt(2))]


def astar(free: np.ndarray, start: tuple[int, int], goal: tuple[int, int]) -> list[tuple[int, int]] | None:
    """Return the shortest 8-connected path of (row, col) pixels over ``free`` from ``start`` to ``goal``
    (no corner cutting; octile heuristic), or None when the goal cannot be reached."""
    h, w = free.shape
    if not (free[start] and free[goal]):
        return None
    came: dict[tuple[int, int], tuple[int, int]] = {}
    cost = {start: 0.0}
    frontier = [(0.0, start)]
    gr, gc = goal
    while frontier:
        _, node = heapq.heappop(frontier)
        if node == goal:
            path = [node]
            while node in came:
                node = came[node]
                path.append(node)
            return path[::-1]
        r, c = node
        base = cost[node]
        for dr, dc, step in _MOVES:
            nr, nc = r + dr, c + dc
            if not (0 <= nr < h and 0 <= nc < w) or not free[nr, nc]:
                continue
            if dr and dc and not (free[r, nc] and free[nr, c]):
                continue
            new = base + step
            if new < cost.get((nr, nc), math.inf):
                cost[(nr, nc)] = new
                came[(nr, nc)] = node
                dy, dx = abs(nr - gr), abs(nc - gc)
                heapq.heappush(frontier, (new + max(dy, dx) + (math.sqrt(2) - 1) * min(dy, dx), (nr, nc)))
    return None


class OraclePointGoalAgent(BasePointGoalAgent):
    """Follows the A* path to the goal on ``occ_map`` (>= 128 free, as the evaluator dilated it) in steps of at
    most ``max_step`` metres; ``arrive_threshold`` is the distance under which it declares arrival."""

    def __init__(self, max_step: float = 2.0, arrive_threshold: float = 0.5, **_: object):
        self.max_step = max_step
        self.arrive_threshold = arrive_threshold
        self.reset()

    def reset(self) -> None:
        """Forget the planned path."""
        self._path: list[np.ndarray] | None = None

    def _plan(self, obs: Observation, goal: np.ndarray) -> list[np.ndarray]:
        if obs.occ_map is None or not obs.meta_data:
            raise AgentConfigError("the oracle needs the occupancy map: run nav-eval with --provide-occ-map "
                                  "(or EvalConfig(provide_occ_map=True))")
        occ = obs.occ_map.mean(axis=2) if obs.occ_map.ndim == 3 else obs.occ_map
        self._episode = Episode("oracle", "", [], occ, None, obs.meta_data)
        start_px = GaussianScene.convert_actual_to_pixel(obs.position[0], obs.position[1], self._episode)
        goal_px = GaussianScene.convert_actual_to_pixel(goal[0], goal[1], self._episode)
        path = astar(occ >= 128, (start_px[1], start_px[0]), (goal_px[1], goal_px[0]))
        if path is None:
            return [goal]
        points = [np.array(GaussianScene.convert_pixel_to_actual(c + 0.5, r + 0.5, self._episode)) for r, c in path]
        return points[1:-1] + [goal]

    def _clear(self, a: np.ndarray, b: np.ndarray) -> bool:
        return not GaussianScene.check_line_collision_fast(a, b, self._episode)

    def predict(self, observation: Observation) -> WaypointPrediction:
        """Return the next waypoint along the path (``[front, left]``), declaring arrival at the goal."""
        pose = np.asarray(observation.rotation, float)
        here = pose[:2, 3]
        goal = here + pose[:2, :2] @ np.asarray(observation.target_position, float)
        if observation.distance_to_goal < self.arrive_threshold:
            return WaypointPrediction(np.zeros((1, 2)), arrive=True)
        if self._path is None:
            self._path = self._plan(observation, goal)
        target_index = 0
        for i, point in enumerate(self._path):
            if np.linalg.norm(point - here) > self.max_step or not self._clear(here, point):
                break
            target_index = i
        target = self._path[target_index]
        self._path = self._path[target_index + 1:] or [goal]
        arrive = bool(np.linalg.norm(target - goal) < 1e-9)
        local = pose[:2, :2].T @ (target - here)
        return WaypointPrediction(local[None], arrive=arrive)


class OraclePoiGoalAgent(OraclePointGoalAgent, BasePoiGoalAgent):
    """The oracle for POI tasks (arrival within 2.0 m by default)."""

    def __init__(self, max_step: float = 2.0, arrive_threshold: float = 2.0, **kwargs: object):
        super().__init__(max_step=max_step, arrive_threshold=arrive_threshold, **kwargs)
