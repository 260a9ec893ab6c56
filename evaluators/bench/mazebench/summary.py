"""The summaries MazeBench reports, computed from this benchmark's records under ``--protocol mazebench``, each
figure with the rule it follows, beside the strict verdict's figures for the same replies.

- text2d / image2d (``main.py``): the average ``total`` over the trials whose total is above 0 only (a
  trial scoring 0 is left out, so 1 solved maze out of 10 averages the solved score).
- ai / partial-observe (``multi_model_test``): per model ``total_tests``, ``successful_tests``,
  ``success_rate``, ``avg_steps_successful`` (cells moved, mean over successes only), ``avg_api_calls``
  (mean over every trial), ``failed_tests``; per size the same without ``avg_api_calls``; overall
  ``total_successful``, ``overall_success_rate``, ``total_failed``.

Figures keep full precision; reports round them for display.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from ..summary import ZEROS_INCLUDED

ABOVE_ZERO = "mean of total over trials whose total is above 0 (MazeBench's rule)"
SUCCESSES_ONLY = "steps: mean over successful trials only; API calls: mean over every trial (MazeBench's rule)"


def average_above_zero(totals: list[float]) -> dict[str, Any]:
    """Return MazeBench's text2d average: ``{average, counted, trials, rule}`` (average None when none is > 0)."""
    kept = [t for t in totals if t > 0]
    return {"average": sum(kept) / len(kept) if kept else None, "counted": len(kept), "trials": len(totals),
            "rule": ABOVE_ZERO}


def mean_all(values: list[float]) -> dict[str, Any]:
    """Return this benchmark's mean: ``{average, trials, rule}`` over every value, zeros included."""
    return {"average": sum(values) / len(values) if values else None, "trials": len(values), "rule": ZEROS_INCLUDED}


def _grouped(records: list[dict[str, Any]], figure: Callable[[list[dict[str, Any]]], dict[str, Any]]) -> dict:
    by_model: dict[str, list] = defaultdict(list)
    by_size: dict[str, list] = defaultdict(list)
    for r in records:
        by_model[r["model"]].append(r)
        by_size[r["size"]].append(r)
    return {"per_model": {m: figure(rs) for m, rs in by_model.items()},
            "per_size": {s: figure(rs) for s, rs in by_size.items()}, "overall": figure(records)}


def _total(record: dict[str, Any]) -> float:
    return float(record.get("scores", {}).get("total") or 0) if record.get("status", "ok") == "ok" else 0.0


def _strict_total(record: dict[str, Any]) -> float:
    return float(record.get("strict", {}).get("scores", {}).get("total") or 0) if record.get("status", "ok") == "ok" \
        else 0.0


def one_shot_summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Return MazeBench's text2d averages and the strict ones side by side, per model, per size and overall."""
    records = list(records)
    return {
        "mazebench_reported": _grouped(records, lambda rs: average_above_zero([_total(r) for r in rs])),
        "strict": _grouped(records, lambda rs: mean_all([_strict_total(r) for r in rs])),
        "strict_above_zero": _grouped(records, lambda rs: average_above_zero([_strict_total(r) for r in rs])),
    }


def _sandbox_stats(records: list[dict[str, Any]], *, calls: bool, strict: bool = False) -> dict[str, Any]:
    def success(r: dict[str, Any]) -> bool:
        if r.get("status", "ok") != "ok":
            return False
        return bool(r.get("strict", {}).get("success")) if strict else bool(r.get("success"))

    def steps(r: dict[str, Any]) -> float:
        return float(r.get("strict", {}).get("cell_moves", 0)) if strict else float(r.get("cell_moves", 0))

    wins = [r for r in records if success(r)]
    out = {"total_tests": len(records), "successful_tests": len(wins),
           "success_rate": len(wins) / len(records) if records else 0,
           "avg_steps_successful": sum(steps(r) for r in wins) / len(wins) if wins else 0,
           "failed_tests": len(records) - len(wins), "rule": SUCCESSES_ONLY}
    if calls:
        api = [float((r.get("strict", {}) if strict else r).get("api_calls", 0)) for r in records]
        out["avg_api_calls"] = sum(api) / len(api) if api else 0
    return out


def sandbox_summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Return MazeBench's multi-model summary (``model_stats``, ``maze_size_stats``, ``overall_stats``) of the
    MazeBench verdicts and, under ``strict``, of the strict verdicts on the same replies."""
    records = list(records)

    def build(strict: bool) -> dict[str, Any]:
        by_model: dict[str, list] = defaultdict(list)
        by_size: dict[str, list] = defaultdict(list)
        for r in records:
            by_model[r["model"]].append(r)
            by_size[r["size"]].append(r)
        wins = sum(_sandbox_stats([r], calls=False, strict=strict)["successful_tests"] for r in records)
        return {"model_stats": {m: _sandbox_stats(rs, calls=True, strict=strict) for m, rs in by_model.items()},
                "maze_size_stats": {s: _sandbox_stats(rs, calls=False, strict=strict) for s, rs in by_size.items()},
                "overall_stats": {"total_successful": wins,
                                  "overall_success_rate": wins / len(records) if records else 0,
                                  "total_failed": len(records) - wins}}
    return {"mazebench_reported": build(False), "strict": build(True)}


def protocol_summary(mode: str, records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Return the mazebench-protocol summary of ``mode``'s records (see the module docstring)."""
    records = list(records)
    return sandbox_summary(records) if mode in ("ai", "partial-observe") else one_shot_summary(records)
