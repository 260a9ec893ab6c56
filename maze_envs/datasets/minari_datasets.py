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

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.validate import positive_int
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
    ``dataset_id`` when a local dataset of that id exists (without ``overwrite``), ``episodes`` below 1, and
    ``max_steps`` when an episode runs that many steps without ending. Whatever it raises, nothing is published
    and its staging folder is removed. It points ``MINARI_DATASETS_PATH`` at the staging folder while it records,
    so one process records one dataset at a time.
    """
    minari = _minari()
    from minari import DataCollector

    positive_int(episodes, parameter="episodes")
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
    env = collector(gym.make(env_id, **kwargs), step_data_callback=_step_callback(), record_infos=True,
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


def replay_dataset(dataset: Any) -> list[bool]:
    """Return, per episode of the Minari ``dataset``, whether replaying its actions in the env
    ``dataset.recover_environment()`` rebuilds, reset with the episode's recorded seed, gives every recorded
    observation exactly (and the recorded rewards)."""
    env = dataset.recover_environment()
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
