"""POI-goal metrics: ``analyze_and_report`` aggregates every ``result.json`` of a run into ``poi_goal_analysis.json``.

SPL is recomputed with the arrival threshold the task ran with (``metrics.pointgoal_arrive_threshold``, else
``arrive_threshold``): effective shortest = max(shortest - threshold, 1e-3), spl = success * effective /
max(travel, effective). Collision statistics cover the tasks run with collision checks; ``poi_stats`` breaks
results down per POI name; every group carries the ``arrive_threshold`` it was computed with. The protocol's
summary reducer (``NavRules.summary``) reads distances and averages: under ``abot`` a non-finite or missing distance
counts as 0.0, as in ABot-Navigation's script. ``maze-envs nav-metrics --task poi`` is the command line;
``run_summary`` is the evaluator's own ``eval_summary.json`` of a POI run.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.jsonfiles import write_json_atomic
from maze_envs.envs.nav.config import nav_rules
from maze_envs.protocols import DEFAULT, load

from ..aggregate import (
    check_mode,
    format_table,
    group_names,
    grouped,
    grouped_sections,
    load_all_results,
    number,
)

TABLE_COLUMNS = ["count", "success_rate", "spl", "avg_steps", "collision_task_rate"]
POI_COLUMNS = ["total", "success", "success_rate", "avg_spl", "collision_count"]


def extract_metrics(result: dict[str, Any], arrive_threshold: float = 2.0, protocol: str = DEFAULT) -> dict[str, Any]:
    """Return one task's metrics recomputed from its ``result.json`` fields, distances read by the protocol's summary
    reducer (``abot``: non-finite or missing distances are 0.0)."""
    m = result.get("metrics") or {}
    success = bool(result.get("success"))
    threshold = number(m.get("pointgoal_arrive_threshold", arrive_threshold), arrive_threshold)
    sp = number(result.get("shortest_path_length"))
    travel = number(result.get("travel_length"))
    effective = max(sp - max(threshold, 0.0), 1e-3)
    mode = str(m.get("collision_mode", "off"))
    distance = load(nav_rules(protocol).summary).poi_distance

    return {
        "episode_id": str(result.get("episode_id")), "task_id": str(result.get("task_id")),
        "status": str(result.get("status")),
        "poi_name": str(m.get("poi_name") or result.get("target_label") or "unknown"),
        "success": float(success), "oracle_success": float(bool(result.get("oracle_success", success))),
        "spl": effective / max(travel, effective) if success and sp > 0 else 0.0,
        "steps": number(result.get("steps")), "travel_length": travel, "shortest_path_length": sp,
        "initial_distance_to_goal": distance(m.get("initial_distance_to_goal")),
        "min_distance_to_goal": distance(m.get("min_distance_to_goal", result.get("distance_to_goal"))),
        "final_distance_to_goal": distance(result.get("distance_to_goal")),
        "collision_mode": mode, "collision_count": int(number(m.get("collision_count"))),
        "collision_rate": number(m.get("collision_rate")), "has_collision": bool(m.get("has_collision")),
        "collision_terminated": bool(m.get("collision_terminated")),
    }


def aggregate(rows: list[dict[str, Any]], protocol: str = DEFAULT) -> dict[str, Any]:
    """Return the summary of per-task metrics ``rows`` (``{"count": 0}`` when empty): means over the finite values,
    as the protocol's summary reducer takes them (``abot``: with ``np.mean``)."""
    if not rows:
        return {"count": 0}
    poi_mean = load(nav_rules(protocol).summary).poi_mean

    def mean(key: str, subset: list[dict[str, Any]] = rows) -> float | None:
        return poi_mean(r[key] for r in subset)

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
                       per_scene: bool = False, per_poi: bool = True, quiet: bool = False,
                       protocol: str = DEFAULT) -> dict[str, Any]:
    """Aggregate every ``result.json`` under ``result_dir``, print the tables (unless ``quiet``) and write
    ``poi_goal_analysis.json`` (or ``output_path``); return the summary.

    ``collision_threshold`` is recorded for compatibility and unused. ``per_scene`` adds a per-scene breakdown
    under ``"scenes"``; ``per_poi`` prints the per-POI table (``overall.poi_stats`` is always written). Every
    group (and ``overall``) records ``arrive_threshold``; ``exclude_scenes`` None excludes nothing, or under
    ``protocol="abot"`` ``park3`` outdoors, as ABot-Navigation does.
    """
    check_mode(mode)
    if not max_distance > min_distance:
        raise MazeConfigError(f"must exceed min_distance ({min_distance}), got {max_distance}",
                              parameter="max_distance")
    default_excluded = load(nav_rules(protocol).summary).outdoor_excluded if mode == "outdoor" else ()
    excluded = set(default_excluded) if exclude_scenes is None else set(exclude_scenes)
    results = [r for r in load_all_results(result_dir) if str(r.get("episode_id")) not in excluded]
    rows = [extract_metrics(r, arrive_threshold, protocol) for r in results]
    summary: dict[str, Any] = {
        "task_type": "poi_goal", "result_dir": str(Path(result_dir).resolve()), "mode": mode,
        "arrive_threshold": arrive_threshold, "collision_threshold": collision_threshold,
        "excluded_scenes": sorted(excluded), "total_count": len(rows),
    }
    summary.update(grouped_sections(rows, mode, min_distance, max_distance, per_scene,
                                    lambda subset: {**aggregate(subset, protocol),
                                                    "arrive_threshold": arrive_threshold}))
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


