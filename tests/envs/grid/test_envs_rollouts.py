"""Recorded rollouts: the same seed gives the same observations, rewards, ends and infos as when recorded.

``tests/data/rollouts.json`` holds one SHA-256 per configuration over every step of a fixed random-action
rollout (single envs with resets, native vector envs with next-step autoreset, level sets, other
generators and protocols) and over generated mazes. Speed work on the envs and generators must leave
every hash unchanged. ``python3 tests/envs/grid/test_envs_rollouts.py --record`` rewrites the file (only when an
episode change is intended).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from maze_envs.core import batch_dfs
from maze_envs.core.generators import GENERATORS, generate
from maze_envs.envs.grid.maze import MazeEnv
from maze_envs.envs.grid.partial import PartialObsMazeEnv
from maze_envs.envs.grid.vector import MazeVectorEnv, PartialObsMazeVectorEnv

FIXTURE = Path(__file__).resolve().parents[2] / "data" / "rollouts.json"
K = 3

SINGLE: dict[str, tuple[type, dict[str, Any], int]] = {
    "partial-default": (PartialObsMazeEnv, {"visibility": K, "action_mode": "multi"}, 600),
    "partial-single-explored": (PartialObsMazeEnv, {"visibility": 2, "action_mode": "single", "explored_map": True,
                                                    "rows": 6, "cols": 7}, 500),
    "partial-levels": (PartialObsMazeEnv, {"visibility": K, "action_mode": "multi", "num_levels": 4,
                                           "start_level": 7}, 600),
    "partial-no-limit-random": (PartialObsMazeEnv, {"visibility": K, "action_mode": "multi", "placement": "random",
                                                    "max_no_exploration_steps": None, "rows": 5, "cols": 5}, 400),
    "partial-far-wilson": (PartialObsMazeEnv, {"visibility": K, "action_mode": "multi", "placement": "far",
                                               "algorithm": "wilson"}, 400),
    "partial-loops": (PartialObsMazeEnv, {"visibility": K, "action_mode": "multi", "loops": 0.5,
                                          "algorithm": "prim"}, 400),
    "partial-mazebench": (PartialObsMazeEnv, {"visibility": K, "action_mode": "multi", "protocol": "mazebench",
                                              "rows": 6, "cols": 6}, 400),
    "maze-default": (MazeEnv, {}, 600),
    "maze-levels-kruskal": (MazeEnv, {"num_levels": 3, "algorithm": "kruskal", "rows": 5, "cols": 5}, 400),
}

VECTOR: dict[str, tuple[type, int, dict[str, Any], int]] = {
    "vector-partial-8": (PartialObsMazeVectorEnv, 8, {"visibility": K, "action_mode": "multi"}, 150),
    "vector-partial-40": (PartialObsMazeVectorEnv, 40, {"visibility": K, "action_mode": "multi"}, 120),
    "vector-partial-levels": (PartialObsMazeVectorEnv, 32, {"visibility": K, "action_mode": "multi",
                                                            "num_levels": 5, "start_level": 2}, 120),
    "vector-partial-single-explored": (PartialObsMazeVectorEnv, 6, {"visibility": 2, "action_mode": "single",
                                                                    "explored_map": True, "rows": 5, "cols": 5}, 150),
    "vector-partial-random-placement": (PartialObsMazeVectorEnv, 30, {"visibility": K, "action_mode": "multi",
                                                                      "placement": "random"}, 100),
    "vector-partial-wilson-limit": (PartialObsMazeVectorEnv, 12, {"visibility": K, "action_mode": "multi",
                                                                  "algorithm": "wilson"}, 100,),
    "vector-maze-30": (MazeVectorEnv, 30, {"rows": 4, "cols": 4}, 150),
    "vector-maze-levels": (MazeVectorEnv, 10, {"rows": 4, "cols": 4, "num_levels": 3}, 120),
}


def _feed(h: Any, value: Any) -> None:
    """Add ``value`` (observation, number, info dict, nested) to hash ``h`` in a type- and shape-aware form."""
    if isinstance(value, dict):
        for key in sorted(value):
            h.update(f"<{key}>".encode())
            _feed(h, value[key])
    elif isinstance(value, np.ndarray):
        h.update(f"{value.dtype.str}{value.shape}".encode())
        h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, (list, tuple)):
        h.update(b"[")
        for item in value:
            _feed(h, item)
        h.update(b"]")
    elif isinstance(value, (bool, np.bool_)):
        h.update(b"T" if value else b"F")
    elif isinstance(value, (int, np.integer)):
        h.update(f"i{int(value)}".encode())
    elif isinstance(value, (float, np.floating)):
        h.update(f"f{float(value)!r}".encode())
    elif value is None:
        h.update(b"N")
    else:
        raise TypeError(f"cannot hash {type(value).__name__}")


def _action(env: Any, rng: np.random.Generator) -> Any:
    if getattr(env, "action_mode", "single") == "multi":
        return np.array([rng.integers(4), rng.integers(env.k)])
    return int(rng.integers(4))


def single_rollout(cls: type, kwargs: dict[str, Any], steps: int, seed: int) -> str:
    """Return the hash of ``steps`` random steps of one env seeded once with ``seed`` (plain resets after)."""
    env = cls(**kwargs)
    h = hashlib.sha256()
    rng = np.random.default_rng(1000 + seed)
    _feed(h, env.reset(seed=seed))
    for _ in range(steps):
        out = env.step(_action(env, rng))
        _feed(h, out)
        if out[2] or out[3]:
            _feed(h, env.reset())
    return h.hexdigest()


def vector_rollout(cls: type, num_envs: int, kwargs: dict[str, Any], steps: int, seed: int) -> str:
    """Return the hash of ``steps`` random batched steps (next-step autoreset) of a native vector env."""
    env = cls(num_envs=num_envs, **kwargs)
    h = hashlib.sha256()
    rng = np.random.default_rng(2000 + seed)
    _feed(h, env.reset(seed=seed))
    multi = getattr(env.template, "action_mode", "single") == "multi"
    for _ in range(steps):
        if multi:
            actions = np.stack([rng.integers(0, 4, num_envs), rng.integers(0, env.k, num_envs)], axis=1)
        else:
            actions = rng.integers(0, 4, num_envs)
        _feed(h, env.step(actions))
    return h.hexdigest()


def generator_hash(algorithm: str, size: int, seeds: range) -> str:
    """Return the hash of the block grids, starts and goals of ``generate(size, size, algorithm, seed)``."""
    h = hashlib.sha256()
    for seed in seeds:
        grid = generate(size, size, algorithm, seed).to_grid()
        _feed(h, (grid.blocks, list(grid.start), list(grid.goal)))
    return h.hexdigest()


def cases() -> dict[str, Callable[[], str]]:
    """Return every recorded case by name."""
    out: dict[str, Callable[[], str]] = {}
    for name, (cls, kwargs, steps) in SINGLE.items():
        for seed in (0, 1, 2):
            out[f"{name}/seed{seed}"] = lambda c=cls, k=kwargs, s=steps, sd=seed: single_rollout(c, k, s, sd)
    for name, (cls, n, kwargs, steps) in VECTOR.items():
        for seed in (0, 5):
            out[f"{name}/seed{seed}"] = lambda c=cls, n=n, k=kwargs, s=steps, sd=seed: vector_rollout(c, n, k, s, sd)
    for algorithm in GENERATORS:
        out[f"generate-{algorithm}-20"] = lambda a=algorithm: generator_hash(a, 20, range(5))
        out[f"generate-{algorithm}-100"] = lambda a=algorithm: generator_hash(a, 100, range(2))
    return out


def _recorded() -> dict[str, str]:
    return json.loads(FIXTURE.read_text())


@pytest.mark.parametrize("name", sorted(cases()))
def test_rollout_matches_recording(name: str) -> None:
    assert cases()[name]() == _recorded()[name]


@pytest.mark.parametrize(
    "name", [n for n in sorted(cases()) if n.startswith(("vector-", "partial-default", "maze-default"))]
)
def test_rollout_matches_recording_without_numba(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The numpy fallback (numba not installed: per-maze generation, lockstep batches) gives the same episodes."""
    monkeypatch.setattr(batch_dfs, "_kernel", lambda: None)
    assert not batch_dfs.compiled()
    assert cases()[name]() == _recorded()[name]


def test_fixture_covers_every_case() -> None:
    assert sorted(_recorded()) == sorted(cases())


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python3 tests/envs/grid/test_envs_rollouts.py --record")
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text(json.dumps({name: run() for name, run in sorted(cases().items())}, indent=1) + "\n")
    print(f"wrote {FIXTURE}")
