"""``generate nav-scenes`` on the run engine: one procedural Gaussian-splat scene ``maze_<i>/`` per maze."""

from __future__ import annotations

import os
from dataclasses import asdict
from functools import partial
from pathlib import Path

from maze_envs.core.generators import check_options, generate
from maze_envs.core.validate import positive_int
from maze_envs.nav.procedural import SceneParams, scene_files, write_scene
from maze_envs.runs import RunOptions, WorkItem

from .writer import Dataset, WriteSummary, write_dataset


def scene_name(index: int) -> str:
    """Return the directory name of scene ``index``: ``maze_000``."""
    return f"maze_{index:03d}"


def make_scene(out: Path, payload: dict, *, rows: int, cols: int, algorithm: str,
               params: SceneParams) -> tuple[dict, list[str]]:
    """Write the scene of ``payload`` (``index``, ``seed``) under ``out``; return its summary (``scene.json``) and
    files."""
    name = scene_name(payload["index"])
    maze = generate(rows, cols, algorithm, payload["seed"])
    summary = write_scene(maze, out / name, params, payload["seed"])
    return summary, [f"{name}/{file}" for file in scene_files(summary)]


def generate_nav_scenes(output_dir: str | os.PathLike, count: int, rows: int, cols: int, *, seed: int = 0,
                        algorithm: str = "dfs", params: SceneParams | None = None, options: RunOptions = RunOptions(),
                        overwrite: bool = False) -> WriteSummary:
    """Write ``count`` scenes ``maze_000``... under ``output_dir`` (scene i from seed + i); return the summary
    (``records``: each scene's ``scene.json``). ``options`` and ``overwrite`` as for ``write_dataset``."""
    positive_int(count, parameter="count")
    for name, value in (("rows", rows), ("cols", cols)):
        positive_int(value, parameter=name)
    params = params or SceneParams()
    params.check()
    check_options(algorithm, "corner")
    dataset = Dataset(
        items=[WorkItem(scene_name(i), {"index": i, "seed": seed + i}) for i in range(count)],
        make=partial(make_scene, rows=rows, cols=cols, algorithm=algorithm, params=params),
        settings={"rows": rows, "cols": cols, "algorithm": algorithm, "params": asdict(params)}, desc="scenes")
    return write_dataset(output_dir, dataset, options, overwrite=overwrite)
