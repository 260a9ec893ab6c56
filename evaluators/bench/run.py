"""A benchmark run on the run engine: one work item per model x size x maze x trial, each with a stable id and
its own seed, appended to ``results.jsonl`` as it finishes; ``summary.json`` and ``report.html`` at the end (or
when the run stops). Workers share nothing mutable: the settings are frozen, each trial makes its own
presentation, env and agent, and the chat clients are thread-safe."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Mapping

import gymnasium as gym
import numpy as np

from maze_envs.core.jsonfiles import write_json_atomic
from maze_envs.llm import SERVER_NOTE, ChatClient, sum_usage
from maze_envs.runs import Run, RunOptions, WorkItem
from maze_envs.runs.engine import entries_holding
from maze_envs.runs.log import NUMBER, OPTIONAL_NUMBER, Check, RecordSchema

from .anticheat import choose_presentation, identity_presentation
from .config import BenchConfig
from .episode import MODE_ENVS, Budgets
from .interactive import interactive_trial
from .mazes import BenchMaze
from .oneshot import one_shot_trial
from .players import Players, baseline_name, check_players, require_players
from .summary import COUNTERS, summarise

LOG_NAME = "results.jsonl"
SUMMARY_NAME = "summary.json"
REPORT_NAME = "report.html"
_HEAD = {"model": str, "size": str, "maze": str, "trial": int, "seed": int}


def _is_cells(value: Any) -> bool:
    return value is None or (isinstance(value, list) and all(
        isinstance(c, list) and len(c) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in c)
        for c in value))


BENCH_RECORD = RecordSchema(  # what the summary and the report read of a record
    ok={**_HEAD, "scores": {"total": NUMBER}}, error=_HEAD,
    optional={"presentation": dict, "validation": dict, "usage": dict,
              "published_path": Check(_is_cells, "null or a list of [row, col] cells"),
              **{name: OPTIONAL_NUMBER for name in COUNTERS}})


@dataclass(frozen=True)
class Trial:
    """One work item's payload: which ``model`` plays which ``maze`` (of ``size``) for the ``trial``-th time,
    with ``seed`` (the same for every model, so models meet the same presentations)."""

    model: str
    size: str
    maze: BenchMaze
    trial: int
    seed: int

    @property
    def id(self) -> str:
        """Return the stable id of this trial."""
        return f"{self.model}|{self.size}|{self.maze.name}|{self.trial}"


@dataclass(frozen=True)
class BenchRun:
    """A finished (or stopped) run: its records, summary and the files written."""

    records: list[dict[str, Any]]
    summary: dict[str, Any]
    results_path: Path
    summary_path: Path
    report_path: Path


def trial_seed(base: int, size: str, maze: str, trial: int) -> int:
    """Return the seed of a trial: a stable hash of the base seed, size, maze name and trial number."""
    digest = hashlib.sha256(f"{base}|{size}|{maze}|{trial}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def trials(config: BenchConfig, mazes: Mapping[str, list[BenchMaze]]) -> list[Trial]:
    """Return every trial of the run in model, size, maze, trial order."""
    return [Trial(model, size, maze, k, trial_seed(config.seed, size, maze.name, k))
            for model in config.models for size in config.sizes for maze in mazes[size]
            for k in range(config.trials)]


def run_trial(clients: Mapping[str, ChatClient], config: BenchConfig, trial: Trial,
              players: Players | None = None) -> dict[str, Any]:
    """Return the record of one trial (its fields, then what the mode measured); ``players`` build the agents of
    the ai and partial-observe modes. Raises the client's errors."""
    head = _head(config, trial)
    if config.protocol == "mazebench" and baseline_name(trial.model) is None:
        return {**head, **_mazebench_trial(clients[trial.model], config, trial, players)}
    rng = np.random.default_rng(trial.seed)
    presentation = choose_presentation(rng) if config.anti_cheat else identity_presentation()
    if config.mode in MODE_ENVS:
        budgets = Budgets(config.max_steps, config.max_moves or 4 * trial.maze.grid.size,
                          config.max_no_exploration_steps)
        body = interactive_trial(partial(player, require_players(players, config.mode), clients, config, trial),
                                 trial.maze, presentation, mode=config.mode, scoring=config.scoring, budgets=budgets,
                                 visibility=config.visibility, seed=trial.seed, client=clients.get(trial.model))
        return {**head, **body}
    params = {"temperature": config.temperature, "max_tokens": config.max_tokens}
    body = one_shot_trial(clients[trial.model], trial.maze, presentation, mode=config.mode, scoring=config.scoring,
                          params=params, cell_px=config.cell_px)
    return {**head, **body}


def _mazebench_trial(client: ChatClient, config: BenchConfig, trial: Trial,
                     players: Players | None) -> dict[str, Any]:
    """Return the body of a trial under ``--protocol mazebench`` (MazeBench's loop, prompt and verdict, with the
    strict verdict on the same replies, played by ``players``' chat-model agent)."""
    from .mazebench.interactive import mazebench_interactive_trial
    from .mazebench.text2d import mazebench_one_shot_trial

    params = {"temperature": config.temperature, "max_tokens": config.max_tokens}
    if config.mode in MODE_ENVS:
        budgets = Budgets(config.max_steps, config.max_moves or 4 * trial.maze.grid.size,
                          config.max_no_exploration_steps)
        model_players = require_players(players, config.mode)

        def make_agent(env: gym.Env, replay: Any, max_calls: int) -> Any:
            return model_players.model(env, replay, memory=config.memory, explored_map=False, max_calls=max_calls,
                                       params=params)
        return mazebench_interactive_trial(client, trial.maze, mode=config.mode, scoring=config.scoring,
                                           budgets=budgets, memory=config.memory, visibility=config.visibility,
                                           seed=trial.seed, params=params, make_agent=make_agent)
    return mazebench_one_shot_trial(client, trial.maze, scoring=config.scoring, params=params, mode=config.mode,
                                  cell_px=config.cell_px)


