"""Agents for the navigation evaluation tests (importable as ``_nav_agents`` with tests/ on the path)."""

import time

from agents.nav.oracle import OraclePointGoalAgent


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
