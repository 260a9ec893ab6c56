"""The maze judge: the maze definition (text grid and shortest path) in the prompt, a generated solution
image or video attached, binary scores for a valid route, reaching the goal, wall crossing and reflection."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from maze_envs.core.errors import MazeConfigError, MazeFormatError, brief_repr
from maze_envs.core.maze import Maze
from maze_envs.core.mazefile import maze_from_dict
from maze_envs.core.render import render_text
from maze_envs.core.solve import shortest_path
from maze_envs.core.textmaze import format_path
from maze_envs.llm.prompts import PromptTemplate
from maze_envs.tasks.files import media_of, task_of

from .manifest import pick, read_records
from .prompts import PROMPTS_DIR
from .runner import JudgeItem, JudgeTask

MAZE_FIELDS = ("VALID_ROUTE", "REACHES_GOAL", "WALL_CROSSING", "ACTION_REFLECTION")
MAZE_PLACEHOLDERS = ("maze_text", "shortest_path", "rows", "cols", "media_description")
IMAGE_DESCRIPTION = ("an image of this maze on which the model drew its solution route (a blue line or blue cells "
                     "from the green start to the red goal)")
VIDEO_DESCRIPTION = ("a video, given as frames, in which the model moves a green marker from the start toward the "
                     "goal; judge the whole trajectory the marker traces over all frames")


def success(scores: dict[str, int]) -> dict[str, int]:
    """Return ``SUCCESS``: 1 when the route is valid, reaches the goal and crosses no wall."""
    ok = scores["VALID_ROUTE"] and scores["REACHES_GOAL"] and not scores["WALL_CROSSING"]
    return {"SUCCESS": int(bool(ok))}


def maze_task(template: str | os.PathLike | None = None) -> JudgeTask:
    """Return the maze judge task (the bundled prompt unless ``template`` names another file)."""
    prompt = PromptTemplate.load(template or PROMPTS_DIR / "maze_judge.txt").require(MAZE_PLACEHOLDERS)
    return JudgeTask("maze", prompt, MAZE_FIELDS, "difficulty", "SUCCESS", success)


def maze_values(maze: Maze, *, video: bool) -> dict[str, Any]:
    """Return the template values of ``maze``: its text grid, shortest path in cells, size and media description."""
    return {"maze_text": render_text(maze), "shortest_path": format_path(shortest_path(maze) or []),
            "rows": maze.rows, "cols": maze.cols,
            "media_description": VIDEO_DESCRIPTION if video else IMAGE_DESCRIPTION}


def load_tasks(path: str | os.PathLike) -> dict[str, dict[str, Any]]:
    """Return the task records of a task directory (its ``metadata.jsonl``) or a metadata file, by task id."""
    path = Path(path)
    meta = path / "metadata.jsonl" if path.is_dir() else path
    if not meta.exists():
        raise MazeConfigError(f"{path}: no metadata.jsonl (write one with `maze-envs generate tasks`)",
                              parameter="tasks")
    tasks = {}
    for number, record in enumerate(read_records(meta), 1):
        tasks[str(pick(record, ("id",), meta, number))] = record
    return tasks


def _item(file: Path, task_id: str, record: dict[str, Any], source: Path, number: int) -> JudgeItem:
    maze = maze_from_dict(pick(record, ("maze",), source, number), source=f"{source} ({task_id})")
    return JudgeItem(file.name, file, maze_values(maze, video=media_of(file) == "video"),
                     str(record.get("difficulty", "")), {"task_id": task_id})


def maze_items_from_dir(input_dir: str | os.PathLike, tasks: str | os.PathLike) -> tuple[list[JudgeItem], list[str]]:
    """Return the items for every image/video in ``input_dir`` matched to a task by file name, and the names
    of the media files that match no task."""
    input_dir, tasks_path = Path(input_dir), Path(tasks)
    if not input_dir.is_dir():
        raise MazeConfigError(f"{input_dir}: not a directory", parameter="input_dir")
    table = load_tasks(tasks_path)
    ids = list(table)
    items, unmatched = [], []
    for file in sorted(input_dir.iterdir()):
        if media_of(file) is None:
            continue
        task_id = task_of(file.name, ids)
        if task_id is None:
            unmatched.append(file.name)
            continue
        items.append(_item(file, task_id, table[task_id], tasks_path, ids.index(task_id) + 1))
    return items, unmatched


def maze_items_from_manifest(manifest: str | os.PathLike, tasks: str | os.PathLike | None = None) -> list[JudgeItem]:
    """Return the items of a maze manifest: records with ``file`` (relative to the manifest) and either a
    ``maze`` (our JSON) or a ``task_id`` found in ``tasks``."""
    manifest = Path(manifest)
    table = load_tasks(tasks) if tasks is not None else {}
    items = []
    for number, record in enumerate(read_records(manifest), 1):
        file = manifest.parent / str(pick(record, ("file", "output", "path"), manifest, number))
        if "maze" in record:
            items.append(_item(file, str(record.get("task_id", file.stem)), record, manifest, number))
            continue
        task_id = str(pick(record, ("task_id",), manifest, number))
        if task_id not in table:
            raise MazeFormatError(f"record {number}: task_id {brief_repr(task_id)} not in the tasks metadata",
                                  source=manifest, field="task_id")
        items.append(_item(file, task_id, table[task_id], manifest, number))
    return items
