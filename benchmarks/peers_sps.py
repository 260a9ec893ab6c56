"""Random-policy steps/s of Maze-PartialObs-v0 beside XLand-MiniGrid, NAVIX and EnvPool at several batch sizes.

    python3 benchmarks/peers_sps.py [--num-envs 1 64 1024 4096] [--seconds 1] [--rounds 3] [--json out.json]

maze-envs: ``Maze-PartialObs-v0`` 10x10 cells, ``visibility=3``, default options (the 20-step
no-exploration limit on), through ``gym.make`` at N=1 and the native vector env above. Peers
(the ``bench`` extra, CPU builds): XLand-MiniGrid ``MiniGrid-FourRooms`` (JAX; jit + vmap + scan,
same-step autoreset), NAVIX ``Navix-FourRooms-v0`` (JAX; jit + vmap + scan, its own autoreset) and
EnvPool ``MiniGrid-FourRooms-v0`` (C++ threads, one per core). Every env steps uniform random
actions and autoresets; the JAX peers draw theirs inside the compiled scan, so their policy costs
them nothing and no Python runs per step. Each (env, N) is measured ``--rounds`` times, interleaved
with the others so machine load hits all alike; the best round counts. A JAX peer's compile time
(first call of its jitted rollout) is reported apart and not counted in its steps/s. A peer that
is not installed is skipped with a note.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym  # noqa: E402

import maze_envs  # noqa: E402,F401

OURS = "maze-envs"
Runner = Callable[[float], float]


@dataclass
class Row:
    """One (env, N) measurement: best steps/s over the rounds and, for JAX peers, compile seconds."""

    env: str
    num_envs: int
    steps_per_s: float
    compile_s: float | None = None


def ours(num_envs: int) -> Runner:
    """Return a runner of Maze-PartialObs-v0 (``gym.make`` at N=1, the native vector env above)."""
    kwargs = {"rows": 10, "cols": 10, "visibility": 3}
    rng = np.random.default_rng(0)
    if num_envs == 1:
        env = gym.make("Maze-PartialObs-v0", **kwargs)
        env.reset(seed=0)
        space = env.action_space
        actions = [space.sample() for _ in range(4096)]

        def run_single(seconds: float) -> float:
            steps, start = 0, time.perf_counter()
            while time.perf_counter() - start < seconds:
                for action in actions:
                    _, _, terminated, truncated, _ = env.step(action)
                    if terminated or truncated:
                        env.reset()
                steps += len(actions)
            return steps / (time.perf_counter() - start)

        return run_single
    venv = gym.make_vec("Maze-PartialObs-v0", num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)
    venv.reset(seed=0)
    batches = [venv.action_space.sample() for _ in range(16)]

    def run_vector(seconds: float) -> float:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(20):
                venv.step(batches[int(rng.integers(len(batches)))])
            steps += 20 * num_envs
        return steps / (time.perf_counter() - start)

    return run_vector


def _jax_runner(reset: Callable, step: Callable, num_actions: int, num_envs: int) -> tuple[Runner, float]:
    """Return a runner of a JAX env's jitted vmap+scan random rollout and its compile seconds."""
    import jax

    length = max(16, 16384 // num_envs)

    def rollout(carry, key):
        def body(state, k):
            actions = jax.random.randint(k, (num_envs,), 0, num_actions)
            return jax.vmap(step)(state, actions), None

        state, _ = jax.lax.scan(body, carry, jax.random.split(key, length))
        return state

    fn = jax.jit(rollout)
    key = jax.random.PRNGKey(0)
    state = jax.jit(jax.vmap(reset))(jax.random.split(key, num_envs))
    start = time.perf_counter()
    state = jax.block_until_ready(fn(state, key))
    compile_s = time.perf_counter() - start
    holder = {"state": state, "key": key}

    def run(seconds: float) -> float:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            holder["key"], sub = jax.random.split(holder["key"])
            holder["state"] = jax.block_until_ready(fn(holder["state"], sub))
            steps += length * num_envs
        return steps / (time.perf_counter() - start)

    return run, compile_s


def xland(num_envs: int) -> tuple[Runner, float]:
    """Return a runner of XLand-MiniGrid's MiniGrid-FourRooms (same-step autoreset) and its compile seconds."""
    import xminigrid
    from xminigrid.wrappers import GymAutoResetWrapper

    env, params = xminigrid.make("MiniGrid-FourRooms")
    env = GymAutoResetWrapper(env)
    return _jax_runner(lambda k: env.reset(params, k), lambda t, a: env.step(params, t, a),
                       env.num_actions(params), num_envs)


def navix(num_envs: int) -> tuple[Runner, float]:
    """Return a runner of NAVIX's Navix-FourRooms-v0 (its own autoreset) and its compile seconds."""
    import navix as nx

    env = nx.make("Navix-FourRooms-v0")
    return _jax_runner(env.reset, env.step, len(env.action_set), num_envs)


def envpool(num_envs: int) -> Runner:
    """Return a runner of EnvPool's MiniGrid-FourRooms-v0 (C++ threads, synchronous batches)."""
    import envpool as ep

    env = ep.make_gymnasium("MiniGrid-FourRooms-v0", num_envs=num_envs, batch_size=num_envs,
                            num_threads=min(num_envs, os.cpu_count() or 1), seed=0)
    env.reset()
    n_actions = env.action_space.n
    rng = np.random.default_rng(0)
    batches = [rng.integers(0, n_actions, num_envs) for _ in range(16)]

    def run(seconds: float) -> float:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for i in range(20):
                env.step(batches[i % 16])
            steps += 20 * num_envs
        return steps / (time.perf_counter() - start)

    return run


PEERS: dict[str, Callable[[int], object]] = {"XLand-MiniGrid": xland, "NAVIX": navix, "EnvPool": envpool}


def build(sizes: list[int]) -> tuple[dict[tuple[str, int], Runner], dict[tuple[str, int], float]]:
    """Return the runners of every (env, N) whose package is installed, and the JAX peers' compile seconds."""
    runners: dict[tuple[str, int], Runner] = {}
    compiles: dict[tuple[str, int], float] = {}
    for n in sizes:
        runners[(OURS, n)] = ours(n)
    for name, make in PEERS.items():
        for n in sizes:
            try:
                made = make(n)
            except ImportError as exc:
                print(f"({name} is not installed: {exc}; pip install -e '.[bench]')")
                break
            if isinstance(made, tuple):
                runners[(name, n)], compiles[(name, n)] = made
            else:
                runners[(name, n)] = made
    return runners, compiles


def main(argv: list[str] | None = None) -> int:
    """Measure every (env, N) in interleaved rounds, print steps/s and ratios; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num-envs", type=int, nargs="+", default=[1, 64, 1024, 4096], help="batch sizes")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement (default 1)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the best counts (default 3)")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    runners, compiles = build(args.num_envs)
    best: dict[tuple[str, int], float] = {}
    for _ in range(args.rounds):
        for key, run in runners.items():
            best[key] = max(best.get(key, 0.0), run(args.seconds))
    names = [OURS] + [name for name in PEERS if any(k[0] == name for k in best)]
    print(f"\n{'N':>6} " + " ".join(f"{name:>15}" for name in names) + f" {'ours/best peer':>15}")
    rows = []
    for n in args.num_envs:
        cells, peer_best = [], 0.0
        for name in names:
            rate = best.get((name, n))
            cells.append(f"{rate:>15,.0f}" if rate else f"{'-':>15}")
            if rate is not None:
                rows.append(Row(name, n, rate, compiles.get((name, n))))
                if name != OURS:
                    peer_best = max(peer_best, rate)
        ratio = f"{best[(OURS, n)] / peer_best:>14.2f}x" if peer_best else f"{'-':>15}"
        print(f"{n:>6} " + " ".join(cells) + f" {ratio}")
    if compiles:
        print("\nJAX compile seconds (first call of the jitted rollout, not counted above):")
        for (name, n), seconds in compiles.items():
            print(f"  {name:<15} N={n:<5} {seconds:6.2f} s")
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    if args.json:
        from maze_envs.core.jsonfiles import write_json_atomic

        write_json_atomic(args.json, {"rows": [asdict(r) for r in rows], "args": vars(args),
                                      "load_average": os.getloadavg()}, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
