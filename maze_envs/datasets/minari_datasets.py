"""Offline-RL datasets of our envs in Minari's format (extra ``minari``): episodes of any agent recorded with
Minari's ``DataCollector`` (infos included) into a local dataset that ``minari.load_dataset`` opens and whose
``recover_environment()`` rebuilds the env, and the replay that checks a dataset reproduces its observations.

Datasets are named D4RL-style, ``maze-envs/<env>/<policy>-v0`` (``maze-envs/maze-partialobs-9x9/oracle-v0``),
and live where Minari keeps local datasets (``MINARI_DATASETS_PATH``, else ``~/.minari/datasets``). Their
metadata names the env (``env_spec``: id and kwargs) and the policy (``algorithm_name``), and ``description``
says both with the episode seeds. Episode ``i`` is reset with ``seed + i``; images are stored losslessly (no
JPEG), so a replay in the recovered env gives every recorded observation exactly.

Info values Minari's HDF5 storage cannot hold (text, the openings' nested puzzle records) are stored as JSON
bytes (``json.loads(value.decode())`` reads one back); numbers and arrays stay as they are.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable

import gymnasium as gym
import numpy as np

from maze_envs.core.errors import MazeConfigError, brief_repr
from maze_envs.core.validate import integer, positive_int, registered_id

from ..envs.agent import Agent

AgentFactory = Callable[[gym.Env, int], Agent]


@dataclass(frozen=True)
class RecordedDataset:
    """A dataset written by ``record_dataset``: its Minari id, the env and kwargs, the policy and its size."""

    dataset_id: str
    env_id: str
    env_kwargs: dict[str, Any]
    policy: str
    episodes: int
    steps: int
    seed: int


MAX_SEED = 2 ** 63 - 1  # Minari stores each episode's seed as a signed 64-bit integer


def dataset_name(env_id: str, policy: str, version: int = 0) -> str:
    """Return the D4RL-style Minari id of ``policy``'s episodes of ``env_id``: ``maze-envs/<env>/<policy>-v<n>``
    with the env's id lower-cased and its version dropped (``Maze-PartialObs-9x9-v0``, ``oracle`` ->
    ``maze-envs/maze-partialobs-9x9/oracle-v0``)."""
    stem = re.sub(r"-v\d+$", "", env_id.split(":")[-1]).lower()
    return f"maze-envs/{stem}/{policy}-v{version}"


def _storable(value: Any) -> Any:
    """Return ``value`` as HDF5 can hold it: numbers and numeric arrays as they are, anything else as JSON bytes."""
    array = np.asarray(value) if not isinstance(value, dict) else None
    if array is not None and array.dtype.kind in "biuf":
        return value
    return np.bytes_(json.dumps(value, default=_jsonable, sort_keys=True))


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot store an info value of type {type(value).__name__}")


def _step_callback():
    from minari.data_collector.callbacks import StepDataCallback

    class StorableInfos(StepDataCallback):
        """Minari's step data with every info value in a form its storage takes (``_storable``)."""

        def __call__(self, env, **kwargs):
            data = super().__call__(env, **kwargs)
            data["info"] = {key: _storable(value) for key, value in data["info"].items()}
            return data

    return StorableInfos


def _minari():
    try:
        import minari
    except ImportError as exc:
        raise MazeConfigError(f"Minari datasets need the minari extra ({exc}); pip install 'maze-envs[minari]'",
                              parameter="minari") from exc
    return minari


def storable_env(env_id: str, kwargs: dict[str, Any]) -> gym.Env:
    """Return ``gym.make(env_id, **kwargs)`` when Minari can store its spaces; else close it and raise
    ``MazeConfigError`` about ``env_id`` naming the space (and the ``-Numeric`` id that Minari can store, where
    there is one)."""
    from minari.serialization import serialize_space

    env = gym.make(env_id, **kwargs)
    for what, whole in (("observation", env.observation_space), ("action", env.action_space)):
        leaves = [whole]
        while any(isinstance(leaf, (gym.spaces.Dict, gym.spaces.Tuple)) for leaf in leaves):
            leaves = [part for leaf in leaves for part in (
                leaf.spaces.values() if isinstance(leaf, gym.spaces.Dict) else
                leaf.spaces if isinstance(leaf, gym.spaces.Tuple) else [leaf])]
        try:
            for space in leaves:
                if not isinstance(space, gym.spaces.Box):  # Minari stores boxes; writing their bounds is slow
                    serialize_space(space)
        except NotImplementedError:
            env.close()
            numeric = env_id.replace("-v0", "-Numeric-v0")
            hint = f"; record {numeric}, its numeric variant" if numeric in gym.registry else ""
            raise MazeConfigError(f"Minari cannot store the {what} space of {env_id} ({brief_repr(str(space))})"
                                  f"{hint}", parameter="env_id") from None
    return env


