"""Agents for the navigation evaluation tests (importable as ``_nav_agents`` with tests/ on the path)."""

import time

import numpy as np

from maze_envs.agents.nav.oracle import OraclePointGoalAgent
from maze_envs.evaluators.nav.interface.point_goal import BasePointGoalAgent, WaypointPrediction


class SlowOracle(OraclePointGoalAgent):
    """The oracle, sleeping ``delay`` seconds per step so that a test can kill the run mid-way."""

    def __init__(self, delay: float = 0.3, **kwargs):
        super().__init__(**kwargs)
        self.delay = delay

    def predict(self, observation):
        """Return the oracle's prediction after sleeping."""
        time.sleep(self.delay)
        return super().predict(observation)


class ServerStopper(OraclePointGoalAgent):
    """The oracle that calls ``stop()`` on its ``calls``-th prediction (e.g. stopping a render server)."""

    def __init__(self, stop, calls: int = 2, **kwargs):
        super().__init__(**kwargs)
        self.stop, self.calls, self.count = stop, calls, 0

    def predict(self, observation):
        """Return the oracle's prediction; stops the server on the chosen call."""
        self.count += 1
        if self.count == self.calls:
            self.stop()
        return super().predict(observation)


class PilAgent(BasePointGoalAgent):
    """Uses PIL methods on its images, as an agent written for the public evaluator does; heads for the goal."""

    def reset(self):
        """Nothing to forget."""

    def predict(self, observation):
        """Return one step towards the goal, after shrinking and converting the front view with PIL."""
        front = observation.images["front"]
        assert front.size == (front.width, front.height)
        small = front.resize((8, 8)).convert("L")
        assert small.size == (8, 8)
        target = np.asarray(observation.target_position, float)
        step = target / max(np.linalg.norm(target), 1e-9) * min(1.0, float(np.linalg.norm(target)))
        return WaypointPrediction(step[None, :], arrive=bool(observation.distance_to_goal < 0.5))


class ScriptAgent(BasePointGoalAgent):
    """Replays ``script``: per step a (waypoints, directions or None, arrive) triple; the last one repeats."""

    def __init__(self, script):
        self.script = script
        self.reset()

    def reset(self):
        """Start the script again."""
        self.step = 0

    def predict(self, observation):
        """Return the script's next prediction."""
        waypoints, directions, arrive = self.script[min(self.step, len(self.script) - 1)]
        self.step += 1
        return WaypointPrediction(np.array(waypoints, float), arrive=arrive,
                                  directions=None if directions is None else np.array(directions, float))


class StoppingScriptAgent(ScriptAgent):
    """A ``ScriptAgent`` that calls ``stop()`` (e.g. stopping a render server) on its first prediction."""

    def __init__(self, script, stop):
        super().__init__(script)
        self.stop, self.stopped = stop, False

    def predict(self, observation):
        """Return the script's next prediction; stops the server the first time."""
        if not self.stopped:
            self.stopped = True
            self.stop()
        return super().predict(observation)