def run_summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the ``eval_summary.json`` of a POI run over ``results`` (``result.json`` records), with the fields of
    ABot-Navigation's POI evaluator: counts and rates, mean ``spl``, ``status_distribution``, mean steps and
    lengths, mean initial distance, mean min/final distances over the finite ones (0.0 when none), ``collision``
    (over the tasks run with collision checks) and ``poi_stats`` {total, success, success_rate, avg_spl}."""
    if not results:
        return {"task_type": "poi_goal", "total_tasks": 0}
    total = len(results)
    metrics = [r.get("metrics") or {} for r in results]

    def mean(values: list[float]) -> float:
        return float(np.mean(values)) if values else 0.0

    def finite(values: Iterable[Any]) -> list[float]:
        return [v for v in (number(x, math.inf) for x in values) if math.isfinite(v)]

    checked = [m for m in metrics if m.get("collision_check_enabled")]
    if checked:
        hit = sum(1 for m in checked if m.get("has_collision"))
        steps = sum(int(number(m.get("collision_count"))) for m in checked)
        collision = {"collision_check_enabled": True, "tasks_evaluated_for_collision": len(checked),
                     "tasks_with_any_collision": hit, "collision_task_rate": hit / len(checked),
                     "total_collision_steps": steps, "avg_collision_steps_per_task": steps / len(checked),
                     "avg_collision_step_rate": mean([number(m.get("collision_rate")) for m in checked]),
                     "collision_terminated_count": sum(1 for m in checked if m.get("collision_terminated"))}
    else:
        collision = {"collision_check_enabled": False}
    by_poi = grouped(results, lambda r: str((r.get("metrics") or {}).get("poi_name", r.get("target_label", "unknown"))))
    poi_stats = {}
    for name, poi_results in by_poi.items():
        wins = sum(1 for r in poi_results if r.get("success"))
        poi_stats[name] = {"total": len(poi_results), "success": wins, "success_rate": wins / len(poi_results),
                           "avg_spl": mean([number(r.get("spl")) for r in poi_results])}
    successes = sum(1 for r in results if r.get("success"))
    oracle = sum(1 for r in results if r.get("oracle_success"))
    return {
        "task_type": "poi_goal", "total_tasks": total, "success_count": successes, "oracle_success_count": oracle,
        "success_rate": successes / total, "oracle_success_rate": oracle / total,
        "spl": mean([number(r.get("spl")) for r in results]),
        "status_distribution": dict(Counter(str(r.get("status", "unknown")) for r in results)),
        "avg_steps": mean([number(r.get("steps")) for r in results]),
        "avg_travel_length": mean([number(r.get("travel_length")) for r in results]),
        "avg_shortest_path_length": mean([number(r.get("shortest_path_length")) for r in results]),
        "avg_initial_distance_to_goal": mean([number(m.get("initial_distance_to_goal")) for m in metrics]),
        "avg_min_distance_to_goal": mean(finite(m.get("min_distance_to_goal", 0.0) for m in metrics)),
        "avg_final_distance_to_goal": mean(finite(r.get("distance_to_goal", 0.0) for r in results)),
        "collision": collision, "poi_stats": poi_stats,
    }
