"""The JAX twin equals the Gymnasium grid envs step for step: observations, rewards, ends and info.

- The recorded rollouts (tests/data/rollouts.json, the single-env cases of the default protocol): the twin plays
  the layouts the Gymnasium env plays with the same actions, and its outputs hash to the recorded hashes.
- A randomized comparison of ``JaxVectorEnv`` with the native vector env over datasets of random layouts
  (mixed sizes, padded), visibilities, action modes, limits that truncate often, and both autoreset modes.
- The Flat and Image variants, the uploaded level sets and the on-device generator.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from test_envs_rollouts import SINGLE, _action, _feed, _recorded  # noqa: E402

import maze_envs.jax as mj  # noqa: E402
from maze_envs.core.codes import GOAL, WALL  # noqa: E402
from maze_envs.core.errors import MazeConfigError  # noqa: E402
from maze_envs.core.generators import generate  # noqa: E402
from maze_envs.core.layout_files import save_layout  # noqa: E402
from maze_envs.envs.grid.maze import MazeEnv  # noqa: E402
from maze_envs.envs.grid.partial import PartialObsMazeEnv  # noqa: E402
from maze_envs.envs.grid.rules import path_length  # noqa: E402
from maze_envs.envs.grid.vector import MazeVectorEnv, PartialObsMazeVectorEnv  # noqa: E402
from maze_envs.envs.grid.wrappers import FlatObservation, RGBImageObservation  # noqa: E402
from maze_envs.jax.gym_adapter import JaxVectorEnv  # noqa: E402
from maze_envs.jax.spaces import to_gymnasium  # noqa: E402

TWINNED = {name: case for name, case in SINGLE.items() if case[1].get("protocol", "default") == "default"}


def gym_form(obs: Any, info: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Return a twin's observation and info in the Gymnasium env's Python types (tuples of ints, ints)."""
    obs = {k: np.asarray(v) for k, v in obs.items()} if isinstance(obs, dict) else np.asarray(obs)
    out = {}
    for key, value in info.items():
        if key in ("terminated", "truncated", "invalid_action", "final_observation"):
            continue
        value = np.asarray(value)
        out[key] = tuple(int(v) for v in value) if value.ndim else int(value)
    return obs, out


def assert_same(expected: Any, got: Any, where: str) -> None:
    if isinstance(expected, dict):
        assert sorted(expected) == sorted(got), where
        for key in expected:
            assert_same(expected[key], got[key], f"{where}[{key}]")
    elif isinstance(expected, tuple) and not isinstance(got, np.ndarray):
        assert len(expected) == len(got), where
        for i, (e, g) in enumerate(zip(expected, got, strict=True)):
            assert_same(e, g, f"{where}[{i}]")
    else:
        assert np.array_equal(np.asarray(expected), np.asarray(got)), f"{where}: {expected!r} != {got!r}"


class TwinPlayer:
    """Plays a twin on the layouts a Gymnasium env plays (its ``layout`` after each reset)."""

    def __init__(self, env_id: str, kwargs: dict[str, Any]) -> None:
        if not kwargs.get("num_levels"):
            # the layouts come from the Gymnasium env: generation options the device generator lacks do not matter
            kwargs = {**kwargs, "algorithm": "dfs", "loops": 0.0, "placement": "corner"}
        self.env, self.params = mj.make(env_id, **kwargs)
        self.transition = jax.jit(self.env.transition)
        self.start_on = jax.jit(self.env.start_on)
        self.key = jax.random.key(0)

    def start(self, gym_env: Any) -> tuple[Any, dict[str, Any]]:
        table = self.env.host_layout(gym_env.layout)
        if self.params.layouts is not None and self.env.layout_mode == "levels":
            # the uploaded level set holds this very layout: start on its row
            rows = np.flatnonzero((np.asarray(self.params.layouts.codes) == np.asarray(table.codes[0])).all(axis=1))
            assert rows.size >= 1, "the Gymnasium env played a level the twin's table lacks"
            table = self.params.layouts
            obs, self.state = self.start_on(table, int(rows[0]))
        else:
            obs, self.state = self.start_on(table)
        return gym_form(obs, self.env.state_info(self.state))

    def step(self, action: Any) -> tuple:
        self.key, sub = jax.random.split(self.key)
        obs, self.state, reward, terminated, truncated, info = self.transition(sub, self.state, np.asarray(action),
                                                                               self.params)
        terminated, truncated = bool(terminated), bool(truncated)
        obs, info = gym_form(obs, info)
        return obs, float(reward), terminated, truncated, info


