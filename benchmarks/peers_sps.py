"""Random-policy steps/s of Maze-PartialObs-v0 (JAX twin and native env) beside XLand-MiniGrid, NAVIX, Jumanji and
EnvPool at several batch sizes.

    python3 benchmarks/peers_sps.py [--num-envs 0 1 64 1024 4096 16384] [--seconds 1] [--rounds 3]
                                    [--device cpu|gpu] [--max-call-s 30] [--json out.json]

maze-envs: ``Maze-PartialObs-v0`` 10x10 cells, ``visibility=3``, default options (the 20-step no-exploration
limit on). The JAX twin (``maze_envs.jax``, extra ``jax``) runs twice: on mazes generated on the device at
every reset (``twin``) and on a level set of 10,000 mazes made by the host generator and uploaded once
(``twin 10k levels``, ``num_levels=10000``). The native numpy env (``gym.make`` at N=1, the native vector env
above; extra ``fast``) runs on the CPU only. Peers (the ``bench`` extra): XLand-MiniGrid ``MiniGrid-FourRooms``
(same-step autoreset wrapper), NAVIX ``Navix-FourRooms-v0`` (its own autoreset), Jumanji ``Maze-v0`` (10x10,
``AutoResetWrapper``) and EnvPool ``MiniGrid-FourRooms-v0`` (C++ threads, CPU only, skipped when absent).

Every JAX env (the twin and its peers) runs the same compiled rollouts in two forms: ``jit(scan(step))`` of one env
without ``vmap`` (row ``1 (no vmap)``: an evaluation loop running one env), and ``jit(scan(vmap(step)))`` at every
N (``vmap`` over one env at N=1): uniform random actions drawn inside the scan, one ``randint`` per step, and no
Python per step. Its compile time (the first call) is reported apart and not counted in its steps/s. Each (env, N)
is measured ``--rounds`` times, interleaved with the others so machine load hits all alike; the best round counts.
Ratios are the twin's steps/s over each peer's. ``--device gpu`` runs the JAX envs on the first CUDA device (install
``jax[cuda12]``) and leaves out the CPU-only ones. A peer that is not installed is skipped with a note.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

KWARGS = {"rows": 10, "cols": 10, "visibility": 3}
SINGLE = 0  # the N of the one-env rollout without vmap (``jit(scan(step))``)
TWIN, TWIN_LEVELS, NATIVE = "twin", "twin 10k levels", "native"
Runner = Callable[[float], float]


@dataclass
class Row:
    """One (env, N) measurement: best steps/s over the rounds and, for JAX envs, compile seconds."""

    env: str
    num_envs: int
    steps_per_s: float
    compile_s: float | None = None


def jax_runner(reset: Callable, step: Callable, num_actions: int, num_envs: int) -> tuple[Runner, float]:
    """Return a runner of a JAX env's ``jit(scan(vmap(step)))`` random rollout (``jit(scan(step))`` of one env
    without ``vmap`` for ``num_envs`` ``SINGLE``) and its compile seconds.

    ``reset(key) -> state`` and ``step(key, state, action) -> state`` are one env's; the rollout steps
    ``max(16, 16384 // num_envs)`` times per call."""
    import jax

    single = num_envs == SINGLE
    num_envs = 1 if single else num_envs
    length = max(16, 16384 // num_envs)

    def rollout(state, key):
        def body(state, k):
            action_key, step_key = jax.random.split(k)
            if single:
                return step(step_key, state, jax.random.randint(action_key, (), 0, num_actions)), None
            actions = jax.random.randint(action_key, (num_envs,), 0, num_actions)
            return jax.vmap(step)(jax.random.split(step_key, num_envs), state, actions), None

        state, _ = jax.lax.scan(body, state, jax.random.split(key, length))
        return state

    fn = jax.jit(rollout)
    if single:
        state = jax.block_until_ready(jax.jit(reset)(jax.random.key(0)))
    else:
        state = jax.block_until_ready(jax.jit(jax.vmap(reset))(jax.random.split(jax.random.key(0), num_envs)))
    start = time.perf_counter()
    state = jax.block_until_ready(fn(state, jax.random.key(1)))
    compile_s = time.perf_counter() - start
    holder = {"state": state, "key": jax.random.key(2)}

    def run(seconds: float) -> float:
        steps, start = 0, time.perf_counter()
        while not steps or time.perf_counter() - start < seconds:
            holder["key"], sub = jax.random.split(holder["key"])
            holder["state"] = jax.block_until_ready(fn(holder["state"], sub))
            steps += length * num_envs
        return steps / (time.perf_counter() - start)

    return run, compile_s


@functools.lru_cache(maxsize=None)
def _twin_env(num_levels: int) -> tuple:
    import maze_envs.jax

    return maze_envs.jax.make("Maze-PartialObs-v0", **KWARGS, num_levels=num_levels)


def twin(num_envs: int, num_levels: int = 0) -> tuple[Runner, float]:
    """Return a runner of the JAX twin of Maze-PartialObs-v0 (on-device mazes, or ``num_levels`` uploaded ones)."""
    env, params = _twin_env(num_levels)
    return jax_runner(lambda k: env.reset(k, params)[1], lambda k, s, a: env.step(k, s, a, params)[1],
                      env.num_actions, num_envs)


def twin_levels(num_envs: int) -> tuple[Runner, float]:
    """Return a runner of the twin on 10,000 levels of the host generator, uploaded once."""
    return twin(num_envs, num_levels=10_000)


def native(num_envs: int) -> Runner:
    """Return a runner of the native numpy env (``gym.make`` at N=1 and without vmap, the native vector env
    above)."""
    import gymnasium as gym

    import maze_envs  # noqa: F401  (registers the ids)

    rng = np.random.default_rng(0)
    if num_envs in (1, SINGLE):
        env = gym.make("Maze-PartialObs-v0", **KWARGS)
        env.reset(seed=0)
        actions = [env.action_space.sample() for _ in range(4096)]

        def run_single(seconds: float) -> float:
            steps, start = 0, time.perf_counter()
            while not steps or time.perf_counter() - start < seconds:
                for action in actions:
                    _, _, terminated, truncated, _ = env.step(action)
                    if terminated or truncated:
                        env.reset()
                steps += len(actions)
            return steps / (time.perf_counter() - start)

        return run_single
    venv = gym.make_vec("Maze-PartialObs-v0", num_envs=num_envs, vectorization_mode="vector_entry_point", **KWARGS)
    venv.reset(seed=0)
    batches = [venv.action_space.sample() for _ in range(16)]

    def run_vector(seconds: float) -> float:
        steps, start = 0, time.perf_counter()
        while not steps or time.perf_counter() - start < seconds:
            for _ in range(20):
                venv.step(batches[int(rng.integers(len(batches)))])
            steps += 20 * num_envs
        return steps / (time.perf_counter() - start)

    return run_vector


def xland(num_envs: int) -> tuple[Runner, float]:
    """Return a runner of XLand-MiniGrid's MiniGrid-FourRooms (same-step autoreset)."""
    import xminigrid
    from xminigrid.wrappers import GymAutoResetWrapper

    env, params = xminigrid.make("MiniGrid-FourRooms")
    env = GymAutoResetWrapper(env)
    return jax_runner(lambda k: env.reset(params, k), lambda k, t, a: env.step(params, t, a),
                      env.num_actions(params), num_envs)


def navix(num_envs: int) -> tuple[Runner, float]:
    """Return a runner of NAVIX's Navix-FourRooms-v0 (its own autoreset)."""
    import navix as nx

    env = nx.make("Navix-FourRooms-v0")
    return jax_runner(env.reset, lambda k, t, a: env.step(t, a), len(env.action_set), num_envs)


def jumanji_maze(num_envs: int) -> tuple[Runner, float]:
    """Return a runner of Jumanji's Maze-v0 (10x10, ``AutoResetWrapper``)."""
    import jumanji
    from jumanji.wrappers import AutoResetWrapper

    env = AutoResetWrapper(jumanji.make("Maze-v0"))
    return jax_runner(lambda k: env.reset(k)[0], lambda k, s, a: env.step(s, a)[0],
                      int(env.action_spec.num_values), num_envs)


def envpool(num_envs: int) -> Runner:
    """Return a runner of EnvPool's MiniGrid-FourRooms-v0 (C++ threads, synchronous batches)."""
    import envpool as ep

    num_envs = max(num_envs, 1)  # one env without vmap is one env here

    env = ep.make_gymnasium("MiniGrid-FourRooms-v0", num_envs=num_envs, batch_size=num_envs,
                            num_threads=min(num_envs, os.cpu_count() or 1), seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    batches = [rng.integers(0, env.action_space.n, num_envs) for _ in range(16)]

    def run(seconds: float) -> float:
        steps, start = 0, time.perf_counter()
        while not steps or time.perf_counter() - start < seconds:
            for i in range(20):
                env.step(batches[i % 16])
            steps += 20 * num_envs
        return steps / (time.perf_counter() - start)

    return run


OURS: dict[str, Callable[[int], object]] = {TWIN: twin, TWIN_LEVELS: twin_levels, NATIVE: native}
PEERS: dict[str, Callable[[int], object]] = {"XLand-MiniGrid": xland, "NAVIX": navix, "Jumanji": jumanji_maze,
                                             "EnvPool": envpool}
CPU_ONLY = (NATIVE, "EnvPool")


def build(sizes: list[int], device: str,
          max_call_s: float) -> tuple[dict[tuple[str, int], Runner], dict[tuple[str, int], float]]:
    """Return the runners of every (env, N) whose package is installed, and the JAX envs' compile seconds.

    An env whose one rollout call (after compiling) takes over ``max_call_s`` at some N is not built at larger N
    (a note says so): its rounds there would take minutes each."""
    runners: dict[tuple[str, int], Runner] = {}
    compiles: dict[tuple[str, int], float] = {}
    for name, make in {**OURS, **PEERS}.items():
        if device == "gpu" and name in CPU_ONLY:
            continue
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
            start = time.perf_counter()
            rate = runners[(name, n)](0.0)
            call_s = time.perf_counter() - start
            compiled = f", compiled in {compiles[(name, n)]:.1f} s" if (name, n) in compiles else ""
            print(f"  built {name} N={label(n)}{compiled}, one call {call_s:.1f} s ({rate:,.0f} steps/s)", flush=True)
            if call_s > max_call_s and n != sizes[-1]:
                print(f"  ({name}: one call took {call_s:.0f} s > --max-call-s {max_call_s:g}; "
                      "not measured at larger N)")
                break
    return runners, compiles


def label(n: int) -> str:
    """Return the table's name of batch size ``n`` (``1 (no vmap)`` for the one-env rollout without vmap)."""
    return "1 (no vmap)" if n == SINGLE else f"{n} (vmap)" if n == 1 else str(n)


def table(sizes: list[int], best: dict[tuple[str, int], float]) -> list[str]:
    """Return the markdown table: steps/s of every env per N and the twin's ratio to each JAX peer."""
    names = [name for name in [*OURS, *PEERS] if any(k[0] == name for k in best)]
    peers = [name for name in PEERS if name in names and name != "EnvPool"]
    head = ["N", *names, *[f"twin / {p}" for p in peers]]
    lines = ["| " + " | ".join(head) + " |", "|" + " ---: |" * len(head)]
    for n in sizes:
        cells = [f"{best[(name, n)]:,.0f}" if (name, n) in best else "-" for name in names]
        ours = best.get((TWIN, n))
        ratios = [f"{ours / best[(p, n)]:.2f}x" if ours and (p, n) in best else "-" for p in peers]
        lines.append("| " + " | ".join([label(n), *cells, *ratios]) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Measure every (env, N) in interleaved rounds, print steps/s, ratios and compile times; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num-envs", type=int, nargs="+", default=[SINGLE, 1, 64, 1024, 4096, 16384],
                        help=f"batch sizes; {SINGLE} is one env without vmap (jit(scan(step)))")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement (default 1)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the best counts (default 3)")
    parser.add_argument("--device", choices=("cpu", "gpu"), default="cpu", help="where the JAX envs run")
    parser.add_argument("--max-call-s", type=float, default=30.0,
                        help="skip an env at larger N once one rollout call takes longer (default 30)")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    os.environ["JAX_PLATFORMS"] = "cuda" if args.device == "gpu" else "cpu"
    import jax

    print(f"JAX {jax.__version__} on {jax.devices()[0].device_kind}; load average before: "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    runners, compiles = build(args.num_envs, args.device, args.max_call_s)
    best: dict[tuple[str, int], float] = {}
    for _ in range(args.rounds):
        for key, run in runners.items():
            best[key] = max(best.get(key, 0.0), run(args.seconds))
    print("\nsteps/s (best of the rounds):")
    print("\n".join(table(args.num_envs, best)))
    if compiles:
        print("\nJAX compile seconds (first call of the jitted rollout, not counted above):")
        for (name, n), seconds in compiles.items():
            print(f"  {name:<16} N={label(n):<12} {seconds:6.1f} s")
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    if args.json:
        from maze_envs.core.jsonfiles import write_json_atomic

        rows = [Row(name, n, rate, compiles.get((name, n))) for (name, n), rate in best.items()]
        write_json_atomic(args.json, {"rows": [asdict(r) for r in rows], "args": vars(args),
                                      "device": jax.devices()[0].device_kind, "load_average": os.getloadavg()},
                          indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
