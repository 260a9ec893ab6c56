"""The JAX twin is a gymnax 1.x environment by gymnax's own code, and still equals the Gymnasium env.

- Every twin id (sized ids included) steps under ``jit`` through gymnax's ``LogWrapper``,
  ``FlattenObservationWrapper`` and ``LegacyStepAPIWrapper``, and runs under ``GymnaxToGymWrapper`` and
  ``GymnaxToVectorGymWrapper``; the same rollout equals ``gym.make`` of the id step for step: rewards, terminated
  vs truncated, the final observation of every ended episode and the first of the next, and every shared info key.
- A goal reached on the ``max_episode_steps`` step is terminated and truncated, as Gymnasium's ``TimeLimit`` says.
- Our own contract checks (spaces, a jit-safe ``observation_space``, the 6-tuple, the final observation, a
  ``LogWrapper`` rollout) hold without reading gymnax's wrappers' code.
- Out-of-range and non-integer actions under ``jit`` are flagged no-ops; the Gymnasium adapter refuses them with
  ``InvalidActionError``.
- Hostile ``make`` arguments get a typed error naming them before any work; every twin deep-copies.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
gymnax_wrappers = pytest.importorskip("gymnax.wrappers")

import gymnasium as gym  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from gymnax.environments import spaces as gymnax_spaces  # noqa: E402

import maze_envs  # noqa: E402,F401  (registers the ids)
import maze_envs.jax as mj  # noqa: E402
from maze_envs.core.errors import InvalidActionError, MazeConfigError  # noqa: E402
from maze_envs.core.maze import MOVES  # noqa: E402
from maze_envs.jax.gym_adapter import JaxVectorEnv  # noqa: E402

STEPS = 24
LIMIT = 6  # max_episode_steps: short, so episodes end by truncation as well as at the goal
INVALID = [7, -2, 4, 1.5, float("nan"), float("inf"), -float("inf")]
SHARED = ("position", "goal", "optimal_length", "steps", "wall_bumps", "moved", "revealed", "no_exploration_steps")


def rollout(env: Any, params: Any, actions: jax.Array) -> dict[str, Any]:
    """Return one jitted rollout of ``env`` under gymnax's ``LegacyStepAPIWrapper(LogWrapper(
    FlattenObservationWrapper(env)))``, and its first observation."""
    wrapped = gymnax_wrappers.LegacyStepAPIWrapper(
        gymnax_wrappers.LogWrapper(gymnax_wrappers.FlattenObservationWrapper(env)))

    def run(key):
        obs, state = wrapped.reset(key, params)

        def body(state, xs):
            obs, state, reward, done, info = wrapped.step(xs[0], state, xs[1], params)
            return state, (obs, reward, done, info)

        keys = jax.random.split(jax.random.key(1), actions.shape[0])
        return obs, jax.lax.scan(body, state, (keys, actions))[1]

    first, (obs, reward, done, info) = jax.jit(run)(jax.random.key(0))
    return {"reset": first, "obs": obs, "reward": reward, "done": done, "info": info}


@pytest.mark.parametrize("env_id", sorted(mj.TWIN_ENTRIES))
def test_gymnax_wrappers_run_on_every_id_and_the_twin_equals_gym_make(env_id: str) -> None:
    env, params = mj.make(env_id, num_levels=1, max_episode_steps=LIMIT)
    actions = jax.random.randint(jax.random.key(2), (STEPS,), 0, 4)
    out = rollout(env, params, actions)
    info = out["info"]
    terminated, truncated = np.asarray(info["terminated"]), np.asarray(info["truncated"])
    # gymnax's wrappers: the old 5-tuple's done and LogWrapper's episode ends are the 6-tuple's ends
    assert np.array_equal(np.asarray(out["done"]), terminated | truncated)
    assert np.array_equal(np.asarray(info["returned_episode"]), terminated | truncated)
    assert truncated.any()
    # the same rollout under gym.make: every step, every end, every final and first observation
    gym_env = gym.make(env_id, num_levels=1, max_episode_steps=LIMIT)
    flat = lambda x: np.asarray(x).reshape(-1)  # noqa: E731  (FlattenObservationWrapper's view)
    obs, _ = gym_env.reset(seed=0)
    assert np.array_equal(flat(obs), np.asarray(out["reset"]))
    episode_return = 0.0
    for t, action in enumerate(np.asarray(actions).tolist()):
        obs, reward, term, trunc, gym_info = gym_env.step(action)
        assert reward == pytest.approx(float(out["reward"][t]))
        assert (term, trunc) == (bool(terminated[t]), bool(truncated[t])), t
        assert np.array_equal(flat(obs), np.asarray(info["final_observation"][t])), t
        for key in SHARED:
            if key in gym_info:
                assert np.array_equal(np.asarray(gym_info[key]), np.asarray(info[key][t])), (t, key)
        episode_return += reward
        if term or trunc:
            assert float(info["returned_episode_returns"][t]) == pytest.approx(episode_return)
            episode_return = 0.0
            obs, _ = gym_env.reset()
        assert np.array_equal(flat(obs), np.asarray(out["obs"][t])), t
    assert gymnax_spaces.gymnax_space_to_gym_space(env.observation_space(params)) == gym_env.observation_space
    shape = jax.jit(lambda p: jnp.zeros(env.observation_space(p).shape))(params).shape  # static inside jit
    assert shape == gym_env.observation_space.shape
    assert copy.deepcopy(env).observation_space(params).shape == shape


def test_gymnax_gymnasium_wrappers_run_on_the_twin() -> None:
    env_id = "Maze-PartialObs-Image-5x5-v0"  # every id's spaces convert (above); the wrappers' code is the same
    env, params = mj.make(env_id)
    space = gym.make(env_id).observation_space
    single = gymnax_wrappers.GymnaxToGymWrapper(env, params, seed=0)
    assert single.observation_space == space
    first, _ = single.reset(seed=0)
    assert space.contains(np.asarray(first)) and len(single.step(1)) == 5
    vector = gymnax_wrappers.GymnaxToVectorGymWrapper(env, num_envs=2, params=params, seed=0)
    batch, _ = vector.reset(seed=0)
    assert np.asarray(batch).shape == (2, *space.shape)
    assert np.asarray(vector.step(jnp.array([0, 1]))[2]).shape == (2,)


def test_goal_on_the_time_limit_step_is_terminated_and_truncated() -> None:
    gym_env = gym.make("Maze-v0", rows=3, cols=3, num_levels=1, max_episode_steps=1)
    gym_env.reset(seed=0)
    route = gym_env.unwrapped.shortest_route()
    moves = [MOVES.index((b[0] - a[0], b[1] - a[1])) for a, b in zip(route, route[1:], strict=False)]
    gym_env = gym.make("Maze-v0", rows=3, cols=3, num_levels=1, max_episode_steps=len(moves))
    gym_env.reset(seed=0)
    twin, params = mj.make("Maze-v0", rows=3, cols=3, num_levels=1, max_episode_steps=len(moves))
    _, state = twin.reset(jax.random.key(0), params)
    step = jax.jit(twin.step)
    for action in moves:
        expected = gym_env.step(action)
        _, state, reward, terminated, truncated, info = step(jax.random.key(1), state, action, params)
    assert expected[2:4] == (True, True)
    assert (bool(terminated), bool(truncated)) == (True, True)
    assert np.array_equal(np.asarray(info["final_observation"]), expected[0])
    # the native vector env and the twin's adapter agree with gym.make's TimeLimit
    for venv in (gym.make_vec("Maze-v0", num_envs=1, vectorization_mode="vector_entry_point", rows=3, cols=3,
                              num_levels=1, max_episode_steps=len(moves)),
                 JaxVectorEnv("Maze-v0", num_envs=1, rows=3, cols=3, num_levels=1, max_episode_steps=len(moves))):
        venv.reset(seed=0)
        for action in moves:
            ends = venv.step(np.array([action]))[2:4]
        assert (bool(ends[0][0]), bool(ends[1][0])) == (True, True), type(venv).__name__
    for action in INVALID:  # the adapter refuses what the traced step flags, as the Gymnasium env does
        with pytest.raises(InvalidActionError):
            venv.step(np.array([action]))


def test_our_contract_spaces_six_tuple_final_observation_and_a_logged_rollout() -> None:
    env, params = mj.make("Maze-PartialObs-Flat-5x5-v0", max_episode_steps=30)
    space = env.observation_space(params)
    assert isinstance(space, gymnax_spaces.Box) and isinstance(env.action_space(params), gymnax_spaces.Discrete)
    assert jax.jit(lambda p: jnp.zeros(env.observation_space(p).shape))(params).shape == space.shape
    assert copy.deepcopy(env).observation_space(params).shape == space.shape
    logged = gymnax_wrappers.LogWrapper(env)

    def run(key):
        obs, state = logged.reset(key, params)

        def body(state, key):
            action = env.action_space(params).sample(key)
            out = logged.step(key, state, action, params)
            return out[1], (out[0], out[3], out[4], out[5]["final_observation"], out[5]["returned_episode"])

        return obs, jax.lax.scan(body, state, jax.random.split(key, 100))[1]

    obs, (after, terminated, truncated, final, returned) = jax.jit(run)(jax.random.key(0))
    assert space.contains(obs) and bool(jax.vmap(space.contains)(after).all())
    ended = np.asarray(terminated | truncated)
    assert ended.any() and np.array_equal(np.asarray(returned), ended)
    # the final observation is the step's own observation where no episode ended, the pre-reset one where one did
    assert np.array_equal(np.asarray(final)[~ended], np.asarray(after)[~ended])
    assert not np.array_equal(np.asarray(final)[ended], np.asarray(after)[ended])


@pytest.mark.parametrize(("env_id", "kwargs"), [("Maze-v0", {}), ("Maze-PartialObs-v0", {"action_mode": "multi"})])
def test_invalid_actions_are_flagged_no_ops_under_jit(env_id: str, kwargs: dict[str, Any]) -> None:
    env, params = mj.make(env_id, rows=3, cols=3, **kwargs)
    _, state = env.reset(jax.random.key(0), params)
    if kwargs:  # floats: a bad direction, or a block count outside 1 .. k
        actions = jnp.array([[a, 0.0] for a in INVALID] + [[0, 9], [0, -1], [0, 0.5], [1, 0]])
    else:  # integers out of range
        actions = jnp.array([4, -1, 7, -2**31, 1], dtype=jnp.int32)
    step = jax.jit(jax.vmap(env.step, in_axes=(None, None, 0, None)))
    _, after, reward, _, _, info = step(jax.random.key(1), state, actions, params)
    invalid = np.asarray(info["invalid_action"])
    assert invalid[:-1].all() and not invalid[-1]
    assert (np.asarray(info["steps"]) == 1).all() and (np.asarray(after.pos)[:-1] == int(state.pos)).all()
    assert (np.asarray(info["wall_bumps"])[:-1] == 0).all()
    assert (np.asarray(reward)[:-1] == float(params.step_reward)).all()


@pytest.mark.parametrize(("env_id", "kwargs", "parameter"), [
    ("Maze-Image-v0", {"rows": 5, "cols": 5, "px": 3000}, "px"),
    ("Maze-Image-v0", {"px": 0}, "px"),
    ("Maze-v0", {"max_episode_steps": "abc"}, "max_episode_steps"),
    ("Maze-v0", {"max_episode_steps": float("nan")}, "max_episode_steps"),
    ("Maze-v0", {"max_episode_steps": float("inf")}, "max_episode_steps"),
    ("Maze-v0", {"max_episode_steps": 0}, "max_episode_steps"),
    ("Maze-v0", {"max_episode_steps": -1}, "max_episode_steps"),
    ("Maze-v0", {"max_episode_steps": 2.7}, "max_episode_steps"),
    ("Maze-v0", {"max_episode_steps": 2**31}, "max_episode_steps"),
    ("Maze-v0", {"num_levels": -1}, "num_levels"),
    ("Maze-v0", {"num_levels": 2.5}, "num_levels"),
    ("Maze-PartialObs-v0", {"rows": 400, "cols": 400, "num_levels": 10**6}, None),
])
def test_hostile_make_arguments_raise_naming_them(env_id: str, kwargs: dict[str, Any], parameter: str | None) -> None:
    with pytest.raises(MazeConfigError) as error:
        mj.make(env_id, **kwargs)
    if parameter is not None:
        assert parameter in str(error.value)