def player(players: Players, clients: Mapping[str, ChatClient], config: BenchConfig, trial: Trial,
           env: gym.Env) -> Any:
    """Return a fresh agent of ``trial.model`` for ``env`` from ``players``: its baseline, or the agent of the chat
    model on its client."""
    name = baseline_name(trial.model)
    if name is not None:
        return players.baseline(name, env, trial.seed)
    return players.model(env, clients[trial.model], memory=config.memory, explored_map=config.explored_map,
                       max_calls=config.max_steps,
                       params={"temperature": config.temperature, "max_tokens": config.max_tokens})


def protocol(config: BenchConfig) -> dict[str, Any]:
    """Return the settings a trial's record must share with the run to be kept on resume: mode, scoring,
    anti-cheat and, in the ai/partial-observe modes, the budgets and the agent's memory (and the partial-observe
    visibility and explored map)."""
    out: dict[str, Any] = {"mode": config.mode, "scoring": config.scoring, "anti_cheat": config.anti_cheat}
    if config.protocol != "strict":
        out["protocol"] = config.protocol
    if config.mode in MODE_ENVS:
        out["budgets"] = {"max_steps": config.max_steps, "max_moves": config.max_moves,
                          "max_no_exploration_steps": config.max_no_exploration_steps, "memory": config.memory}
        if config.mode == "partial-observe":
            out["budgets"].update(visibility=config.visibility, explored_map=config.explored_map)
    return out


def _head(config: BenchConfig, trial: Trial) -> dict[str, Any]:
    return {"model": trial.model, "size": trial.size, "maze": trial.maze.name, "trial": trial.trial,
            "seed": trial.seed, **protocol(config)}


def _error_fields(config: BenchConfig):
    def fields(item: WorkItem, message: str) -> dict[str, Any]:
        return _head(config, item.payload)
    return fields


def _accept(config: BenchConfig):
    wanted = protocol(config)

    def accept(record: dict[str, Any]) -> bool:
        return {key: record.get(key) for key in wanted} == wanted
    return accept


def run_bench(config: BenchConfig, mazes: Mapping[str, list[BenchMaze]], clients: Mapping[str, ChatClient], *,
              options: RunOptions = RunOptions(), players: Players | None = None) -> BenchRun:
    """Run every trial of ``config`` over ``mazes`` with one client per model; return the run. The ai and
    partial-observe modes need ``players``, which build each trial's agent (``agents.players.PLAYERS``).

    With ``options.resume`` trials already in ``results.jsonl`` (of the same mode, scoring and anti-cheat
    setting) are kept and not run again; an output directory that holds files (besides the mazes kept in it)
    needs ``options.resume`` or ``options.overwrite``. A failed trial is an ``error`` record that scores zero; a
    rejected key or an unreachable endpoint stops the run after writing the summary and report, and is raised.
    """
    from .report import write_report

    check_players(config.models, config.mode)
    if config.mode in MODE_ENVS:
        require_players(players, config.mode)
    out = Path(config.output_dir)
    summary_path, report_path = out / SUMMARY_NAME, out / REPORT_NAME
    items = [WorkItem(t.id, t) for t in trials(config, mazes)]
    by_name = {(size, m.name): m for size, group in mazes.items() for m in group}
    inputs = entries_holding(out, [config.mazes_dir, config.maze_output_dir])  # mazes kept in the output folder
    with Run(out, items, options, log_name=LOG_NAME, accept=_accept(config), schema=BENCH_RECORD,
             inputs=inputs) as run:
        def save(failure: str | None = None) -> dict[str, Any]:
            records = run.records()
            usage = sum_usage(r["usage"] for r in records if "usage" in r)
            local = usage["local_server"] or any(c.stats.local_server for c in clients.values())
            counts = run.counts()
            summary = {
                "finished": run.finished, "mode": config.mode, "scoring": config.scoring,
                "anti_cheat": config.anti_cheat, "settings": config.to_dict(),
                "endpoints": {m: {"base_url": c.base_url, "provider": c.config.provider} for m, c in clients.items()},
                "local_embedded_server": local, **({"note": SERVER_NOTE} if local else {}),
                "backend": {"name": options.backend, "workers": options.workers},
                "counts": {"trials": counts.items, "resumed": counts.resumed, "run_now": counts.completed,
                           "errors": counts.errors},
                "protocol": config.protocol,
                "models": summarise(records), "usage": usage, "wall_time_s": round(run.elapsed_s, 3),
                "results": str(run.log_path), "report": str(report_path),
            }
            if config.protocol == "mazebench":
                from .mazebench.summary import protocol_summary

                summary["mazebench"] = protocol_summary(config.mode, records)
            if failure:
                summary["stopped_by"] = failure
            write_json_atomic(summary_path, summary, indent=2)
            write_report(report_path, summary, records, by_name)
            return summary

        try:
            run.execute(partial(run_trial, clients, config, players=players), kind="io", desc=f"bench {config.mode}",
                        error_record=_error_fields(config))
        except BaseException as exc:
            save(str(exc) or type(exc).__name__)
            raise
        summary = save()
        return BenchRun(run.records(), summary, run.log_path, summary_path, report_path)
