"""A benchmark run on the run engine: one work item per model x size x maze x trial, each with a stable id and
its own seed, appended to ``results.jsonl`` as it finishes; ``summary.json`` and ``report.html`` at the end (or
when the run stops). Workers share nothing mutable: the settings are frozen, each trial makes its own
presentation, env and agent, and the chat clients are thread-safe."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any, Mapping

from maze_envs import protocols
from maze_envs.core.jsonfiles import write_json_atomic
from maze_envs.llm import SERVER_NOTE, ChatClient, sum_usage
from maze_envs.runs import Run, RunOptions, RunResult, WorkItem
from maze_envs.runs.engine import entries_holding
from maze_envs.runs.log import NUMBER, OPTIONAL_NUMBER, Check, RecordSchema

from .config import BenchConfig
from .episode import MODE_ENVS
from .mazes import BenchMaze
from .players import Players, check_players, require_players
from .summary import COUNTERS, summarise
from .trials import BenchTrial, Trial, bench_trials, play, record_head, shared_settings, trial_seed

__all__ = ["Trial", "run_bench", "run_trial", "shared_settings", "trial_seed"]

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


def run_trial(clients: Mapping[str, ChatClient], config: BenchConfig, trial: Trial,
              players: Players | None = None) -> dict[str, Any]:
    """Return the record of one trial (its fields, then what the protocol's trial measured, ``BenchRules.trial``),
    played through the trial API (``trials.play``) with its model's client; ``players`` build the agents of the
    ai and partial-observe modes. Raises the client's errors."""
    return play(BenchTrial(config, trial), clients.get(trial.model), players)


def _error_fields(config: BenchConfig):
    def fields(item: WorkItem, message: str) -> dict[str, Any]:
        return record_head(config, item.payload)
    return fields


def _accept(config: BenchConfig):
    wanted = shared_settings(config)

    def accept(record: dict[str, Any]) -> bool:
        return {key: _current(key, record.get(key)) for key in wanted} == wanted
    return accept


def _current(key: str, value: Any) -> Any:
    """Return a stored record field as it is written now: records written before the budget's rename hold
    ``budgets.max_steps`` for ``max_calls``."""
    if key == "budgets" and isinstance(value, dict) and "max_steps" in value:
        value = {"max_calls": value["max_steps"], **{k: v for k, v in value.items() if k != "max_steps"}}
    return value


def run_bench(config: BenchConfig, mazes: Mapping[str, list[BenchMaze]], clients: Mapping[str, ChatClient], *,
              options: RunOptions = RunOptions(), players: Players | None = None) -> RunResult:
    """Run every trial of ``config`` over ``mazes`` with one client per model; return the run. The ai and
    partial-observe modes need ``players``, which build each trial's agent (``agents.players.PLAYERS``).

    With ``options.resume`` trials already in ``results.jsonl`` (of the same mode, scoring and anti-cheat
    setting) are kept and not run again; an output directory that holds files (besides the mazes kept in it)
    needs ``options.resume`` or ``options.overwrite``. A failed trial is an ``error`` record that scores zero; a
    rejected key or an unreachable endpoint stops the run after writing the summary and report, and is raised.
    """
    from .report import write_report

    check_players(config.models, config.mode)
    rules = protocols.protocol(config.protocol, "bench").bench
    if config.mode in MODE_ENVS:
        require_players(players, config.mode)
    out = Path(config.output_dir)
    summary_path, report_path = out / SUMMARY_NAME, out / REPORT_NAME
    items = [WorkItem(t.id, t.item) for t in bench_trials(config, mazes)]
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
            if rules.summary is not None:
                summary[config.protocol] = protocols.load(rules.summary)(config.mode, records)
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
        return RunResult(run.records(), summary, run.log_path, summary_path, report_path)