def twin_rollout(cls: type, kwargs: dict[str, Any], steps: int, seed: int) -> str:
    """Return the hash of the twin's outputs on ``single_rollout``'s layouts and actions, checking each step
    against the Gymnasium env on the way."""
    env_id = "Maze-PartialObs-v0" if cls is PartialObsMazeEnv else "Maze-v0"
    gym_env = cls(**kwargs)
    twin = TwinPlayer(env_id, kwargs)
    h = hashlib.sha256()
    rng = np.random.default_rng(1000 + seed)
    expected = gym_env.reset(seed=seed)
    got = twin.start(gym_env)
    assert_same(expected, got, "reset")
    _feed(h, got)
    for t in range(steps):
        action = _action(gym_env, rng)
        expected = gym_env.step(action)
        got = twin.step(action)
        assert_same(expected, got, f"step {t}")
        _feed(h, got)
        if got[2] or got[3]:
            expected = gym_env.reset()
            got = twin.start(gym_env)
            assert_same(expected, got, f"reset after step {t}")
            _feed(h, got)
    return h.hexdigest()


@pytest.mark.parametrize("name", sorted(TWINNED))
def test_twin_reproduces_recorded_rollouts(name: str) -> None:
    cls, kwargs, steps = TWINNED[name]
    recorded = _recorded()
    for seed in (0, 1, 2):
        assert twin_rollout(cls, kwargs, steps, seed) == recorded[f"{name}/seed{seed}"]


def write_dataset(root: Any, rng: np.random.Generator, count: int, largest: tuple[int, int]) -> None:
    """Write ``count`` random layouts of mixed sizes, algorithms and placements under ``root``."""
    for i in range(count):
        rows, cols = int(rng.integers(1, largest[0] + 1)), int(rng.integers(1, largest[1] + 1))
        algorithm = str(rng.choice(["dfs", "wilson", "prim", "kruskal"]))
        placement = str(rng.choice(["corner", "random", "far"]))
        loops = float(rng.choice([0.0, 0.5]))
        maze = generate(rows, cols, algorithm, int(rng.integers(1 << 30)), loops=loops, placement=placement)
        save_layout(maze.to_grid(), root / f"layout_{i:02d}.json")


def random_config(rng: np.random.Generator) -> tuple[str, dict[str, Any]]:
    """Return an env id and the arguments of a random comparison case (limits short enough to truncate often)."""
    if rng.random() < 0.3:
        return "Maze-v0", {"max_steps": int(rng.integers(3, 40))}
    kwargs: dict[str, Any] = {"visibility": int(rng.integers(1, 5)),
                              "action_mode": str(rng.choice(["single", "multi"])),
                              "explored_map": bool(rng.random() < 0.3),
                              "max_no_exploration_steps": [None, int(rng.integers(2, 12))][int(rng.random() < 0.7)]}
    if rng.random() < 0.5:
        kwargs["max_steps"] = int(rng.integers(3, 60))
    return "Maze-PartialObs-v0", kwargs


def vector_actions(env: Any, rng: np.random.Generator) -> np.ndarray:
    space = env.single_action_space
    n = env.num_envs
    if hasattr(space, "nvec"):
        return np.stack([rng.integers(0, 4, n), rng.integers(0, int(space.nvec[1]), n)], axis=1)
    return rng.integers(0, 4, n)


