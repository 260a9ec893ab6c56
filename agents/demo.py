"""Demo step of the grid envs: the oracle in Maze-v0, the frontier explorer and a random agent in Maze-PartialObs-v0."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym

import maze_envs  # noqa: F401  (registers the ids)

from .base import run_episode
from .explorer import FrontierExplorer
from .oracle import OracleAgent
from .random_agent import RandomAgent

SEEDS = 5


def demo_step(out_dir: Path, seed: int) -> str:
    """Return a summary after printing each agent's success and steps on a few 10x10 mazes."""
    full = gym.make("Maze-v0", rows=10, cols=10)
    partial = gym.make("Maze-PartialObs-v0", rows=10, cols=10, visibility=3)
    agents = [("oracle", full, OracleAgent(full)), ("explorer", partial, FrontierExplorer(partial.action_space)),
              ("random", partial, RandomAgent(partial.action_space, seed))]
    summary = []
    for name, env, agent in agents:
        results = [run_episode(env, agent, seed + i, hide=("position", "goal")) for i in range(SEEDS)]
        for i, r in enumerate(results):
            print(f"  {name:<8} {env.spec.id:<19} seed {seed + i}: {'goal' if r.success else 'failed'} in "
                  f"{r.steps} steps (optimal {r.info['optimal_length']} moves)")
        summary.append(f"{name} {sum(r.success for r in results)}/{SEEDS}")
    return "envs: 10x10 mazes, goals reached: " + ", ".join(summary)
