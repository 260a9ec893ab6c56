"""The suite summary: success per player x modality (overall and per size) with 95% intervals, tokens per solve,
the cross-modal matrix (solved or not, per player x maze x modality) and the counts of each failure pattern,
and the pixel evaluator's agreement with the judge. A failed item counts as unsolved."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any, Iterable

from maze_envs.core.stats import summarise as summarise_values
from maze_envs.llm import sum_usage

from ..judge.agreement import confusion
from .config import MODALITIES


@dataclass(frozen=True)
class Pattern:
    """A cross-modal pattern: a maze ``solved`` in one modality and not in ``failed``; ``means`` says what it
    points at."""

    name: str
    solved: str
    failed: str
    means: str


PATTERNS = (
    Pattern("perception gap", "text2d", "image2d", "plans from the text grid but not from the picture: reading "
            "the image fails"),
    Pattern("text gap", "image2d", "text2d", "solves from the picture but not from the text grid"),
    Pattern("execution gap", "text2d", "ai-text", "writes the whole path at once but fails to walk it move by move"),
    Pattern("visual execution gap", "image2d", "ai-image", "solves the picture one-shot but not move by move"),
    Pattern("partial-view gap", "ai-text", "partial-text", "walks the full map but not under partial view: "
            "exploration fails"),
    Pattern("3D gap", "ai-image", "nav3d", "walks the 2D picture but not the same layout in 3D"),
    Pattern("generation gap", "image2d", "gen-image", "plans from the picture but its generated solution image "
            "fails the pixel gates"),
    Pattern("exploration gap", "grid", "grid-partial", "an agent that solves the full map but not the partial "
            "view of the same maze"),
)


def solved(records: Iterable[dict[str, Any]]) -> bool:
    """Return whether a player solved a maze in a modality: at least half of its trials succeeded."""
    outcomes = [bool(r.get("status") == "ok" and r.get("success")) for r in records]
    return bool(outcomes) and 2 * sum(outcomes) >= len(outcomes)


def _rate(records: list[dict[str, Any]]) -> dict[str, Any]:
    outcomes = [1.0 if r.get("status") == "ok" and r.get("success") else 0.0 for r in records]
    stat = summarise_values(outcomes, interval="wilson")
    return {"n": len(records), "solved": int(sum(outcomes)), "errors": sum(r.get("status") != "ok" for r in records),
            "rate": round(stat.mean, 4) if records else None,
            "ci95": [round(stat.low, 4), round(stat.high, 4)] if records else None}


def success_table(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Return ``{player: {modality: {"all": rate, "sizes": {size: rate}}}}``; a rate is ``n``, ``solved``,
    ``errors``, ``rate`` (0..1) and ``ci95`` (the 95% Wilson interval)."""
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for r in records:
        groups[(r["player"], r["modality"])].append(r)
    out: dict[str, dict[str, Any]] = defaultdict(dict)
    for (player, modality), group in groups.items():
        sizes: dict[str, list] = defaultdict(list)
        for r in group:
            sizes[r["size"]].append(r)
        out[player][modality] = {"all": _rate(group), "sizes": {s: _rate(g) for s, g in sizes.items()}}
    return dict(out)


def usage_table(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Return ``{player: {modality: usage}}`` for the players that called a model: total tokens, cost and
    latency, solves, and tokens and cost per solve (None without a solve)."""
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for r in records:
        if r.get("usage"):
            groups[(r["player"], r["modality"])].append(r)
    out: dict[str, dict[str, Any]] = defaultdict(dict)
    for (player, modality), group in groups.items():
        usage = sum_usage(r["usage"] for r in group)
        solves = sum(1 for r in group if r.get("status") == "ok" and r.get("success"))
        out[player][modality] = {
            "items": len(group), "solves": solves, "total_tokens": usage["total_tokens"],
            "prompt_tokens": usage["prompt_tokens"], "completion_tokens": usage["completion_tokens"],
            "requests": usage["requests"], "cost_usd": usage["cost_usd"], "latency_s": usage["latency_s"],
            "tokens_per_solve": round(usage["total_tokens"] / solves, 1) if solves else None,
            "cost_per_solve_usd": round(usage["cost_usd"] / solves, 6) if solves else None}
    return dict(out)


def matrix(records: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, bool]]]:
    """Return the cross-modal matrix ``{player: {maze: {modality: solved}}}`` (only the modalities played)."""
    groups: dict[tuple[str, str, str], list] = defaultdict(list)
    for r in records:
        groups[(r["player"], r["maze"], r["modality"])].append(r)
    out: dict[str, dict[str, dict[str, bool]]] = defaultdict(lambda: defaultdict(dict))
    for (player, maze, modality), group in groups.items():
        out[player][maze][modality] = solved(group)
    return {p: {m: {k: row[k] for k in MODALITIES if k in row} for m, row in mazes.items()} for p, mazes in out.items()}


def patterns(table: dict[str, dict[str, dict[str, bool]]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Return per player the ``count`` and ``mazes`` of each pattern of ``PATTERNS`` (counted where both of its
    modalities were played) plus ``solved everywhere`` and ``solved nowhere`` (over the modalities played)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for player, mazes in table.items():
        found: dict[str, list[str]] = {p.name: [] for p in PATTERNS}
        found.update({"solved everywhere": [], "solved nowhere": []})
        for maze, row in sorted(mazes.items()):
            for p in PATTERNS:
                if row.get(p.solved) is True and row.get(p.failed) is False:
                    found[p.name].append(maze)
            if row and all(row.values()):
                found["solved everywhere"].append(maze)
            if row and not any(row.values()):
                found["solved nowhere"].append(maze)
        out[player] = {name: {"count": len(m), "mazes": m} for name, m in found.items()}
    return out


def agreement(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Return per player the confusion matrix of the pixel verdict against the judge's on its generations
    (rows: pixel 0/1, columns: judge 0/1), its agreement rate and Cohen's kappa; players never judged are left
    out."""
    pairs: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for r in records:
        detail = r.get("detail") or {}
        if r.get("status") == "ok" and detail.get("pixel_pass") is not None and detail.get("judge_pass") is not None:
            pairs[r["player"]].append((int(detail["pixel_pass"]), int(detail["judge_pass"])))
    return {player: confusion(found) for player, found in pairs.items()}


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the summary's result sections: ``success``, ``usage``, ``matrix``, ``patterns``, the pattern
    definitions and the judge ``agreement``."""
    table = matrix(records)
    return {"success": success_table(records), "usage": usage_table(records), "matrix": table,
            "patterns": patterns(table), "pattern_definitions": [asdict(p) for p in PATTERNS],
            "agreement": agreement(records)}
