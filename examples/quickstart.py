"""Gymnasium quickstart: make a maze env, roll out a random policy, and read what the episode did.

    python3 examples/quickstart.py

Prints each episode's outcome (goal reached or truncated, steps, wall bumps, blocks seen) and the last maze as
text ('?' marks blocks the agent has not seen). A random walker is usually truncated: the partial-view env ends an
episode after 20 steps that reveal nothing new.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym  # noqa: E402

import maze_envs  # noqa: E402,F401  (registers Maze-v0, Maze-PartialObs-v0, Maze-Openings-v0)

env = gym.make("Maze-PartialObs-v0", rows=6, cols=6, visibility=3, render_mode="ansi")
env.action_space.seed(0)
for episode in range(3):
    observation, info = env.reset(seed=episode)
    terminated = truncated = False
    total = 0.0
    while not (terminated or truncated):
        observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
        total += reward
    print(f"episode {episode}: {'goal reached' if terminated else 'truncated'} after {info['steps']} steps, "
          f"{info['wall_bumps']} wall bumps, return {total:.1f}, {info['revealed']} blocks seen "
          f"(shortest path {info['optimal_length']} block moves)")
print(env.render())
env.close()
