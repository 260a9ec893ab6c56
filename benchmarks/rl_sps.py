"""PPO training steps per second: single-file PPO on the native vector env vs SB3 PPO on ``gym.make`` envs.

    python3 benchmarks/rl_sps.py [--env-id Maze-PartialObs-v0] [--env-kwargs '{"rows": 5, "cols": 5}']
                                 [--timesteps 65536] [--num-envs 64] [--threads 1]

Both train the same network (one-hot codes into separate 64-64 tanh actor and critic MLPs) with the same
rollout (``--num-envs`` envs x 64 steps), 4 minibatches and 4 epochs, on ``--threads`` torch CPU threads, in
one run so machine load hits both alike. Steps/s counts env steps of the whole training (rollouts and
updates). Needs the ``rl`` extra.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from maze_envs.agents.rl.ppo_native import Args, train  # noqa: E402
from maze_envs.agents.rl.sb3_policy import make_dummy_vec_env, make_model  # noqa: E402


def main() -> None:
    """Train both for ``--timesteps`` steps and print steps/s and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="Maze-PartialObs-v0")
    parser.add_argument("--env-kwargs", type=json.loads, default={"rows": 5, "cols": 5})
    parser.add_argument("--timesteps", type=int, default=65536)
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        train(Args(env_id=args.env_id, env_kwargs=args.env_kwargs, total_timesteps=args.timesteps,
                   num_envs=args.num_envs, num_steps=64, num_minibatches=4, update_epochs=4,
                   torch_threads=args.threads, out=str(Path(tmp) / "native")))
        native = args.timesteps / (time.perf_counter() - start)
        torch.set_num_threads(args.threads)
        venv = make_dummy_vec_env(args.env_id, args.num_envs, **args.env_kwargs)
        model = make_model("ppo", venv, seed=0, log_dir=None, n_steps=64, batch_size=64 * args.num_envs // 4,
                           n_epochs=4, learning_rate=2.5e-4, ent_coef=0.01)
        start = time.perf_counter()
        model.learn(total_timesteps=args.timesteps)
        sb3 = args.timesteps / (time.perf_counter() - start)
    print(f"{args.env_id} {args.env_kwargs}, {args.num_envs} envs, {args.timesteps:,} steps, {args.threads} thread(s)")
    print("| trainer | env | training steps/s |\n| --- | --- | ---: |")
    print(f"| single-file PPO (agents/rl/ppo_native.py) | native vector env | {native:,.0f} |")
    print(f"| stable-baselines3 PPO | gym.make x {args.num_envs}, DummyVecEnv | {sb3:,.0f} |")
    print(f"ratio: {native / sb3:.1f}x")


if __name__ == "__main__":
    main()
