"""Helpers of the benchmark tests: small maze sets on disk and a policy that solves the text2d prompt."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from maze_envs.core.maze import Grid
from maze_envs.core.solve import shortest_path
from maze_envs.core.textmaze import format_path
from maze_envs.datasets import generate_text_mazes

LEGEND = re.compile(r"'(.)' = wall, '(.)' = passage, '(.)' = start, '(.)' = goal")


def write_mazes(root: Path, sizes=("5x5", "9x9"), count: int = 2, seed: int = 0) -> Path:
    """Write ``count`` benchmark mazes per size under ``root``; return it."""
    generate_text_mazes(list(sizes), count, seed, root)
    return root


def solve_text2d(text: str) -> str:
    """Return a shortest path for the text2d prompt in ``text`` (read through its legend), as (r,c) pairs."""
    wall, passage, start, goal = LEGEND.search(text).groups()
    alphabet = {wall, passage, start, goal}
    rows = [line for line in text.splitlines() if line and set(line) <= alphabet and len(line) > 1]
    chars = np.array([list(r) for r in rows])
    locate = lambda s: tuple(int(v) for v in np.argwhere(chars == s)[0])  # noqa: E731
    return format_path(shortest_path(Grid((chars == wall).astype(np.uint8), locate(start), locate(goal))))


def slow_oracle(request):
    """A local-server policy: the oracle's answer after 0.15 s (so a run can be killed midway)."""
    import time

    from maze_envs.llm import OraclePolicy

    time.sleep(0.15)
    return OraclePolicy()(request)
