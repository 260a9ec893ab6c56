"""``report``: the metrics of a navigation run (point-goal or POI) and its trajectory pictures, from one settings
dataclass, ``MetricsSettings`` (what ``maze-envs nav-metrics`` and ``nav-eval`` call after a run)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Sequence

from maze_envs.core.errors import MazeConfigError
from maze_envs.protocols import DEFAULT, protocol

TASKS = ("point", "poi")


@dataclass
class MetricsSettings:
    """How to aggregate a run: ``task`` (point or poi), the difficulty ``mode`` (None: outdoor for point, indoor
    for POI), ``collision_threshold`` (None: by mode for point, 3 for POI), ``arrive_threshold`` (POI results
    without one; None: 2.0), the outdoor distance range, ``exclude_scenes`` (None: the protocol default),
    ``output_path`` (None: in the run directory), ``per_scene`` / ``per_poi`` breakdowns, ``pictures``
    (``<episode>/trajectories.png``), ``protocol`` (``abot``: ABot-Navigation's averages over every task) and
    ``quiet`` (no printed tables)."""

    task: str = "point"
    mode: str | None = None
    collision_threshold: int | None = None
    arrive_threshold: float | None = None
    min_distance: float = 5.0
    max_distance: float = 50.0
    exclude_scenes: Sequence[str] | None = None
    output_path: str | os.PathLike | None = None
    per_scene: bool = False
    per_poi: bool = True
    pictures: bool = True
    protocol: str = DEFAULT
    quiet: bool = False

    def check(self) -> None:
        """Raise ``MazeConfigError`` naming the first setting out of range."""
        if self.task not in TASKS:
            raise MazeConfigError(f"must be point or poi, got {self.task!r}", parameter="task")
        self.protocol = protocol(self.protocol, "nav").name


def report(result_dir: str | os.PathLike, settings: MetricsSettings | None = None) -> dict[str, Any]:
    """Aggregate the run in ``result_dir`` (``eval_summary.json`` for point-goal, ``poi_goal_analysis.json`` for
    POI) with ``settings`` (None: ``MetricsSettings()``), print the tables unless ``quiet``, draw the pictures
    when asked; return the summary.

    Raises ``MazeConfigError`` naming a bad setting or ``result_dir``.
    """
    settings = settings or MetricsSettings()
    settings.check()
    exclude = list(settings.exclude_scenes) if settings.exclude_scenes is not None else None
    if settings.task == "point":
        from .point_goal.metrics import analyze_and_report

        summary = analyze_and_report(result_dir, settings.mode or "outdoor", settings.collision_threshold,
                                     settings.min_distance, settings.max_distance, exclude, settings.output_path,
                                     per_scene=settings.per_scene, quiet=settings.quiet, protocol=settings.protocol)
    else:
        from .poi_goal.metrics import analyze_and_report

        threshold = 3 if settings.collision_threshold is None else settings.collision_threshold
        arrive = 2.0 if settings.arrive_threshold is None else settings.arrive_threshold
        summary = analyze_and_report(result_dir, settings.mode or "indoor", threshold, arrive,
                                     settings.min_distance, settings.max_distance, exclude, settings.output_path,
                                     per_scene=settings.per_scene, per_poi=settings.per_poi, quiet=settings.quiet,
                                     protocol=settings.protocol)
    if settings.pictures:
        from .pictures import draw_run

        drawn = draw_run(result_dir)
        if drawn and not settings.quiet:
            print(f"drew {len(drawn)} trajectory pictures (<episode>/trajectories.png)")
    return summary