@pytest.mark.parametrize("case", range(8))
def test_vector_twin_equals_native_vector_env(case: int, tmp_path: Any) -> None:
    rng = np.random.default_rng(case)
    write_dataset(tmp_path, rng, int(rng.integers(1, 6)), (int(rng.integers(1, 8)), int(rng.integers(1, 8))))
    env_id, kwargs = random_config(rng)
    kwargs["mazes_dir"] = str(tmp_path)
    mode = "SameStep" if case % 3 == 2 else "NextStep"
    limit = int(rng.integers(4, 30)) if rng.random() < 0.3 else None
    num_envs = int(rng.integers(1, 9))
    native_cls = PartialObsMazeVectorEnv if env_id == "Maze-PartialObs-v0" else MazeVectorEnv
    native = native_cls(num_envs=num_envs, max_episode_steps=limit, autoreset_mode=mode, **kwargs)
    twin = JaxVectorEnv(env_id, num_envs=num_envs, max_episode_steps=limit, autoreset_mode=mode, **kwargs)
    assert twin.single_observation_space == native.single_observation_space
    assert twin.single_action_space == native.single_action_space
    assert_same(native.reset(seed=case), twin.reset(seed=case), "reset")
    ends = 0
    for t in range(150):
        actions = vector_actions(native, rng)
        expected, got = native.step(actions), twin.step(actions)
        for part, e, g in zip(("obs", "reward", "terminated", "truncated"), expected[:4], got[:4], strict=True):
            assert_same(e, g, f"step {t} {part}")
        e_info, g_info = expected[4], got[4]
        for key in ("final_obs", "final_info"):
            if key in e_info:
                ended = np.flatnonzero(e_info["_" + key])
                if key == "final_obs":
                    for i in ended:
                        assert_same(e_info[key][i], g_info[key][i], f"step {t} final_obs[{i}]")
                else:
                    assert_same(e_info[key], g_info[key], f"step {t} final_info")
        assert_same({k: v for k, v in e_info.items() if not k.startswith(("final", "_final"))},
                    {k: v for k, v in g_info.items() if not k.startswith(("final", "_final"))}, f"step {t} info")
        ends += int(np.sum(expected[2] | expected[3]))
    assert ends > 0, "the case never crossed an autoreset boundary"


@pytest.mark.parametrize("base, variant", [("Maze-v0", "Flat"), ("Maze-PartialObs-v0", "Image"),
                                           ("Maze-PartialObs-v0", "Flat")])
def test_observation_variants_equal_the_gymnasium_wrappers(base: str, variant: str) -> None:
    kwargs = {"rows": 4, "cols": 6, "num_levels": 3}
    if base == "Maze-PartialObs-v0":
        kwargs["explored_map"] = variant == "Flat"
    template = (MazeEnv if base == "Maze-v0" else PartialObsMazeEnv)(**kwargs)
    wrapper = FlatObservation(template) if variant == "Flat" else RGBImageObservation(template, px=3)
    extra = {} if variant == "Flat" else {"px": 3}
    env_id = base.replace("-v0", f"-{variant}-v0")
    plain, params = mj.make(base, **kwargs)
    twin, _ = mj.make(env_id, **kwargs, **extra)
    assert to_gymnasium(twin.observation_space(params)) == wrapper.observation_space
    step = jax.jit(twin.step)
    plain_step = jax.jit(plain.step)
    _, state = plain.reset(jax.random.key(3), params)
    for t in range(40):
        key = jax.random.key(t)
        obs, *_ = plain_step(key, state, t % 4, params)
        wrapped, next_state, *_ = step(key, state, t % 4, params)
        raw = jax.tree.map(np.asarray, obs)
        assert_same(wrapper.observation(raw), wrapped, f"step {t}")
        state = next_state


