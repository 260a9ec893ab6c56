"""The benchmark's generalization protocol: train on ``L`` levels, evaluate on held-out mazes no training level
shares, and report train-level and test success with Wilson intervals.

A policy file records the env arguments it trained on (``TrainedEnv.kwargs``), so its levels
(``num_levels``/``start_level``, ``LevelRange``) travel with it. The test set is the mazes of ``episodes`` reset
seeds from ``first_seed`` (1,000,000 by default) in the same env without a level set. It is checked disjoint from
the training levels by layout (``maze_envs.core.levels.layout_hash``), and ``held_out_set`` refuses an overlapping
one with ``LevelOverlapError``. Unlimited training (``num_levels`` 0) draws a fresh maze every reset, so there is
no level list to compare; its training mazes come from the streams of the training seeds (``seed`` ..
``seed + num_envs - 1``), far below the test seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.levels import LevelRange, check_disjoint, layout_hash
from maze_envs.core.maze import Grid
from maze_envs.core.stats import wilson_interval

from ..evaluate import EvaluationTable, evaluate
from .policy_file import TrainedEnv

TEST_SEED = 1_000_000
TEST_EPISODES = 1000
LEVEL_KEYS = ("num_levels", "start_level")


def held_out_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Return env arguments ``kwargs`` without a level set: the env the held-out mazes are drawn from."""
    return {k: v for k, v in kwargs.items() if k not in LEVEL_KEYS}


def level_layouts(env_id: str, kwargs: dict[str, Any]) -> dict[int, str]:
    """Return ``{level seed: layout_hash}`` of the training levels of ``gym.make(env_id, **kwargs)`` (empty for
    unlimited levels)."""
    levels = LevelRange.of(kwargs)
    if levels.unlimited:
        return {}
    env = gym.make(env_id, **kwargs)
    try:
        source = env.unwrapped.source
        return {seed: layout_hash(source.level_layout(seed)) for seed in levels.seeds()}
    finally:
        env.close()


def seed_layouts(env_id: str, kwargs: dict[str, Any], seeds: Sequence[int]) -> dict[int, str]:
    """Return ``{reset seed: layout_hash}`` of the maze ``gym.make(env_id, **kwargs)`` plays after
    ``reset(seed=...)``; raises ``MazeConfigError`` for an env without a grid layout."""
    env = gym.make(env_id, **kwargs)
    try:
        out = {}
        for seed in seeds:
            env.reset(seed=int(seed))
            layout = getattr(env.unwrapped, "layout", None)
            if not isinstance(layout, Grid):
                raise MazeConfigError(f"{env_id} has no grid layout to hold out; the protocol covers the grid envs",
                                      parameter="env_id")
            out[int(seed)] = layout_hash(layout)
        return out
    finally:
        env.close()


@dataclass(frozen=True)
class HeldOutSet:
    """The held-out test set of a policy: env arguments, reset seeds and their layout hashes, checked disjoint from
    the ``levels`` it trained on; ``training_kwargs`` are the test arguments with the training level set, so
    train-level and test success differ only in where the mazes come from."""

    env_id: str
    kwargs: dict[str, Any]
    training_kwargs: dict[str, Any]
    seeds: range
    layouts: dict[int, str]
    levels: LevelRange

    @property
    def distinct(self) -> int:
        """Return how many distinct layouts the test set holds."""
        return len(set(self.layouts.values()))


def held_out_set(trained: TrainedEnv, *, first_seed: int = TEST_SEED, episodes: int = TEST_EPISODES,
                 eval_kwargs: dict[str, Any] | None = None) -> HeldOutSet:
    """Return the held-out set of a policy trained on ``trained``: ``episodes`` reset seeds from ``first_seed`` in
    its env without the level set (or ``eval_kwargs``). Raises ``LevelOverlapError`` when a test layout is one of
    the training levels."""
    kwargs = held_out_kwargs(trained.kwargs) if eval_kwargs is None else dict(eval_kwargs)
    seeds = range(int(first_seed), int(first_seed) + int(episodes))
    layouts = seed_layouts(trained.env_id, kwargs, seeds)
    levels = LevelRange.of(trained.kwargs)
    check_disjoint(level_layouts(trained.env_id, trained.kwargs).values(), layouts,
                   what=f"the policy's training {levels.describe()}")
    training = {**kwargs, **{k: trained.kwargs[k] for k in LEVEL_KEYS if k in trained.kwargs}}
    return HeldOutSet(trained.env_id, kwargs, training, seeds, layouts, levels)


@dataclass(frozen=True)
class Success:
    """Successes out of episodes, the rate and its 95% Wilson interval."""

    successes: int
    episodes: int

    @property
    def rate(self) -> float:
        """Return the success rate."""
        return self.successes / self.episodes

    @property
    def interval(self) -> tuple[float, float]:
        """Return the 95% Wilson interval of the rate."""
        return wilson_interval(self.successes, self.episodes)

    @classmethod
    def of(cls, table: EvaluationTable) -> Success:
        """Return the successes of an evaluation table's episodes."""
        return cls(int(sum(bool(r["success"]) for r in table.rows)), len(table.rows))

    def as_dict(self) -> dict[str, Any]:
        """Return the JSON fields: successes, episodes, rate, low, high."""
        low, high = self.interval
        return {"successes": self.successes, "episodes": self.episodes, "rate": self.rate, "low": low, "high": high}

    def __str__(self) -> str:
        low, high = self.interval
        return f"{self.rate:.3f} [{low:.3f}, {high:.3f}]"


@dataclass(frozen=True)
class HeldOutResult:
    """A policy's success on the held-out test set and (for a level set) on its training levels, and the gap."""

    test: Success
    train: Success | None
    levels: LevelRange
    distinct_test_layouts: int

    @property
    def gap(self) -> float | None:
        """Return train-level minus test success (None without a level set)."""
        return None if self.train is None else self.train.rate - self.test.rate

    def as_dict(self) -> dict[str, Any]:
        """Return the JSON fields of the result."""
        return {"levels": self.levels.describe(), "num_levels": self.levels.num_levels,
                "start_level": self.levels.start_level, "test": self.test.as_dict(),
                "train": None if self.train is None else self.train.as_dict(), "gap": self.gap,
                "distinct_test_layouts": self.distinct_test_layouts}


def evaluate_held_out(agent: Any, heldout: HeldOutSet, *, wrappers: Sequence[Callable[[gym.Env], gym.Env]] = ()
                      ) -> tuple[HeldOutResult, dict[str, EvaluationTable]]:
    """Return the held-out result of ``agent`` on ``heldout`` (made by ``held_out_set``, which refused an overlapping
    test set) and its evaluation tables: ``test`` and, for a level set, ``training levels`` (as many episodes on
    levels drawn from the training set)."""
    tables = {"test": evaluate(agent, heldout.env_id, heldout.seeds, wrappers=wrappers, **heldout.kwargs)}
    train = None
    if not heldout.levels.unlimited:
        tables["training levels"] = evaluate(agent, heldout.env_id, heldout.seeds, wrappers=wrappers,
                                             **heldout.training_kwargs)
        train = Success.of(tables["training levels"])
    return HeldOutResult(Success.of(tables["test"]), train, heldout.levels, heldout.distinct), tables
