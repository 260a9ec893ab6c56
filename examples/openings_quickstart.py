"""Labelled-openings puzzle in a few lines: make one, render it, check it, and ask Maze-Openings-v0.

Run: ``python3 examples/openings_quickstart.py [OUT_DIR]`` (writes openings_example.png there).
"""

import sys
from pathlib import Path

import gymnasium as gym

import maze_envs  # noqa: F401  (registers Maze-Openings-v0)
from maze_envs.agents.openings import OpeningsOracleAgent, OpeningsRandomAgent
from maze_envs.openings.puzzle import generate_openings, validate_openings
from maze_envs.openings.render import render_openings

out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
out.mkdir(parents=True, exist_ok=True)

puzzle = generate_openings(12, 15, num_openings=5, seed=7)
print(f"{puzzle.maze.rows}x{puzzle.maze.cols}, {puzzle.num_openings} openings, answer {puzzle.answer}, "
      f"path {puzzle.path_length} cells, {puzzle.difficulty}, checks pass: {validate_openings(puzzle).ok}")
render_openings(puzzle).image.save(out / "openings_example.png")

env = gym.make("Maze-Openings-v0", question="partner", rows=(8, 12), cols=(8, 12))
for agent in (OpeningsOracleAgent(), OpeningsRandomAgent(seed=0)):
    total = 0.0
    for episode in range(20):
        obs, info = env.reset(seed=episode)
        agent.reset()
        total += env.step(agent.act(obs, info))[1]
    print(f"{type(agent).__name__}: {total:.0f}/20 correct")
