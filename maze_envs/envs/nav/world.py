"""Where navigation tasks come from: procedural scenes built in memory (the embedded default), or a dataset in
the public layout (``data_dir`` of scene folders, optional ``map_dir``) rendered by a render server or, when
the scenes carry ``gs/`` folders, by the embedded renderer."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.generators import generate
from maze_envs.core.validate import positive_int
from maze_envs.nav.client import CloudRenderer, GaussianRenderer, LocalGaussianRenderer
from maze_envs.nav.procedural import SceneParams, build_scene
from maze_envs.nav.scene import Episode, GaussianScene, Task
from maze_envs.nav.splat import check_sh_degree

from .config import EvalConfig, camera_for_size

__all__ = ["NavWorld", "camera_for_size", "dataset_world", "procedural_world"]


@dataclass
class NavWorld:
    """Episodes (maps dilated by the protocol) and the renderer that draws them; ``map_dirs`` maps an episode id
    to the folder holding its ``map/`` files, when they are on disk."""

    episodes: list[Episode]
    renderer: Any
    map_dirs: dict[str, str]

    def tasks(self) -> list[tuple[Episode, Task]]:
        """Return every (episode, task) pair, in episode then task order."""
        return [(episode, task) for episode in self.episodes for task in episode.tasks]

    def episode(self, episode_id: str) -> Episode:
        """Return the episode named ``episode_id``; raises ``MazeConfigError`` when unknown."""
        for episode in self.episodes:
            if episode.episode_id == episode_id:
                return episode
        raise MazeConfigError(f"unknown episode {episode_id!r}")


def _dilate(episodes: list[Episode], metres: float) -> None:
    if metres > 0:
        for episode in episodes:
            if episode.occ_map is not None and episode.meta_data is not None:
                episode.dilate_free_space_by_meter(metres)


def procedural_world(config: EvalConfig, count: int = 8, rows: int = 4, cols: int = 4, seed: int = 0,
                     params: SceneParams | None = None, backend: str = "cpu", sh_degree: int | None = None) -> NavWorld:
    """Return ``count`` procedural scenes ``maze_000``... (scene i from seed + i) built in memory, with the embedded
    renderer (colours up to ``sh_degree``, as ``CloudRenderer``'s); raises ``MazeConfigError`` naming a bad
    argument."""
    positive_int(count, parameter="count")
    check_sh_degree(sh_degree)
    params = params or SceneParams()
    built = [build_scene(generate(rows, cols, "dfs", seed + i), f"maze_{i:03d}", params, seed + i)
             for i in range(count)]
    episodes = [b.episode for b in built]
    _dilate(episodes, config.occ_dilation_meters)
    renderer = CloudRenderer({b.episode.episode_id: b.cloud for b in built}, config.camera, backend=backend,
                             request_format=config.rules.render_request, sh_degree=sh_degree,
                             saved_renders=config.rules.saved_renders)
    return NavWorld(episodes, renderer, {})


def dataset_world(config: EvalConfig, data_dir: str | os.PathLike, map_dir: str | os.PathLike | None = None,
                  backend: str = "cpu", sh_degree: int | None = None) -> NavWorld:
    """Return the scenes under ``data_dir`` (maps from ``map_dir/<scene>/`` when given), rendered by the server at
    ``config.render_url``, or without one by the embedded renderer over ``data_dir``'s ``gs/`` folders (colours up
    to ``sh_degree``, as ``RenderService``'s; a server has its own). Raises ``MazeConfigError`` naming a bad
    ``sh_degree``."""
    check_sh_degree(sh_degree)
    scene = GaussianScene(data_dir, map_dir)
    episodes = list(scene)
    _dilate(episodes, config.occ_dilation_meters)
    map_dirs = {}
    for episode in episodes:
        candidate = Path(map_dir) / episode.episode_id if map_dir is not None else None
        map_dirs[episode.episode_id] = str(candidate if candidate is not None and candidate.is_dir()
                                           else episode.scene_path)
    if config.render_url:
        renderer = GaussianRenderer(config.render_url, config.camera, timeout=config.render_timeout,
                                    max_retries=config.render_max_retries, retry_backoff=config.render_retry_backoff,
                                    request_format=config.rules.render_request,
                                    saved_renders=config.rules.saved_renders)
    else:
        if not any((Path(e.scene_path) / "gs").is_dir() for e in episodes):
            raise MazeConfigError(f"{data_dir} has no gs/ scene folders to render locally; give a render server URL",
                                  parameter="render_url")
        renderer = LocalGaussianRenderer(data_dir, config.camera, backend=backend,
                                         request_format=config.rules.render_request, sh_degree=sh_degree,
                             saved_renders=config.rules.saved_renders)
    return NavWorld(episodes, renderer, map_dirs)
