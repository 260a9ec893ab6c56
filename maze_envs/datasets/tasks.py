"""``generate tasks`` on the run engine: puzzle and solution PNGs per task and ``metadata.jsonl``."""

from __future__ import annotations

import os
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Sequence

from maze_envs.core.jsonfiles import write_jsonl
from maze_envs.core.render import ImageStyle
from maze_envs.runs import RunOptions, WorkItem
from maze_envs.runs.log import OK
from maze_envs.tasks.spec import TaskSpec, task_id, write_task

from .writer import Dataset, WriteSummary, write_dataset

METADATA = "metadata.jsonl"


def make_task(out: Path, payload: dict, *, style: ImageStyle | None, image_px: int | None) -> tuple[dict, list[str]]:
    """Write the task of ``payload`` (a ``TaskSpec`` as a dict) under ``out``; return its metadata record and files."""
    record = write_task(TaskSpec(**payload), out, style, image_px)
    return record, [record["puzzle"], record["solution"]]


def write_metadata(out: Path, entries: list[dict]) -> list[Path]:
    """Write ``metadata.jsonl`` from the log entries, in item order; return its path in a list."""
    return [write_jsonl(out / METADATA, [e["record"] for e in entries if e["status"] == OK])]


def generate_tasks(specs: Sequence[TaskSpec], output_dir: str | os.PathLike, *, style: ImageStyle | None = None,
                   image_px: int | None = None, options: RunOptions = RunOptions(),
                   overwrite: bool = False) -> WriteSummary:
    """Write every task's puzzle and solution PNGs and ``metadata.jsonl`` into ``output_dir``; return the summary.

    ``style`` sets fixed pixel sizes, ``image_px`` fits each image in a square of that size (default: the
    default style). ``options`` and ``overwrite`` as for ``write_dataset``: the same specs give the same files
    whatever the backend and workers.
    """
    dataset = Dataset(
        items=[WorkItem(task_id(spec), asdict(spec)) for spec in specs],
        make=partial(make_task, style=style, image_px=image_px),
        settings={"style": asdict(style) if style else None, "image_px": image_px},
        desc="tasks", write_indexes=write_metadata, index_names=(METADATA,))
    return write_dataset(output_dir, dataset, options, overwrite=overwrite)
