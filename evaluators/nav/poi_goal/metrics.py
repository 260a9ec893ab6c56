"""POI-goal metrics: ``analyze_and_report`` aggregates every ``result.json`` of a run into ``poi_goal_analysis.json``.

SPL is recomputed with the arrival threshold the task ran with (``metrics.pointgoal_arrive_threshold``, else
``arrive_threshold``): effective shortest = max(shortest - threshold, 1e-3), spl = success * effective /
max(travel, effective). Collision statistics cover the tasks run with collision checks; ``poi_stats`` breaks
results down per POI name. ``python -m evaluators.nav.metrics --task poi`` is the command line.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.jsonfiles import write_json_atomic

from ..aggregate import (check_mode, finite_mean, format_table, group_names, grouped, grouped_sections,
                         load_all_results, number)

TABLE_COLUMNS = ["count", "success_rate", "spl", "avg_steps", "collision_task_rate"]
POI_COLUMNS = ["total", "success", "success_rate", "avg_spl", "collision_count"]


def extract_metrics(result: dict[str, Any], arrive_threshold: float = 2.0) -> dict[str, Any]:
    """Return one task's metrics recomputed from its ``result.json`` fields."""
    m = result.get("metrics") or {}
    success = bool(result.get("success"))
    threshold = number(m.get("pointgoal_arrive_threshold", arrive_threshold), arrive_threshold)
    sp = number(result.get("shortest_path_length"))
    travel = number(result.get("travel_length"))
    effective = max(sp - max(threshold, 0.0), 1e-3)
    mode = str(m.get("collision_mode", "off"))
    return {
        "episode_id": str(result.get("episode_id")), "task_id": str(result.get("task_id")),
        "status": str(result.get("status")),
        "poi_name": str(m.get("poi_name") or result.get("target_label") or "unknown"),
        "success": float(success), "oracle_success": float(bool(result.get("oracle_success", success))),
        "spl": effective / max(travel, effective) if success and sp > 0 else 0.0,
        "steps": number(result.get("steps")), "travel_length": travel, "shortest_path_length": sp,
        "initial_distance_to_goal": number(m.get("initial_distance_to_goal"), math.inf),
        "min_distance_to_goal": number(m.get("min_distance_to_goal", result.get("distance_to_goal")), math.inf),
        "final_distance_to_goal": number(result.get("distance_to_goal"), math.inf),
        "collision_mode": mode, "collision_count": int(number(m.get("collision_count"))),
        "collision_rate": number(m.get("collision_rate")), "has_collision": bool(m.get("has_collision")),
        "collision_terminated": bool(m.get("collision_terminated")),
    }


def aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the summary of per-task metrics ``rows`` (``{"count": 0}`` when empty)."""
    if not rows:
        return {"count": 0}

    def mean(key: str, subset: list[dict[str, Any]] = rows) -> float | None:
        return finite_mean(r[key] for r in subset)

    checked = [r for r in rows if r["collision_mode"] != "off"]
    if checked:
        collision = {"tasks_evaluated": len(checked),
                     "tasks_with_collision": sum(r["has_collision"] for r in checked),
                     "collision_task_rate": sum(r["has_collision"] for r in checked) / len(checked),
                     "total_collision_steps": sum(r["collision_count"] for r in checked),
                     "avg_collision_per_task": mean("collision_count", checked),
                     "avg_collision_rate": mean("collision_rate", checked),
                     "collision_terminated_count": sum(r["collision_terminated"] for r in checked)}
    else:
        collision = {"tasks_evaluated": 0}
    poi_stats = {}
    for name, poi_rows in sorted(grouped(rows, lambda r: r["poi_name"]).items()):
        wins = int(sum(r["success"] for r in poi_rows))
        poi_stats[name] = {"total": len(poi_rows), "success": wins, "success_rate": wins / len(poi_rows),
                           "avg_spl": mean("spl", poi_rows),
                           "collision_count": sum(r["has_collision"] for r in poi_rows),
                           "collision_terminated_count": sum(r["collision_terminated"] for r in poi_rows)}
    return {
        "count": len(rows), "success_rate": mean("success"), "oracle_success_rate": mean("oracle_success"),
        "spl": mean("spl"), "avg_steps": mean("steps"), "avg_travel_length": mean("travel_length"),
        "avg_shortest_path_length": mean("shortest_path_length"),
        "avg_initial_distance": mean("initial_distance_to_goal"), "avg_min_distance": mean("min_distance_to_goal"),
        "avg_final_distance": mean("final_distance_to_goal"), "collision": collision,
        "status_distribution": dict(Counter(r["status"] for r in rows)), "poi_stats": poi_stats,
    }


def analyze_and_report(result_dir: str | os.PathLike, mode: str = "indoor", collision_threshold: int = 3,
                       arrive_threshold: float = 2.0, min_distance: float = 5.0, max_distance: float = 50.0,
                       exclude_scenes: Iterable[str] | None = None, output_path: str | os.PathLike | None = None,
                       per_scene: bool = False, per_poi: bool = True, quiet: bool = False) -> dict[str, Any]:
    """Aggregate every ``result.json`` under ``result_dir``, print the tables (unless ``quiet``) and write
    ``poi_goal_analysis.json`` (or ``output_path``); return the summary.

    ``collision_threshold`` is recorded for compatibility and unused. ``per_scene`` adds a per-scene breakdown
    under ``"scenes"``; ``per_poi`` prints the per-POI table (``overall.poi_stats`` is always written).
    """
    check_mode(mode)
    if not max_distance > min_distance:
        raise MazeConfigError(f"must exceed min_distance ({min_distance}), got {max_distance}",
                              parameter="max_distance")
    excluded = set(exclude_scenes or ())
    results = [r for r in load_all_results(result_dir) if str(r.get("episode_id")) not in excluded]
    rows = [extract_metrics(r, arrive_threshold) for r in results]
    summary: dict[str, Any] = {
        "task_type": "poi_goal", "result_dir": str(Path(result_dir).resolve()), "mode": mode,
        "arrive_threshold": arrive_threshold, "collision_threshold": collision_threshold,
        "excluded_scenes": sorted(excluded), "total_count": len(rows),
    }
    summary.update(grouped_sections(rows, mode, min_distance, max_distance, per_scene, aggregate))
    write_json_atomic(output_path or Path(result_dir) / "poi_goal_analysis.json", summary, indent=2)
    if not quiet:
        flat = {name: {**values, **values.get("collision", {})} for name, values in
                [(n, summary["groups"][n]) for n in group_names(mode)] + [("overall", summary["overall"])]}
        print(format_table(f"POI-goal ({mode}, arrive threshold {arrive_threshold} m): {len(rows)} tasks",
                           TABLE_COLUMNS, list(flat.items())))
        if per_scene:
            print(format_table("Per scene", TABLE_COLUMNS, list(summary["scenes"].items())))
        if per_poi and summary["overall"].get("poi_stats"):
            print(format_table("Per POI", POI_COLUMNS, list(summary["overall"]["poi_stats"].items())))
    return summary
