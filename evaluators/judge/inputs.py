"""What a judge run reads: the judge task and its items, from a manifest or a directory of generated outputs."""

from __future__ import annotations

import os
from pathlib import Path

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.validate import choice

from .math_task import math_items, math_task
from .maze_task import maze_items_from_dir, maze_items_from_manifest, maze_task
from .runner import JudgeItem, JudgeTask

JUDGES = ("math", "maze")


def judge_inputs(judge: str, *, manifest: str | os.PathLike | None = None,
                 input_dir: str | os.PathLike | None = None, tasks: str | os.PathLike | None = None,
                 template: str | os.PathLike | None = None) -> tuple[JudgeTask, list[JudgeItem], list[str]]:
    """Return the task of ``judge`` (``math`` or ``maze``, prompted by ``template`` or the bundled prompt), its
    items and the media files that matched no task (maze ``input_dir`` only).

    The items come from ``manifest`` or ``input_dir`` (math: its ``manifest.jsonl``; maze: every image/video,
    matched by file name to ``tasks``, a task directory or ``metadata.jsonl``). Raises ``MazeConfigError``
    naming the parameter at fault.
    """
    choice(judge, JUDGES, parameter="task")
    if (manifest is None) == (input_dir is None):
        raise MazeConfigError("give exactly one of manifest and input_dir", parameter="manifest")
    if judge == "math":
        path = Path(manifest) if manifest else Path(input_dir) / "manifest.jsonl"
        if not path.exists():
            raise MazeConfigError(f"math judge: manifest {path} not found")
        return math_task(template), math_items(path), []
    if manifest:
        return maze_task(template), maze_items_from_manifest(manifest, tasks), []
    if not tasks:
        raise MazeConfigError("the maze judge on an input directory needs the tasks (task directory or "
                              "metadata.jsonl)", parameter="tasks")
    items, unmatched = maze_items_from_dir(input_dir, tasks)
    return maze_task(template), items, unmatched
