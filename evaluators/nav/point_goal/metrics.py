"""Point-goal metrics: ``analyze_and_report`` aggregates every ``result.json`` of a run into ``eval_summary.json``.

Per task everything is recomputed from the raw fields: ``sr_new`` = success and fewer path collisions than
``collision_threshold``; ``spl_new`` = sr_new * shortest / max(travel, shortest); ``tcr_new`` = the share of
steps without a collision and ``dcr_new`` the share of distance outside obstacles, both when sr_new. Summaries
are per-task means (distances over finite values only), plus ``global_collision_path_ratio`` (a ratio of
sums). The protocol's summary reducer (``NavRules.summary``) reads the distances and reduces: under ``abot`` the
means are ABot-Navigation's, over every task, so an error task's infinite distance makes the distance averages
infinite (written ``Infinity``, as ABot's ``json.dump`` does) and its missing initial distance counts as 0.0.
``maze-envs nav-metrics --task point`` is the command line.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.jsonfiles import write_json_atomic
from maze_envs.envs.nav.config import nav_rules
from maze_envs.protocols import DEFAULT, load

from ..aggregate import (
    OUTDOOR_EXCLUDED,
    check_mode,
    format_table,
    group_names,
    grouped_sections,
    load_all_results,
    number,
)

DEFAULT_COLLISION_THRESHOLD = {"outdoor": 3, "indoor": 1}
TABLE_COLUMNS = ["count", "success_rate", "sr_new", "spl_new", "tcr_new", "dcr_new", "avg_steps"]


def extract_metrics(result: dict[str, Any], collision_threshold: int, protocol: str = DEFAULT) -> dict[str, Any]:
    """Return one task's metrics recomputed from its ``result.json`` fields, distances read by the protocol's
    summary reducer (``abot``: a missing distance is 0.0, as in ABot-Navigation, instead of unknown)."""
    m = result.get("metrics") or {}
    success = bool(result.get("success"))
    steps = int(number(result.get("steps")))
    travel = number(result.get("travel_length"))
    sp = number(result.get("shortest_path_length"))
    path_collisions = int(number(m.get("path_collision_count")))
    total = number(m.get("total_distance"))
    coll_len = number(m.get("collision_path_length"))
    sr_new = success and path_collisions < collision_threshold
    distance = load(nav_rules(protocol).summary).point_distance
    final = distance(result.get("distance_to_goal"))
    return {
        "episode_id": str(result.get("episode_id")), "task_id": str(result.get("task_id")),
        "status": result.get("status"), "success": float(success),
        "oracle_success": float(bool(result.get("oracle_success", success))),
        "sr_new": float(sr_new), "spl_new": sp / max(travel, sp) if sr_new and sp > 0 else 0.0,
        "tcr_new": (steps - path_collisions) / steps if sr_new and steps > 0 else 0.0,
        "dcr_new": (total - coll_len) / total if sr_new and total > 0 else 0.0,
        "steps": steps, "travel_length": travel, "shortest_path_length": sp,
        "initial_distance_to_goal": distance(m.get("initial_distance_to_goal")),
        "min_distance_to_goal": distance(m.get("min_distance_to_goal", result.get("distance_to_goal"))),
        "final_distance_to_goal": final, "path_collision_count": path_collisions,
        "collision_path_length": coll_len, "total_distance": total,
        "is_path_collided": float(bool(m.get("is_path_collided", path_collisions > 0))),
    }


def aggregate(rows: list[dict[str, Any]], protocol: str = DEFAULT) -> dict[str, Any]:
    """Return the summary of per-task metrics ``rows`` (``{"count": 0}`` when empty), reduced by the protocol's
    summary reducer: means over the finite values, or under ``abot`` over every value (``np.mean``, inf included),
    sums with numpy."""
    if not rows:
        return {"count": 0}
    reducer = load(nav_rules(protocol).summary)

    def mean(key: str) -> float | None:
        return reducer.point_mean(r[key] for r in rows)

    distance = reducer.total(r["total_distance"] for r in rows)
    collided = reducer.total(r["collision_path_length"] for r in rows)
    return {
        "count": len(rows), "success_rate": mean("success"), "oracle_success_rate": mean("oracle_success"),
        "sr_new": mean("sr_new"), "spl_new": mean("spl_new"), "tcr_new": mean("tcr_new"), "dcr_new": mean("dcr_new"),
        "avg_steps": mean("steps"), "avg_travel_length": mean("travel_length"),
        "avg_shortest_path_length": mean("shortest_path_length"),
        "avg_initial_distance": mean("initial_distance_to_goal"), "avg_min_distance": mean("min_distance_to_goal"),
        "avg_final_distance": mean("final_distance_to_goal"),
        "avg_path_collisions_per_task": mean("path_collision_count"),
        "avg_collision_meters_per_task": mean("collision_path_length"),
        "path_collision_task_rate": mean("is_path_collided"),
        "global_collision_path_ratio": collided / distance if distance > 0 else 0.0,
    }


def analyze_and_report(result_dir: str | os.PathLike, mode: str = "outdoor", collision_threshold: int | None = None,
                       min_distance: float = 5.0, max_distance: float = 50.0,
                       exclude_scenes: Iterable[str] | None = None, output_path: str | os.PathLike | None = None,
                       per_scene: bool = False, quiet: bool = False, protocol: str = DEFAULT) -> dict[str, Any]:
    """Aggregate every ``result.json`` under ``result_dir``, print the tables (unless ``quiet``) and write
    ``eval_summary.json`` (or ``output_path``); return the summary.

    ``collision_threshold`` None follows the mode (outdoor 3, indoor 1); ``exclude_scenes`` None excludes
    ``park3`` outdoors. ``per_scene`` adds (and prints) a per-scene breakdown under ``"scenes"``; ``protocol``
    chooses the averages (``abot``: ABot-Navigation's, over every task).
    """
    check_mode(mode)
    if not max_distance > min_distance:
        raise MazeConfigError(f"must exceed min_distance ({min_distance}), got {max_distance}",
                              parameter="max_distance")
    threshold = DEFAULT_COLLISION_THRESHOLD[mode] if collision_threshold is None else int(collision_threshold)
    excluded = set(OUTDOOR_EXCLUDED if mode == "outdoor" else ()) if exclude_scenes is None else set(exclude_scenes)
    results = [r for r in load_all_results(result_dir) if str(r.get("episode_id")) not in excluded]
    rows = [extract_metrics(r, threshold, protocol) for r in results]
    summary: dict[str, Any] = {
        "task_type": "point_goal", "result_dir": str(Path(result_dir).resolve()), "mode": mode,
        "collision_threshold": threshold, "excluded_scenes": sorted(excluded), "total_count": len(rows),
        "status_distribution": dict(Counter(str(r["status"]) for r in rows)),
    }
    summary.update(grouped_sections(rows, mode, min_distance, max_distance, per_scene,
                                    lambda subset: aggregate(subset, protocol)))
    write_json_atomic(output_path or Path(result_dir) / "eval_summary.json", summary, indent=2)
    if not quiet:
        table_rows = [(name, summary["groups"][name]) for name in group_names(mode)] + [("overall", summary["overall"])]
        print(format_table(f"Point-goal ({mode}, collision threshold {threshold}): {len(rows)} tasks",
                           TABLE_COLUMNS, table_rows))
        if per_scene:
            print(format_table("Per scene", TABLE_COLUMNS, list(summary["scenes"].items())))
    return summary
