"""Train the single-file PPO on Maze-PartialObs-v0 (5x5 mazes, a new one per reset) and evaluate it on held-out
seeds beside the random and oracle agents (extra ``rl``: torch).

    python3 examples/train_ppo.py [OUT_DIR] [--timesteps N] [--episodes N]    # default ./train-ppo

1. trains ``agents.rl.ppo_native`` (CleanRL-style PPO stepping the native vector env, the egocentric map as
   memory) for ``--timesteps`` steps, seed 0, one torch thread: ``OUT_DIR/progress.csv`` (one row per update)
   and ``OUT_DIR/model.pt``;
2. plays the trained policy (greedy), the random agent and the oracle on ``--episodes`` held-out seeds from
   1,000,000 with ``agents.evaluate.evaluate`` and prints the table (mean [95% interval]).

Everything stays in OUT_DIR. The defaults (100,000 steps, about 25 CPU seconds) solve about half of the
held-out mazes; the README's RL table trains the same setting for 1,000,000 steps
(``python3 -m maze_envs.agents.rl.train``) to 98%.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maze_envs.agents.evaluate import evaluate  # noqa: E402
from maze_envs.agents.oracle import OracleAgent  # noqa: E402
from maze_envs.agents.random_agent import RandomAgent  # noqa: E402
from maze_envs.agents.rl.egomap import EgocentricMap  # noqa: E402
from maze_envs.agents.rl.ppo_native import Args, load_policy, train  # noqa: E402

ENV_ID = "Maze-PartialObs-v0"
SIZE = {"rows": 5, "cols": 5}
EVAL_SEED = 1_000_000
COLUMNS = ("success", "path_efficiency", "steps", "wall_bumps")


def main(argv: list[str] | None = None) -> int:
    """Train, evaluate and print as the module docstring says; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="train-ppo", help="output folder (default ./train-ppo)")
    parser.add_argument("--timesteps", type=int, default=100_000, help="training steps (default 100000)")
    parser.add_argument("--episodes", type=int, default=50, help="held-out evaluation episodes (default 50)")
    options = parser.parse_args(argv)

    args = Args(env_id=ENV_ID, env_kwargs=SIZE, ego_map=True, seed=0, total_timesteps=options.timesteps,
                num_envs=32, num_steps=64, learning_rate=5e-4, torch_threads=1, out=options.out)
    out = train(args)
    with open(out / "progress.csv", encoding="utf-8") as f:
        last = list(csv.DictReader(f))[-1]
    print(f"1. trained {last['global_step']} steps ({last['charts/SPS']} steps/s); sampled success in the last "
          f"update {float(last['charts/success_rate']):.2f}; log and model in {out}")

    policy, _ = load_policy(out / "model.pt")
    seeds = range(EVAL_SEED, EVAL_SEED + options.episodes)
    tables = [evaluate(policy, ENV_ID, seeds, wrappers=(EgocentricMap,), **SIZE),
              evaluate(lambda env: RandomAgent(env.action_space, 0), ENV_ID, seeds, **SIZE),
              evaluate(OracleAgent, ENV_ID, seeds, **SIZE)]
    print(f"2. {options.episodes} held-out mazes (seeds {EVAL_SEED}..{EVAL_SEED + options.episodes - 1}), "
          f"mean [95% interval]:")
    print("\n".join(tables[0].markdown(COLUMNS).splitlines()[:2]))
    for table in tables:
        print(table.markdown(COLUMNS).splitlines()[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