def test_level_sets_are_the_gymnasium_levels() -> None:
    kwargs = {"rows": 5, "cols": 4, "num_levels": 6, "start_level": 11, "algorithm": "prim", "placement": "far"}
    env, params = mj.make("Maze-PartialObs-v0", **kwargs)
    source = PartialObsMazeEnv(**kwargs).source
    codes = np.asarray(params.layouts.codes)
    for i in range(6):
        grid = source.generate(11 + i)
        assert np.array_equal(codes[i], env.board.codes(grid))
        assert int(params.layouts.optimal[i]) == path_length((codes[i] != WALL).tolist(), env.board.deltas,
                                                             env.board.index(grid.start), env.board.index(grid.goal))
    # every auto-reset lands on one of those levels, and all of them come up
    step = jax.jit(env.step)
    _, state = env.reset(jax.random.key(0), params)
    levels = set()
    for t in range(400):
        _, state, _, terminated, truncated, _ = step(jax.random.key(t), state, t % 4, params)
        if bool(terminated | truncated):
            row = np.flatnonzero((codes == np.asarray(state.codes)).all(axis=1))
            assert row.size == 1
            levels.add(int(row[0]))
    assert levels == set(range(6))


@pytest.mark.parametrize("placement", ["corner", "random"])
def test_device_generator_draws_perfect_mazes_with_their_path_length(placement: str) -> None:
    env, params = mj.make("Maze-v0", rows=4, cols=6, placement=placement)
    boards, start, goal, optimal = jax.jit(jax.vmap(env.generator.draw))(jax.random.split(jax.random.key(1), 64))
    boards = np.asarray(boards)
    cells = 24
    for i in range(64):
        free = boards[i] != WALL
        assert free.sum() == cells + cells - 1  # a spanning tree: every cell and one passage per edge
        assert boards[i][goal[i]] == GOAL
        assert path_length(free.tolist(), env.board.deltas, int(start[i]), int(goal[i])) == int(optimal[i])
        if placement == "corner":
            assert (int(start[i]), int(goal[i])) == (env.board.index((1, 1)), env.board.index((7, 11)))
        else:
            assert start[i] != goal[i]
    assert len({b.tobytes() for b in boards}) > 60
    again = np.asarray(jax.jit(jax.vmap(env.generator.draw))(jax.random.split(jax.random.key(1), 64))[0])
    assert np.array_equal(boards, again)


def test_generated_episodes_play_their_grown_maze() -> None:
    """Episodes on generated mazes follow each other on the mazes grown during the episode before."""
    env, params = mj.make("Maze-PartialObs-v0", rows=3, cols=3, placement="random", max_no_exploration_steps=None)
    step = jax.jit(env.step)
    _, state = env.reset(jax.random.key(0), params)
    boards = set()
    for t in range(300):
        _, state, _, terminated, truncated, _ = step(jax.random.key(t), state, t % 4, params)
        if bool(terminated | truncated):
            board = np.asarray(state.codes)
            free = board != WALL
            assert free.sum() == 9 + 8
            assert path_length(free.tolist(), env.board.deltas, int(state.pos), int(state.goal)) == int(state.optimal)
            boards.add(board.tobytes())
    assert len(boards) > 3


@pytest.mark.parametrize("kwargs, parameter", [({"protocol": "mazebench"}, "protocol"), ({"wall_reward": -1.0},
                                               "wall_reward"), ({"algorithm": "wilson"}, "algorithm"),
                                               ({"render_mode": "rgb_array"}, "render_mode")])
def test_untwinned_options_raise_naming_the_argument(kwargs: dict[str, Any], parameter: str) -> None:
    with pytest.raises(MazeConfigError, match=parameter):
        mj.make("Maze-PartialObs-v0", **kwargs)


def test_the_twin_doctests_pass() -> None:
    import doctest

    from maze_envs.jax import gym_adapter

    for module in (mj, gym_adapter):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_unknown_id_raises_naming_env_id() -> None:
    with pytest.raises(MazeConfigError, match="env_id"):
        mj.make("Maze-Openings-v0")


@pytest.mark.parametrize(("kwargs", "words"), [({"num_levels": 10**9}, "GiB"), ({"num_levels": 100_000}, "s per make"),
                                               ({"rows": 10**6, "cols": 10**6}, "GiB")])
def test_oversized_twins_are_refused_by_name_before_any_work(kwargs, words):
    with pytest.raises(MazeConfigError, match=rf"{next(iter(kwargs))}.*{words}"):
        mj.make("Maze-PartialObs-v0", **kwargs)
