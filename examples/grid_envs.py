"""Grid maze envs in a few lines: play Maze-v0 with the oracle, explore Maze-PartialObs-v0, wrap, vectorize.

    python3 examples/grid_envs.py
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym
import numpy as np

import maze_envs  # noqa: F401  (registers Maze-v0 and Maze-PartialObs-v0)
from maze_envs.agents.base import run_episode
from maze_envs.agents.explorer import FrontierExplorer
from maze_envs.agents.oracle import OracleAgent
from maze_envs.envs.grid.wrappers import FlatObservation, TextObservation

# Full observation: the oracle walks a shortest path.
env = gym.make("Maze-v0", rows=8, cols=8, algorithm="wilson", placement="far")
result = run_episode(env, OracleAgent(env), seed=1)
print(f"Maze-v0: goal reached={result.success} in {result.steps} moves (optimal {result.info['optimal_length']})")

# Partial observation: a 7x7 line-of-sight window; the explorer never reads coordinates.
env = gym.make("Maze-PartialObs-v0", rows=8, cols=8, visibility=3, render_mode="ansi")
result = run_episode(env, FrontierExplorer(env.action_space), seed=1, hide=("position", "goal"))
print(f"Maze-PartialObs-v0: goal reached={result.success} in {result.steps} actions")
print(env.render())  # the explored part of the maze; '?' is unseen

# Wrappers: text for LLM agents, a flat vector for stable-baselines3.
text_env = TextObservation(gym.make("Maze-PartialObs-v0", rows=5, cols=5), format="grid")
print(text_env.reset(seed=0)[0])
flat_env = FlatObservation(gym.make("Maze-v0", rows=5, cols=5))
print("flat observation:", flat_env.observation_space)

# Native vector env: 256 mazes stepped in one numpy call, next-step autoreset.
venv = gym.make_vec("Maze-v0", num_envs=256, vectorization_mode="vector_entry_point", rows=6, cols=6)
obs, info = venv.reset(seed=0)
for _ in range(100):
    obs, reward, terminated, truncated, info = venv.step(venv.action_space.sample())
print(f"vector env: {obs.shape[0]} mazes, mean optimal length {np.mean(info['optimal_length']):.1f} moves")
