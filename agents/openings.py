"""Agents for Maze-Openings-v0: an oracle that solves the maze by BFS, and a uniform random guesser.

Both follow the agent interface: ``reset()`` before an episode, ``act(observation, info) -> action``.
"""

from __future__ import annotations

import numpy as np

from maze_envs.envs.openings.env import NO, YES, label_pairs
from maze_envs.openings.dataset import maze_from_record
from maze_envs.openings.puzzle import LABELS, connected_labels


class OpeningsOracleAgent:
    """Answers every question form correctly: BFS between the openings of ``info["puzzle"]``."""

    def reset(self) -> None:
        """Start an episode (the oracle keeps no state)."""

    def act(self, observation: dict, info: dict) -> int:
        """Return the correct action for the observation's question."""
        maze, openings = maze_from_record(info["puzzle"], source="info['puzzle']")
        (a, b), = connected_labels(maze, openings)
        i, j = LABELS.index(a), LABELS.index(b)
        form = info["question_form"]
        if form == "pair":
            return label_pairs(info["max_openings"]).index((i, j))
        if form == "partner":
            given = int(observation["given"])
            return j if given == i else i
        proposal = sorted(int(k) for k in observation["proposal"])
        return YES if proposal == [i, j] else NO


class OpeningsRandomAgent:
    """Guesses uniformly among the actions that ``info["action_mask"]`` allows (chance level)."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Start an episode (the random stream carries on)."""

    def act(self, observation: dict, info: dict) -> int:
        """Return a uniform random allowed action."""
        allowed = np.flatnonzero(info["action_mask"])
        return int(allowed[int(self.rng.integers(allowed.size))])
