"""The RL rows the docs quote: the torch single-file PPO (``ppo-native``, the native vector env) beside the jitted JAX
PPO (``ppo-jax``, the JAX twin) on the same partial-view settings, seeds and held-out evaluation.

    python3 benchmarks/rl_rows.py [--rows 5x5 9x9] [--seeds 0 1 2] [--algos ppo-native ppo-jax] [--eval-episodes 200]

Each (row, algorithm, seed) runs ``python3 -m maze_envs.agents.rl.train`` in its own process, one after another,
and is evaluated greedily or sampled as its row says, on ``--eval-episodes`` held-out seeds from 1,000,000 (maze
layouts neither trainer saw). It prints one line per run (training minutes, held-out success and path efficiency),
then per row and algorithm the median success over the seeds, how many seeds reached the row's aim, the mean
minutes, and the torch/JAX ratio of minutes. Needs the ``rl`` and ``jax`` extras; the machine should be otherwise
idle (the load average is printed before and after).

Rows:

- ``5x5``: ``Maze-PartialObs-v0`` 5x5 cells, Discrete moves, the ego map, 1,000,000 steps, greedy evaluation; aim 0.80.
- ``9x9``: 9x9 cells, ``multi`` moves, the ego map and the CNN, trained with a 60-step no-exploration limit and
  evaluated under the default 20, 1,400,000 steps, sampled evaluation; aim 0.80.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ROWS: dict[str, dict] = {
    "5x5": {"aim": 0.8, "flags": ["--env-kwargs", '{"rows": 5, "cols": 5}', "--ego-map", "--timesteps", "1000000"]},
    "9x9": {"aim": 0.8, "flags": [
        "--env-kwargs", '{"rows": 9, "cols": 9, "action_mode": "multi", "max_no_exploration_steps": 60}',
        "--eval-env-kwargs", '{"rows": 9, "cols": 9, "action_mode": "multi"}', "--ego-map", "--network", "cnn",
        "--hidden", "128", "--reveal-bonus", "0.01", "--ent-coef", "0.02", "--update-epochs", "2", "--sample-eval",
        "--timesteps", "1400000"]},
}


def train_once(row: str, algo: str, seed: int, eval_episodes: int, out: Path) -> dict:
    """Train and evaluate one (row, algorithm, seed) in its own process; return its ``results.json``."""
    command = [sys.executable, "-m", "maze_envs.agents.rl.train", "--algo", algo, "--env-id", "Maze-PartialObs-v0",
               *ROWS[row]["flags"], "--seed", str(seed), "--eval-episodes", str(eval_episodes), "--out", str(out)]
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def held_out(results: dict, algo: str) -> tuple[float, float]:
    """Return the trained agent's held-out success rate and path efficiency."""
    rows = results["tables"][algo]["rows"]
    return (statistics.fmean(r["success"] for r in rows), statistics.fmean(r["path_efficiency"] for r in rows))


def main() -> None:
    """Run every (row, algorithm, seed) and print the runs, then the summary per row and algorithm."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", choices=sorted(ROWS), default=sorted(ROWS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--algos", nargs="+", choices=["ppo-native", "ppo-jax"], default=["ppo-native", "ppo-jax"])
    parser.add_argument("--eval-episodes", type=int, default=200)
    args = parser.parse_args()
    print(f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.2f} at the start")
    runs: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for row in args.rows:
            for seed in args.seeds:
                for algo in args.algos:
                    results = train_once(row, algo, seed, args.eval_episodes, Path(tmp) / f"{row}-{algo}-{seed}")
                    success, efficiency = held_out(results, algo)
                    minutes = results["train_seconds"] / 60
                    runs.setdefault((row, algo), []).append((success, efficiency, minutes))
                    print(f"{row}  {algo:<10}  seed {seed}  {minutes:5.1f} min  held-out success {success:.2f}, "
                          f"path efficiency {efficiency:.2f}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at the end\n")
    print("| row | algorithm | seeds | median success | seeds at the aim | mean train min | min vs ppo-native |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for (row, algo), found in runs.items():
        minutes = statistics.fmean(m for _, _, m in found)
        base = runs.get((row, "ppo-native"))
        ratio = f"{minutes / statistics.fmean(m for _, _, m in base):.2f}x" if base else "-"
        reached = sum(s >= ROWS[row]["aim"] for s, _, _ in found)
        print(f"| {row} | {algo} | {len(found)} | {statistics.median(s for s, _, _ in found):.2f} | "
              f"{reached}/{len(found)} | {minutes:.1f} | {ratio} |")


if __name__ == "__main__":
    main()
