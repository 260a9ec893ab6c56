"""``maze-envs sandbox ai|partial-observe --protocol mazebench`` (the protocol's ``SandboxRules.watch``): MazeBench's
own model loop on one maze, its result printed as JSON."""

from __future__ import annotations

import json
from typing import TextIO

from maze_envs.core.errors import MazeConfigError
from maze_envs.llm import answer

from ..mazes import BenchMaze
from ..players import Players, baseline_name
from ..sandbox.watch import OpenClient, WatchSettings
from .sandbox import run_sandbox


def watch_mazebench(maze: BenchMaze, settings: WatchSettings, players: Players, open_client: OpenClient,
                    out: TextIO) -> int:
    """Play MazeBench's loop on ``maze`` with the chat model of ``settings`` and write its result as JSON to
    ``out``; return 0 on success, else 1. Raises ``MazeConfigError`` for a baseline (its loop asks a model)."""
    if baseline_name(settings.model) is not None:
        raise MazeConfigError("the mazebench protocol plays chat models only (its loop asks a model)",
                              parameter="protocol")
    with open_client() as client:
        result = answer(run_sandbox(maze, mode=settings.mode, params={"temperature": 0.1},
                                    max_steps=settings.max_calls, memory=settings.memory,
                                    visibility=settings.visibility,
                                    max_no_exploration=settings.max_no_exploration_steps), client)
    print(json.dumps({**result.to_dict(), "maze": maze.name, "model": settings.model, "max_calls": settings.max_calls},
                     ensure_ascii=False, indent=2), file=out)
    return 0 if result.success else 1
