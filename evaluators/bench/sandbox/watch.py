"""Watching one player on one benchmark maze, move by move (``maze-envs sandbox ai|partial-observe``): the
settings, finding the maze by name, the played episode that ``transcript.write_transcript`` prints, and
``watch``, the default protocol's ``SandboxRules.watch``."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any, Callable, ContextManager, TextIO

from maze_envs.core.errors import MazeConfigError
from maze_envs.llm import ChatClient

from ..episode import Budgets, Episode, bench_env, play_episode
from ..mazes import BenchMaze, load_bench_maze
from ..players import Players, baseline_name, check_players
from .api import maze_files
from .transcript import write_transcript

OpenClient = Callable[[], ContextManager[ChatClient]]


@dataclass(frozen=True)
class WatchSettings:
    """One watched episode: ``mode`` (ai or partial-observe), the ``model`` that plays (a chat model or
    ``baseline:NAME``), ``max_calls`` API calls, ``max_moves`` cells moved (None: 4 x the grid's cells),
    ``max_no_exploration_steps`` decisions in a row without a new cell, the model's ``memory`` of past turns
    (-1 all), the partial view's ``visibility`` and ``explored_map``, and the ``seed``."""

    mode: str
    model: str
    max_calls: int = 50
    max_moves: int | None = None
    max_no_exploration_steps: int = 20
    memory: int = 5
    visibility: int = 3
    explored_map: bool = False
    seed: int = 0

    def validated(self) -> "WatchSettings":
        """Return ``self``; raise ``MazeConfigError`` naming the field at fault."""
        check_players([self.model], self.mode, parameter="model")
        if self.memory < -1:
            raise MazeConfigError(f"must be -1 (all), 0 (none) or a positive count, got {self.memory}",
                                  parameter="memory")
        for name in ("max_calls", "max_moves", "max_no_exploration_steps", "visibility"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise MazeConfigError(f"must be at least 1, got {value}", parameter=name)
        return self

    def budgets(self, maze: BenchMaze) -> Budgets:
        """Return the episode's budgets on ``maze``."""
        return Budgets(self.max_calls, self.max_moves or 4 * maze.grid.size, self.max_no_exploration_steps)


def find_bench_maze(mazes_dir: str | os.PathLike, name: str | None = None) -> BenchMaze:
    """Return the maze called ``name`` (a file stem such as ``maze_9x9_0``) under ``mazes_dir``, the first one when
    ``name`` is None; raises ``MazeConfigError`` about ``mazes_dir`` or ``maze``."""
    files = maze_files(mazes_dir)
    if not files:
        raise MazeConfigError(f"{mazes_dir}: no maze_<H>x<W>_<i>.json files", parameter="mazes_dir")
    name = name or next(iter(files))
    if name not in files:
        raise MazeConfigError(f"no maze {name!r} in {mazes_dir}", parameter="maze")
    return load_bench_maze(files[name], files[name].parent.name)


def watch_episode(maze: BenchMaze, settings: WatchSettings, players: Players,
                  client: ChatClient | None = None) -> tuple[Episode, Any]:
    """Return the episode ``settings.model`` plays on ``maze`` (keeping each turn's view) and its agent, built by
    ``players``: the baseline, or the model's agent on ``client``."""
    env = bench_env(settings.mode, maze.grid, maze.start, maze.goal, visibility=settings.visibility)
    try:
        name = baseline_name(settings.model)
        if name is not None:
            agent = players.baseline(name, env, settings.seed)
        else:
            if client is None:
                raise MazeConfigError(f"{settings.model} is a chat model: pass its client", parameter="model")
            agent = players.model(env, client, memory=settings.memory, explored_map=settings.explored_map,
                                  max_calls=settings.max_calls, params={"temperature": 0.1})
        episode = play_episode(env, agent, settings.budgets(maze), seed=settings.seed, record_views=True)
    finally:
        env.close()
    return episode, agent


def watch(maze: BenchMaze, settings: WatchSettings, players: Players, open_client: OpenClient, out: TextIO) -> int:
    """Play ``settings.model`` on ``maze`` by this project's rules (``open_client()`` opens a chat model's client)
    and write the transcript to ``out``; return 0 when it reached the goal, else 1."""
    with contextlib.ExitStack() as stack:
        client = None if baseline_name(settings.model) else stack.enter_context(open_client())
        episode, agent = watch_episode(maze, settings, players, client)
    write_transcript(episode, out, title=f"Maze {maze.name} ({maze.size}), {settings.mode} mode, {settings.model}",
                     budgets=settings.budgets(maze), calls=getattr(agent, "calls", ()))
    return 0 if episode.success else 1
