"""GaussianNav-PointGoal-v0 steps per second on the embedded CPU renderer, at two view sizes.

    python3 benchmarks/nav_env_sps.py [--steps 30] [--sizes 720x640 128x128] [--json out.json]

Each size runs one env (procedural 4x4 maze scenes, three views per step) with a policy that walks 1 m
towards the goal, resetting when an episode ends; the numba kernels are compiled before timing. Targets
(issue 13): >= 4 steps/s at 720x640 x3 views, >= 100 steps/s at 128x128 x3. Besides wall-clock steps/s it
prints the CPU time per step (all threads, ``time.process_time``) and the load average, since other work on
the machine slows the wall clock but not the CPU time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import maze_envs  # noqa: E402,F401

TARGETS = {(720, 640): 4.0, (128, 128): 100.0}


def steps_per_second(width: int, height: int, steps: int) -> tuple[float, float]:
    """Return (env steps/s, CPU seconds per step) at ``width`` x ``height`` views over ``steps`` timed steps
    after a warm-up."""
    env = gym.make("GaussianNav-PointGoal-v0", view_width=width, view_height=height)
    obs, _ = env.reset(seed=0)

    def act(o):
        target = o["target_position"]
        return {"waypoint": (target / max(1.0, float(np.linalg.norm(target))))[None].astype(np.float32), "arrive": 0}

    for _ in range(3):
        obs, _, terminated, truncated, _ = env.step(act(obs))
        if terminated or truncated:
            obs, _ = env.reset()
    start, cpu_start = time.perf_counter(), time.process_time()
    for _ in range(steps):
        obs, _, terminated, truncated, _ = env.step(act(obs))
        if terminated or truncated:
            obs, _ = env.reset()
    return steps / (time.perf_counter() - start), (time.process_time() - cpu_start) / steps


def main() -> int:
    """Print steps/s per size against its target; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--sizes", nargs="+", default=["720x640", "128x128"])
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args()
    figures = {}
    for size in args.sizes:
        w, h = (int(v) for v in size.lower().split("x"))
        sps, cpu = steps_per_second(w, h, args.steps)
        target = TARGETS.get((w, h))
        verdict = "" if target is None else f"  (target >= {target:g}: {'met' if sps >= target else 'MISSED'})"
        load = os.getloadavg()[0]
        print(f"{w}x{h} x3 views: {sps:8.1f} steps/s{verdict}; CPU {cpu * 1000:.1f} ms a step (all threads); "
              f"load average {load:.1f} on {os.cpu_count()} CPUs", flush=True)
        figures[size] = {"steps_per_second": sps, "cpu_seconds_per_step": cpu, "load_average": load,
                         "target": target}
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
