"""The benchmark summary: per model x size, the mean, standard deviation and 95% interval of every score and
counter over every trial (failed trials count as zero), the success rate and (tools mode) the rate of trials that
ended in a loop (Wilson intervals) and cross-presentation consistency."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable

from maze_envs.core.stats import summarise as summarise_values

from .anticheat import consistency

SCORE_NAMES = ("total", "S", "Q", "O", "P", "A")
ZEROS_INCLUDED = "mean over every trial, zeros and failed trials included (this benchmark's rule)"
COUNTERS = ("api_calls", "cell_moves", "wall_collisions", "invalid_outputs", "exploration_rate", "latency_s",
            "function_calls", "invalid_calls", "path_efficiency", "revisits_per_cell", "max_cell_visits",
            "longest_revisit_run")
RATES = ("success", "ended_in_loop")  # yes/no per trial, as percentages with Wilson intervals


def _value(record: dict[str, Any], name: str) -> float | None:
    if record.get("status") != "ok":
        return 0.0 if name in SCORE_NAMES or name == "success" else None
    if name in SCORE_NAMES:
        return record["scores"].get(name)
    if name == "success":
        return 100.0 if record.get("success") else 0.0
    if name in RATES:
        return None if record.get(name) is None else 100.0 * bool(record[name])
    if name == "tokens":
        return record.get("usage", {}).get("total_tokens")
    if name == "cost_usd":
        return record.get("usage", {}).get("cost_usd")
    return record.get(name)


def estimate(values: Iterable[float], *, percent_rate: bool = False) -> dict[str, Any]:
    """Return ``{n, mean, std, ci95}`` of ``values`` as the summary records them: every value counts (zeros
    included), at full precision (reports round for display); ``mean`` and ``std`` are None without values,
    ``ci95`` below two. The 95% interval stays in the values' range: with ``percent_rate`` the values are 0 or
    100 (a success rate in percent) and get Wilson's interval, otherwise a seeded bootstrap
    (``maze_envs.core.stats``)."""
    values = list(values)
    s = summarise_values([v / 100 for v in values], interval="wilson").scaled(100) if percent_rate else \
        summarise_values(values)
    if s.count == 0:
        return {"n": 0, "mean": None, "std": None, "ci95": None}
    ci95 = [s.low, s.high] if s.count > 1 else None
    return {"n": s.count, "mean": s.mean, "std": s.std, "ci95": ci95}


def summarise_group(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the statistics of one model x size group of trial records."""
    out: dict[str, Any] = {"trials": len(records), "errors": sum(r.get("status") != "ok" for r in records),
                           "rule": ZEROS_INCLUDED}
    for name in (*RATES, *SCORE_NAMES, *COUNTERS, "tokens", "cost_usd"):
        values = [v for v in (_value(r, name) for r in records) if v is not None]
        if values or name in SCORE_NAMES or name == "success":
            out[name] = estimate(values, percent_rate=name in RATES)
    by_maze: dict[str, list] = defaultdict(list)
    for r in records:
        if r.get("status") == "ok":
            by_maze[r["maze"]].append(r.get("published_path") or None)
    agreement = [c for c in (consistency(paths) for paths in by_maze.values()) if c is not None]
    out["consistency"] = round(sum(agreement) / len(agreement), 4) if agreement else None
    return out


def summarise(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Return ``{model: {size: statistics}}`` over ``records`` (each carries ``model`` and ``size``)."""
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for r in records:
        groups[(r["model"], r["size"])].append(r)
    out: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for (model, size), group in groups.items():
        out[model][size] = summarise_group(group)
    return dict(out)
