"""Offline-RL datasets of our envs in Minari's format (extra ``minari``): episodes of any agent recorded with
Minari's ``DataCollector`` (infos included) into a local dataset that ``minari.load_dataset`` opens and whose
``recover_environment()`` rebuilds the env, and the replay that checks a dataset reproduces its observations.

Datasets are named D4RL-style, ``maze-envs/<env>/<policy>-v0`` (``maze-envs/maze-partialobs-9x9/oracle-v0``),
and live where Minari keeps local datasets (``MINARI_DATASETS_PATH``, else ``~/.minari/datasets``). Their
metadata names the env (``env_spec``: id and kwargs) and the policy (``algorithm_name``), and ``description``
says both with the episode seeds. Episode ``i`` is reset with ``seed + i``; images are stored losslessly (no
JPEG), so a replay in the recovered env gives every recorded observation exactly.

A dataset is published whole: it is recorded in a hidden staging folder beside the datasets
(``.maze-envs-staging-<pid>-<id>``, which Minari's listing skips) and moved into place with one rename once it is
complete, so a crash, Ctrl-C or ``kill -9`` never leaves a half dataset listed; the staging folders of processes
that are gone are removed when the next recording starts (``clean_staging``).

Info values Minari's HDF5 storage cannot hold (text, the openings' nested puzzle records) are stored as JSON
bytes (``json.loads(value.decode())`` reads one back); numbers and arrays stay as they are.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import gymnasium as gym
import numpy as np

from maze_envs.core.errors import MazeConfigError, brief_repr
from maze_envs.core.validate import integer, positive_int, registered_id
from maze_envs.core.words import counted

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


STAGING_PREFIX = ".maze-envs-staging-"


def datasets_root() -> Path:
    """Return the folder Minari keeps local datasets in (``MINARI_DATASETS_PATH``, else ``~/.minari/datasets``)."""
    return Path(os.environ.get("MINARI_DATASETS_PATH") or Path.home() / ".minari" / "datasets")


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def clean_staging(root: str | os.PathLike) -> list[Path]:
    """Remove the staging folders under ``root`` whose recording process is gone (killed, crashed); return them.
    Folders of recordings still running are left alone."""
    removed = []
    for entry in Path(root).glob(f"{STAGING_PREFIX}*"):
        pid = entry.name[len(STAGING_PREFIX):].partition("-")[0]
        if entry.is_dir() and not entry.is_symlink() and (not pid.isdigit() or not _running(int(pid))):
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


@contextmanager
def _staging(root: Path) -> Iterator[Path]:
    """Point Minari at a fresh staging folder under ``root`` while the block runs; yield it, then remove it."""
    staging = root / f"{STAGING_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
    staging.mkdir(parents=True)
    before = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str(staging)
    try:
        yield staging
    finally:
        if before is None:
            os.environ.pop("MINARI_DATASETS_PATH", None)
        else:
            os.environ["MINARI_DATASETS_PATH"] = before
        shutil.rmtree(staging, ignore_errors=True)


def _publish(staging: Path, root: Path, dataset_id: str, overwrite: bool) -> None:
    """Move the complete dataset ``dataset_id`` from ``staging`` into ``root`` with one rename (its namespaces'
    metadata first); with ``overwrite`` an existing one is moved aside first and removed after."""
    parts = dataset_id.split("/")
    for depth in range(1, len(parts)):
        namespace = Path(*parts[:depth])
        (root / namespace).mkdir(exist_ok=True)
        made = staging / namespace / "namespace_metadata.json"
        if made.is_file() and not (root / namespace / made.name).exists():
            shutil.copyfile(made, root / namespace / made.name)
    target = root / dataset_id
    if target.exists():
        if not overwrite:
            raise MazeConfigError(f"a local Minari dataset {dataset_id!r} appeared while it was recorded",
                                  parameter="dataset_id")
        target.rename(staging / "replaced")
    (staging / dataset_id).rename(target)


def record_dataset(env_id: str, make_agent: AgentFactory, policy: str, *, episodes: int, seed: int = 0,
                   env_kwargs: dict[str, Any] | None = None, dataset_id: str | None = None,
                   max_steps: int = 100_000, overwrite: bool = False) -> RecordedDataset:
    """Record ``episodes`` episodes of ``make_agent(env, seed + i)`` in ``gym.make(env_id, **env_kwargs)`` (episode
    ``i`` reset with ``seed + i``) into the local Minari dataset ``dataset_id`` (default ``dataset_name``),
    published whole once complete (an existing one replaced only with ``overwrite``); return what was written.

    ``policy`` names the agent in the metadata. Raises ``MazeConfigError`` naming ``minari`` without the extra,
    ``dataset_id`` when a local dataset of that id exists (without ``overwrite``), ``episodes`` below 1, ``seed``
    below 0 or with ``seed + episodes - 1`` past ``MAX_SEED``, ``env_id`` when it is not a registered id or Minari
    cannot store its spaces (``storable_env``), and ``max_steps`` when an episode runs that many steps without
    ending. Whatever it raises, nothing is published and its staging folder is removed. It points
    ``MINARI_DATASETS_PATH`` at the staging folder while it records, so one process records one dataset at a time.
    """
    minari = _minari()
    from minari import DataCollector

    positive_int(episodes, parameter="episodes")
    integer(seed, 0, MAX_SEED - episodes + 1, parameter="seed")
    registered_id(env_id, gym.registry, parameter="env_id")
    kwargs = dict(env_kwargs or {})
    dataset_id = dataset_id or dataset_name(env_id, policy)
    root = datasets_root()
    root.mkdir(parents=True, exist_ok=True)
    clean_staging(root)
    if dataset_id in minari.list_local_datasets() and not overwrite:
        raise MazeConfigError(f"a local Minari dataset {dataset_id!r} exists already; delete it with "
                              f"minari.delete_dataset({dataset_id!r}) or pick another id", parameter="dataset_id")
    with _staging(root) as staging:
        total_episodes, total_steps = _record(DataCollector, env_id, kwargs, make_agent, policy, episodes, seed,
                                              dataset_id, max_steps)
        _publish(staging, root, dataset_id, overwrite)
    return RecordedDataset(dataset_id, env_id, kwargs, policy, total_episodes, total_steps, seed)


def _record(collector: Any, env_id: str, kwargs: dict[str, Any], make_agent: AgentFactory, policy: str,
            episodes: int, seed: int, dataset_id: str, max_steps: int) -> tuple[int, int]:
    """Record the episodes into the Minari dataset ``dataset_id`` where Minari points now; return its episode and
    step counts."""
    env = collector(storable_env(env_id, kwargs), step_data_callback=_step_callback(), record_infos=True,
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
                raise MazeConfigError(f"episode {i} of {env_id} did not end within {counted(max_steps, 'step')}",
                                      parameter="max_steps")
        description = (f"{counted(episodes, 'episode')} of the {policy} policy in {env_id} with kwargs "
                       f"{json.dumps(kwargs, sort_keys=True)}, episode i reset with seed {seed} + i "
                       "(recorded by maze_envs.datasets.minari_datasets.record_dataset)")
        dataset = env.create_dataset(dataset_id, algorithm_name=policy, description=description,
                                     code_permalink="maze_envs.datasets.minari_datasets")
        return dataset.total_episodes, dataset.total_steps
    finally:
        env.close()


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
