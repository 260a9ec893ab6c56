"""Task-file conventions, in one place: the names a task's files get, the media suffixes, and how the name of
a model's generated file maps back to its task. The task writer, the pixel evaluators and the judge all use
these, so they cannot disagree about which file belongs to which task.

A task with stem ``S`` (``{algo}_{difficulty}_{rows}x{cols}_n{idx:03d}_{variant}``) has the puzzle ``S.png``
and the solution ``S_solution.png``; a model's answer is ``S_targeted_solution.png`` (image models) or
``S.mp4`` (video models), and any other name that starts with ``S_`` also counts as ``S``'s.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Literal

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp")
VIDEO_SUFFIXES = (".mp4", ".mov", ".avi", ".mkv", ".webm")
SOLUTION_SUFFIX = "_solution"
GENERATED_IMAGE_SUFFIX = "_targeted_solution"
Media = Literal["image", "video"]


def task_stem(algo: str, difficulty: str, rows: int, cols: int, idx: int, variant: str) -> str:
    """Return the file stem of a task: ``{algo}_{difficulty}_{rows}x{cols}_n{idx:03d}_{variant}``."""
    return f"{algo}_{difficulty}_{rows}x{cols}_n{idx:03d}_{variant}"


def puzzle_name(stem: str) -> str:
    """Return the puzzle image's file name of task ``stem``."""
    return f"{stem}.png"


def solution_name(stem: str) -> str:
    """Return the solution image's file name of task ``stem``."""
    return f"{stem}{SOLUTION_SUFFIX}.png"


def generated_name(stem: str, media: Media) -> str:
    """Return the name a model's generated image or video of task ``stem`` is expected to have."""
    return f"{stem}{GENERATED_IMAGE_SUFFIX}.png" if media == "image" else f"{stem}.mp4"


def media_of(path: str | os.PathLike) -> Media | None:
    """Return ``"image"`` or ``"video"`` by the file's suffix, or None for anything else."""
    suffix = Path(path).suffix.lower()
    if suffix in IMAGE_SUFFIXES:
        return "image"
    if suffix in VIDEO_SUFFIXES:
        return "video"
    return None


def task_of(filename: str, task_stems: Iterable[str] | None = None) -> str | None:
    """Return the task stem a generated file belongs to, or None when ``task_stems`` has none of it.

    The media suffix and a trailing ``_targeted_solution`` or ``_solution`` are dropped; with ``task_stems`` the
    result is the stem equal to what is left, else the longest stem it starts with followed by ``_``.
    """
    stem = Path(filename).stem
    for suffix in (GENERATED_IMAGE_SUFFIX, SOLUTION_SUFFIX):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    if task_stems is None:
        return stem
    stems = set(task_stems)
    if stem in stems:
        return stem
    found = [t for t in stems if stem.startswith(t + "_")]
    return max(found, key=len) if found else None


def solution_stems(solution_dir: str | os.PathLike) -> list[str]:
    """Return the task stems of the ``*_solution.png`` files in ``solution_dir`` (sorted)."""
    return sorted(p.name[: -len("_solution.png")] for p in Path(solution_dir).glob(f"*{SOLUTION_SUFFIX}.png"))
