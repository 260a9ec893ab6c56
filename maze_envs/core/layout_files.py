"""One entry point for maze files of every format: our versioned JSON (``maze_envs.core.mazefile``) and MazeBench's
(``maze_envs.core.mazebench_files``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .errors import MazeFormatError, brief_repr
from .jsonfiles import read_json, write_json_atomic
from .maze import Grid, Maze
from .mazebench_files import mazebench_from_dict
from .mazefile import GRID_FORMAT, MAZE_FORMAT, grid_from_dict, grid_to_dict, maze_from_dict, maze_to_dict


def layout_from_dict(doc: Any, *, source: str | None = None) -> Maze | Grid:
    """Return the layout of a parsed document in any supported format (a benchmark file: see
    ``MazeBenchRecord.to_layout``)."""
    if not isinstance(doc, dict):
        raise MazeFormatError("top level must be a JSON object", source=source)
    fmt = doc.get("format")
    if fmt == MAZE_FORMAT:
        return maze_from_dict(doc, source=source)
    if fmt == GRID_FORMAT:
        return grid_from_dict(doc, source=source)
    if fmt is not None:
        raise MazeFormatError(f"unknown format {brief_repr(fmt)}", source=source, field="format")
    return mazebench_from_dict(doc, source=source).to_layout()


def load_layout(path: str | os.PathLike) -> Maze | Grid:
    """Return the maze or grid stored at ``path`` (our JSON or the benchmark's JSON)."""
    return layout_from_dict(read_json(path), source=str(path))


def save_layout(layout: Maze | Grid, path: str | os.PathLike) -> Path:
    """Write ``layout`` to ``path`` in our versioned JSON; return the path."""
    doc = maze_to_dict(layout) if isinstance(layout, Maze) else grid_to_dict(layout)
    return write_json_atomic(path, doc)
