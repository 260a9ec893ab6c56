"""Random-policy steps per second through ``gym.make``: our maze envs side by side with MiniGrid-FourRooms-v0.

    python3 benchmarks/env_sps.py [--seconds 2] [--rounds 3] [--num-envs 1024] [--json out.json]

Every env steps pre-drawn uniform random actions (the same method for all, so the policy costs
nothing) and resets when an episode ends; the vector env autoresets. Each env is measured
``--rounds`` times, interleaved with the others so machine load hits all alike, and the best round
counts. MiniGrid comes from the ``bench`` extra (``minigrid>=2.5,<3``, which uses pygame, not
pygame-ce); without it the ratios are skipped. Targets (issue 7): Maze-v0 >= 20x MiniGrid,
Maze-PartialObs-v0 >= 5x, the native vector env >= 2,000,000 steps/s in total.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import gymnasium as gym
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import maze_envs  # noqa: E402,F401


@dataclass
class Measure:
    """One env's best steps/s over the rounds."""

    name: str
    steps_per_s: float
    episodes: int


def _actions(space: gym.Space, n: int, rng: np.random.Generator) -> list:
    if isinstance(space, gym.spaces.Discrete):
        return rng.integers(0, space.n, n).tolist()
    return list(rng.integers(0, space.nvec, (n, *space.nvec.shape)))


def single_env_run(make: Callable[[], gym.Env], seconds: float) -> tuple[float, int]:
    """Return (steps/s, episodes) of random actions in one env for about ``seconds``."""
    env = make()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = episodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for action in _actions(env.action_space, 5000, rng):
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
                episodes += 1
        steps += 5000
    rate = steps / (time.perf_counter() - start)
    env.close()
    return rate, episodes


def vector_env_run(env_id: str, num_envs: int, seconds: float) -> tuple[float, int]:
    """Return (total steps/s, episodes) of random actions in the native vector env for about ``seconds``."""
    env = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    batches = [env.action_space.sample() for _ in range(16)]
    steps = episodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(50):
            _, _, terminated, truncated, _ = env.step(batches[int(rng.integers(len(batches)))])
            episodes += int((terminated | truncated).sum())
        steps += 50 * num_envs
    rate = steps / (time.perf_counter() - start)
    env.close()
    return rate, episodes


def main(argv: list[str] | None = None) -> int:
    """Measure, print the table and ratios, optionally write JSON; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement (default 2)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the best counts (default 3)")
    parser.add_argument("--num-envs", type=int, default=1024, help="sub-envs of the vector env (default 1024)")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)

    runs: dict[str, Callable[[], tuple[float, int]]] = {
        "Maze-v0 10x10": lambda: single_env_run(lambda: gym.make("Maze-v0", rows=10, cols=10), args.seconds),
        "Maze-PartialObs-v0 10x10 k=3": lambda: single_env_run(
            lambda: gym.make("Maze-PartialObs-v0", rows=10, cols=10, visibility=3), args.seconds),
        f"Maze-v0 vector x{args.num_envs}": lambda: vector_env_run("Maze-v0", args.num_envs, args.seconds),
        f"Maze-PartialObs-v0 vector x{args.num_envs}": lambda: vector_env_run(
            "Maze-PartialObs-v0", args.num_envs, args.seconds),
    }
    try:
        import minigrid

        gym.register_envs(minigrid)
        runs["MiniGrid-FourRooms-v0"] = lambda: single_env_run(lambda: gym.make("MiniGrid-FourRooms-v0"), args.seconds)
    except ImportError:
        print("minigrid is not installed (pip install -e '.[bench]'); measuring our envs only")

    best: dict[str, Measure] = {}
    for _ in range(args.rounds):
        for name, run in runs.items():
            rate, episodes = run()
            if name not in best or rate > best[name].steps_per_s:
                best[name] = Measure(name, rate, episodes)

    peer = best.get("MiniGrid-FourRooms-v0")
    print(f"{'env':<36} {'steps/s':>14} {'vs MiniGrid':>12}")
    for m in best.values():
        ratio = f"{m.steps_per_s / peer.steps_per_s:10.1f}x" if peer else "-"
        print(f"{m.name:<36} {m.steps_per_s:>14,.0f} {ratio:>12}")
    checks = [(f"Maze-v0 vector x{args.num_envs} >= 2,000,000 steps/s",
               best[f"Maze-v0 vector x{args.num_envs}"].steps_per_s >= 2_000_000)]
    if peer:
        checks += [("Maze-v0 >= 20x MiniGrid", best["Maze-v0 10x10"].steps_per_s >= 20 * peer.steps_per_s),
                   ("Maze-PartialObs-v0 >= 5x MiniGrid",
                    best["Maze-PartialObs-v0 10x10 k=3"].steps_per_s >= 5 * peer.steps_per_s)]
    for label, ok in checks:
        print(f"target {label}: {'met' if ok else 'MISSED'}")
    if args.json:
        from maze_envs.core.jsonfiles import write_json_atomic

        write_json_atomic(args.json, {"measures": [asdict(m) for m in best.values()],
                                      "targets": {label: ok for label, ok in checks}, "args": vars(args)}, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