def record_dataset(env_id: str, make_agent: AgentFactory, policy: str, *, episodes: int, seed: int = 0,
                   env_kwargs: dict[str, Any] | None = None, dataset_id: str | None = None,
                   max_steps: int = 100_000) -> RecordedDataset:
    """Record ``episodes`` episodes of ``make_agent(env, seed + i)`` in ``gym.make(env_id, **env_kwargs)`` (episode
    ``i`` reset with ``seed + i``) into the local Minari dataset ``dataset_id`` (default ``dataset_name``); return
    what was written.

    ``policy`` names the agent in the metadata. Raises ``MazeConfigError`` naming ``minari`` without the extra,
    ``dataset_id`` when a local dataset of that id exists, ``episodes`` below 1, ``seed`` below 0 or with
    ``seed + episodes - 1`` past ``MAX_SEED``, ``env_id`` when it is not a registered id or Minari cannot store its
    spaces (``storable_env``), and ``max_steps`` when an episode runs that many steps without ending.
    """
    minari = _minari()
    from minari import DataCollector

    positive_int(episodes, parameter="episodes")
    integer(seed, 0, MAX_SEED - episodes + 1, parameter="seed")
    registered_id(env_id, gym.registry, parameter="env_id")
    kwargs = dict(env_kwargs or {})
    dataset_id = dataset_id or dataset_name(env_id, policy)
    if dataset_id in minari.list_local_datasets():
        raise MazeConfigError(f"a local Minari dataset {dataset_id!r} exists already; delete it with "
                              f"minari.delete_dataset({dataset_id!r}) or pick another id", parameter="dataset_id")
    env = DataCollector(storable_env(env_id, kwargs), step_data_callback=_step_callback(), record_infos=True,
                        jpeg_encoding=False)
    try:
        for i in range(episodes):
            agent = make_agent(env, seed + i)
            agent.reset()
            observation, info = env.reset(seed=seed + i)
            for _ in range(max_steps):
                observation, _, terminated, truncated, info = env.step(agent.act(observation, info))
                if terminated or truncated:
                    break
            else:
                raise MazeConfigError(f"episode {i} of {env_id} did not end within {max_steps} steps",
                                      parameter="max_steps")
        description = (f"{episodes} episodes of the {policy} policy in {env_id} with kwargs "
                       f"{json.dumps(kwargs, sort_keys=True)}, episode i reset with seed {seed} + i "
                       "(recorded by maze_envs.datasets.minari_datasets.record_dataset)")
        dataset = env.create_dataset(dataset_id, algorithm_name=policy, description=description,
                                     code_permalink="maze_envs.datasets.minari_datasets")
    finally:
        env.close()
    return RecordedDataset(dataset_id, env_id, kwargs, policy, dataset.total_episodes, dataset.total_steps, seed)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.array_equal(np.asarray(a), np.asarray(b))


def _step(observations: Any, t: int) -> Any:
    if isinstance(observations, dict):
        return {key: _step(value, t) for key, value in observations.items()}
    return observations[t]


_WRAPPER_PACKAGES = ("gymnasium", "maze_envs")


def recover_env(dataset: Any) -> gym.Env:
    """Return ``dataset.recover_environment()`` (Minari rebuilds the env from the ``env_spec`` its metadata
    records) once that record names the env only by a registered id: the id without a ``module:`` prefix, the
    entry point the id is registered with, wrappers only from Gymnasium or maze-envs. Raises ``MazeConfigError`` naming
    the dataset and the field otherwise, before any module is imported or env made (the metadata is data, and
    ``gym.make`` imports whatever module an entry point names)."""
    spec = dataset.env_spec
    source = f"Minari dataset {getattr(dataset.spec, 'dataset_id', '?')!r}"

    def fail(message: str) -> Exception:
        return MazeConfigError(f"{source}: metadata field {message}")

    if spec is None:
        raise fail("env_spec: missing, so no env can be recovered")
    registered_id(spec.id, gym.registry, parameter="env_spec.id", error=fail)
    if spec.entry_point != gym.registry[spec.id].entry_point:
        raise fail(f"env_spec.entry_point: {spec.entry_point!r} is not the entry point {spec.id} is registered with "
                   f"({gym.registry[spec.id].entry_point!r})")
    for wrapper in spec.additional_wrappers:
        if str(wrapper.entry_point).split(".")[0].split(":")[0] not in _WRAPPER_PACKAGES:
            raise fail(f"env_spec.additional_wrappers: {wrapper.entry_point!r} is not a wrapper of "
                       f"{' or '.join(_WRAPPER_PACKAGES)}")
    return dataset.recover_environment()


def replay_dataset(dataset: Any) -> list[bool]:
    """Return, per episode of the Minari ``dataset``, whether replaying its actions in the env
    ``dataset.recover_environment()`` rebuilds, reset with the episode's recorded seed, gives every recorded
    observation exactly (and the recorded rewards). Raises ``MazeConfigError`` before anything is made when the
    dataset's metadata names its env by more than a registered id (``recover_env``)."""
    env = recover_env(dataset)
    seeds = [m.get("seed") for m in dataset.storage.get_episode_metadata(dataset.episode_indices)]
    results = []
    try:
        for episode, seed in zip(dataset.iterate_episodes(), seeds, strict=True):
            observation, _ = env.reset(seed=None if seed is None else int(seed))
            same = _same(observation, _step(episode.observations, 0))
            for t in range(len(episode.rewards)):
                observation, reward, _, _, _ = env.step(_step(episode.actions, t))
                same = same and _same(observation, _step(episode.observations, t + 1)) and \
                    float(reward) == float(episode.rewards[t])
            results.append(bool(same))
    finally:
        env.close()
    return results
