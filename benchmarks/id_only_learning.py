"""Learning from the id alone: random success on the 5x5 ids, then the single-file PPO given only an id and a step
budget, as CleanRL-style tools run it (no env kwargs, no wrappers, no reward shaping).

    python3 benchmarks/id_only_learning.py [--env-id Maze-PartialObs-Flat-5x5-v0] [--timesteps 300000]
                                           [--episodes 200] [--seed 0] [--threads 1]

Prints the random policy's success on every registered 5x5 grid id, then trains ``agents.rl.ppo_native`` on
``--env-id`` with ``env_kwargs={}`` (its defaults: 64 envs x 64 steps, 4 epochs, one torch thread), and prints
the minutes it took, the training success of its last rollouts and its success on ``--episodes`` held-out seeds
(from 1,000,000), greedy and sampled, beside the machine's load average (the CPU may be shared). Needs the
``rl`` extra.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maze_envs.agents.evaluate import evaluate  # noqa: E402
from maze_envs.agents.random_agent import RandomAgent  # noqa: E402
from maze_envs.agents.rl.ppo_native import Args, load_policy, train  # noqa: E402
from maze_envs.envs.registration import SIZED_FAMILIES, sized_id  # noqa: E402

HELD_OUT = 1_000_000


def random_success(env_id: str, episodes: int, seed: int) -> float:
    """Return the success rate of a seeded random policy on ``episodes`` held-out seeds of ``env_id``."""
    seeds = range(HELD_OUT, HELD_OUT + episodes)
    return evaluate(lambda env: RandomAgent(env.action_space, seed), env_id, seeds).mean("success")


def last_training_success(run_dir: Path, rows: int = 5) -> float:
    """Return the mean training success rate of the last ``rows`` rollouts in ``progress.csv``."""
    with open(run_dir / "progress.csv", encoding="utf-8") as f:
        rates = [float(r["charts/success_rate"]) for r in csv.DictReader(f) if r["charts/success_rate"] != "nan"]
    tail = rates[-rows:]
    return sum(tail) / len(tail) if tail else float("nan")


def main() -> None:
    """Print the random baselines, then train and evaluate PPO from the id alone."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="Maze-PartialObs-Flat-5x5-v0")
    parser.add_argument("--timesteps", type=int, default=300_000)
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    print(f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.2f} at the start")
    for family in SIZED_FAMILIES:
        env_id = sized_id(family, 5)
        print(f"random  {env_id:32s} success {random_success(env_id, args.episodes, args.seed):.3f}")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run_dir = train(Args(env_id=args.env_id, env_kwargs={}, total_timesteps=args.timesteps, seed=args.seed,
                             torch_threads=args.threads, out=tmp))
        minutes = (time.perf_counter() - start) / 60
        training = last_training_success(run_dir)
        seeds = range(HELD_OUT, HELD_OUT + args.episodes)
        rates = {}
        for mode, deterministic in (("greedy", True), ("sampled", False)):
            policy, _ = load_policy(run_dir / "model.pt", deterministic=deterministic)
            rates[mode] = evaluate(policy, args.env_id, seeds).mean("success")
    print(f"ppo     {args.env_id:32s} {args.timesteps:,} steps in {minutes:.1f} min (load average "
          f"{os.getloadavg()[0]:.2f} at the end): training success {training:.3f}, held-out success greedy "
          f"{rates['greedy']:.3f}, sampled {rates['sampled']:.3f}")


if __name__ == "__main__":
    main()
