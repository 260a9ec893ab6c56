"""What both metrics reports share: loading result files, difficulty groups, finite means and tables."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from maze_envs.core.errors import MazeConfigError, MazeFormatError
from maze_envs.core.jsonfiles import read_json

INDOOR_EASY = ("0802_840243", "0803_840265", "0821_841631", "0822_841630", "0827_841619", "0841_841759",
               "0845_841765", "0854_841775")
INDOOR_HARD = ("0813_841249", "0814_841252", "0832_840249", "0833_840508", "0837_841153", "0843_841761",
               "0847_841768", "0861_841783")
OUTDOOR_EXCLUDED = ("park3",)
MODES = ("outdoor", "indoor")


def load_all_results(result_dir: str | os.PathLike) -> list[dict[str, Any]]:
    """Return every readable ``result.json`` under ``result_dir`` (recursively, sorted by path) that names its
    episode and task; files still being written or malformed are skipped, so this runs during an evaluation.

    Raises ``MazeConfigError`` naming ``result_dir`` when it is not a directory.
    """
    root = Path(result_dir)
    if not root.is_dir():
        raise MazeConfigError(f"{root} is not a directory", parameter="result_dir")
    results = []
    for path in sorted(root.rglob("result.json")):
        try:
            doc = read_json(path)
        except MazeFormatError:
            continue
        if isinstance(doc, dict) and doc.get("episode_id") and doc.get("task_id"):
            results.append(doc)
    return results


def number(value: Any, missing: float = 0.0) -> float:
    """Return ``value`` as a float, or ``missing`` when it is absent, null or not a number (pass ``math.inf``
    for distances: the evaluator writes an unknown distance as null)."""
    if value is None or isinstance(value, bool):
        return missing
    try:
        return float(value)
    except (TypeError, ValueError):
        return missing


def total(values: Iterable[float], numpy: bool = False) -> float:
    """Return the sum of ``values``: Python's ``sum``, or ``np.sum`` (pairwise) when ``numpy``, as
    ABot-Navigation adds."""
    values = list(values)
    return float(np.sum(values)) if numpy else sum(values)


def finite_mean(values: Iterable[float], numpy: bool = False) -> float | None:
    """Return the mean of the finite ``values`` (``sum`` / ``len``, or ``np.mean`` when ``numpy``), or None when
    there are none."""
    kept = [v for v in values if math.isfinite(v)]
    if not kept:
        return None
    return float(np.mean(kept)) if numpy else sum(kept) / len(kept)


def difficulty(result: dict[str, Any], mode: str, min_distance: float, max_distance: float) -> str:
    """Return the task's group: outdoor ``short``/``medium``/``long``/``out_of_range`` by shortest path
    ([min, min+s), [min+s, min+2s), [min+2s, 1.5*max] with s = (max - min)/3); indoor ``easy``/``hard``/``unknown``
    by scene."""
    if mode == "indoor":
        episode = str(result.get("episode_id"))
        return "easy" if episode in INDOOR_EASY else "hard" if episode in INDOOR_HARD else "unknown"
    step = (max_distance - min_distance) / 3
    sp = number(result.get("shortest_path_length"))
    if min_distance <= sp < min_distance + step:
        return "short"
    if min_distance + step <= sp < min_distance + 2 * step:
        return "medium"
    if min_distance + 2 * step <= sp <= max_distance * 1.5:
        return "long"
    return "out_of_range"


def group_names(mode: str) -> tuple[str, ...]:
    """Return the groups of ``mode`` in report order."""
    return ("easy", "hard", "unknown") if mode == "indoor" else ("short", "medium", "long", "out_of_range")


def check_mode(mode: str) -> None:
    """Raise ``MazeConfigError`` naming ``mode`` unless it is outdoor or indoor."""
    if mode not in MODES:
        raise MazeConfigError(f"must be outdoor or indoor, got {mode!r}", parameter="mode")


def grouped(rows: list[dict[str, Any]], key: Callable[[dict[str, Any]], str]) -> dict[str, list[dict[str, Any]]]:
    """Return ``rows`` grouped by ``key(row)``, in first-seen order."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(key(row), []).append(row)
    return groups


PERCENT_KEYS = frozenset({"success_rate", "oracle_success_rate", "sr_new", "spl_new", "tcr_new", "dcr_new", "spl",
                          "avg_spl", "collision_task_rate"})


def grouped_sections(rows: list[dict[str, Any]], mode: str, min_distance: float, max_distance: float,
                     per_scene: bool, aggregate: Callable[[list[dict[str, Any]]], dict[str, Any]]) -> dict[str, Any]:
    """Return the summary sections both tasks share: ``distance_config`` (outdoor), ``overall``, ``groups`` by
    difficulty and, with ``per_scene``, ``scenes``, each made by ``aggregate``."""
    by_group = grouped(rows, lambda row: difficulty(row, mode, min_distance, max_distance))
    sections: dict[str, Any] = {}
    if mode == "outdoor":
        sections["distance_config"] = {"min_distance": min_distance, "max_distance": max_distance,
                                       "step": (max_distance - min_distance) / 3}
    sections["overall"] = aggregate(rows)
    sections["groups"] = {name: aggregate(by_group.get(name, [])) for name in group_names(mode)}
    if per_scene:
        sections["scenes"] = {scene: aggregate(scene_rows)
                              for scene, scene_rows in sorted(grouped(rows, lambda r: r["episode_id"]).items())}
    return sections


COLUMN_MEANINGS = {
    "count": "tasks in the row",
    "success_rate": "tasks that arrived (declared within the arrival threshold) / tasks",
    "sr_new": "tasks that arrived with fewer path collisions than the collision threshold / tasks",
    "spl_new": "mean over tasks of sr_new x shortest / max(travelled, shortest) (path lengths in metres)",
    "tcr_new": "mean over tasks of sr_new x (steps - colliding steps) / steps: the collision-free share of steps",
    "dcr_new": "mean over tasks of sr_new x (metres travelled - metres in collision) / metres travelled",
    "avg_steps": "mean steps (agent calls) per task",
    "spl": "mean over tasks of success x effective shortest / max(travelled, effective shortest), the shortest "
           "path less the arrival radius",
    "collision_task_rate": "tasks with at least one collision / tasks run with collision checks",
    "total": "tasks asking for the POI", "success": "of them, tasks that arrived",
    "avg_spl": "mean SPL over the POI's tasks", "collision_count": "of them, tasks with a collision",
}


def format_table(title: str, columns: list[str], rows: list[tuple[str, dict[str, Any]]]) -> str:
    """Return a plain-text table: one row per (label, values), rates as percentages, '-' for missing values, and
    beneath it a legend line per column (``COLUMN_MEANINGS``; '-': no task had a value)."""
    lines = [title, f"{'':<16}" + "".join(f"{c[:11]:>12}" for c in columns)]
    for label, values in rows:
        cells = []
        for c in columns:
            v = values.get(c)
            if v is None or isinstance(v, (dict, list)):
                cells.append(f"{'-':>12}")
            elif c in PERCENT_KEYS:
                cells.append(f"{100 * v:>11.1f}%")
            elif isinstance(v, int) and not isinstance(v, bool):
                cells.append(f"{v:>12d}")
            else:
                cells.append(f"{v:>12.2f}")
        lines.append(f"{label[:16]:<16}" + "".join(cells))
    lines += [f"  {c}: {COLUMN_MEANINGS[c]}" for c in columns if c in COLUMN_MEANINGS]
    return "\n".join(lines)
