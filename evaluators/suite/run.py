"""A suite run on the run engine: one work item per player x maze x modality x trial, each appended to
``results.jsonl`` as it finishes; ``suite.json`` (what the run holds) first, ``summary.json`` and the report
(``index.html``) at the end, or when the run stops."""

from __future__ import annotations

import contextlib
import os
import tempfile
from functools import partial
from pathlib import Path
from typing import Any, Iterator

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.jsonfiles import write_json_atomic
from maze_envs.llm import SERVER_NOTE, ChatClient, ModelServer, chat_client, load_policy, local_client
from maze_envs.runs import Run, RunOptions, RunResult, WorkItem
from maze_envs.runs.log import NUMBER, RecordSchema
from maze_envs.tasks.files import media_of

from ..bench.run import trial_seed
from .config import GENERATION_MODALITIES, LOCAL_PREFIX, Player, SuiteConfig, parse_player
from .mazes import SuiteMaze, build_mazes, write_oracle_generations, write_scenes, write_tasks
from .summary import summarise
from .work import Context, SuiteItem, Toolkit, check_policy_players, head, protocol_sha, run_item

LOG_NAME = "results.jsonl"
SUITE_NAME = "suite.json"
SUMMARY_NAME = "summary.json"
REPORT_NAME = "index.html"


def generation_folders(root: str | os.PathLike | None) -> dict[str, Path]:
    """Return the generation models of ``root`` by name: each sub-folder holding images or videos (or ``root``
    itself, named after it, when it holds them directly). Raises ``MazeConfigError`` about ``generations`` when
    ``root`` is missing or holds no media."""
    if root is None:
        return {}
    root = Path(root)
    if not root.is_dir():
        raise MazeConfigError(f"{root}: not a directory", parameter="generations")

    def has_media(folder: Path) -> bool:
        return any(p.is_file() and media_of(p) for p in folder.iterdir())
    found = {p.name: p for p in sorted(root.iterdir()) if p.is_dir() and has_media(p)}
    if not found and has_media(root):
        found = {root.name: root}
    if not found:
        raise MazeConfigError(f"{root}: holds no generated images or videos (one sub-folder per model)",
                              parameter="generations")
    return found


def players(config: SuiteConfig, folders: dict[str, Path]) -> list[Player]:
    """Return the players of the run: the ``models`` (with generations where a folder has their name), then
    the generation models of the other folders."""
    named = [parse_player(m, generations=m in folders) for m in config.models]
    names = {p.name for p in named}
    return named + [Player(name, "generation", generations=True) for name in folders if name not in names]


def _media(folder: Path | None) -> set[str]:
    if folder is None:
        return set()
    kinds = {media_of(p) for p in folder.iterdir() if p.is_file()}
    return {f"gen-{k}" for k in kinds if k}


def suite_items(config: SuiteConfig, cast: list[Player], mazes: list[SuiteMaze],
                folders: dict[str, Path]) -> list[SuiteItem]:
    """Return every item of the run in player, maze, modality, trial order: each player's modalities among
    those chosen (a generation modality only where the player's folder holds that medium)."""
    chosen = config.chosen
    out = []
    for player in cast:
        media = _media(folders.get(player.name))
        wanted = [m for m in player.plays() if m in chosen and (m not in GENERATION_MODALITIES or m in media)]
        for maze in mazes:
            for modality in wanted:
                out += [SuiteItem(player, maze, modality, k,
                                  trial_seed(config.seed, maze.size, maze.bench.name, k))
                        for k in range(config.trials)]
    return out


@contextlib.contextmanager
def chat_clients(config: SuiteConfig, cast: list[Player]) -> Iterator[tuple[dict[str, ChatClient], ChatClient | None,
                                                                         list[str]]]:
    """Yield a chat client per chat player, the judge's client (or None) and the local policies served: one
    local model server per ``local:`` policy (and the oracle's) runs in this process meanwhile."""
    servers: dict[str, ModelServer] = {}

    def client_of(player: Player) -> ChatClient:
        if player.policy is None:
            return chat_client(config.model_config, model=player.name, base_url=config.base_url,
                               provider=config.provider, api_key_env=config.api_key_env, timeout=config.timeout)
        if player.policy not in servers:
            policy = load_policy(player.policy, flag="models")
            servers[player.policy] = ModelServer(policy, model_name=player.name, policy_name=player.policy,
                                                 keep_requests=False)
            servers[player.policy].start()
        return local_client(servers[player.policy].base_url, player.name, timeout=config.timeout)
    try:
        clients = {p.name: client_of(p) for p in cast if p.chat}
        judge = None
        if config.judge_model:
            spec = parse_player(config.judge_model)
            if spec.kind != "chat":
                raise MazeConfigError(f"{config.judge_model!r} is not a chat model (use a model name or "
                                      f"{LOCAL_PREFIX}POLICY)", parameter="judge_model")
            judge = client_of(spec)
        yield clients, judge, sorted(servers)
    finally:
        for server in servers.values():
            server.stop()


def _manifest(config: SuiteConfig, cast: list[Player], mazes: list[SuiteMaze], items: list[SuiteItem],
              local: list[str], options: RunOptions) -> dict[str, Any]:
    return {
        "settings": config.to_dict(), "protocol": {m: protocol_sha(config, m) for m in config.chosen},
        "players": {p.name: {"kind": p.kind, "local_policy": p.policy, "modalities": sorted(
            {i.modality for i in items if i.player.name == p.name}, key=list(config.chosen).index)} for p in cast},
        "mazes": [{"key": m.key, "size": m.size, "file": m.bench.file, "task": m.stem, "page": f"pages/{m.page}",
                   "cells": [m.maze.rows, m.maze.cols], "shortest_path_moves": len(m.bench.shortest_path) - 1}
                  for m in mazes],
        "items": len(items), "local_policies": local, **({"note": SERVER_NOTE} if local else {}),
        "backend": {"name": options.backend, "workers": options.workers},
        "files": {"results": LOG_NAME, "summary": SUMMARY_NAME, "report": REPORT_NAME, "tasks": "tasks/",
                  "mazes": "mazes/", "scenes": "nav/scenes/", "generations": "generations/"},
    }


SUITE_RECORD = RecordSchema(
    ok={"player": str, "kind": str, "modality": str, "size": str, "maze": str, "trial": int, "seed": int,
        "protocol": str, "success": bool, "outcome": str, "path": list, "tokens": int, "cost_usd": NUMBER,
        "latency_s": NUMBER, "api_calls": int, "usage": dict, "detail": dict},
    error={"player": str, "kind": str, "modality": str, "size": str, "maze": str, "trial": int, "seed": int,
           "protocol": str})


def run_suite(config: SuiteConfig, toolkit: Toolkit, *, options: RunOptions = RunOptions()) -> RunResult:
    """Run every item of ``config`` with the agents of ``toolkit``; return the run.

    The output directory's lock is taken before anything is written there (a second run into a live run's
    directory changes nothing), and a directory that holds files needs ``options.resume`` or
    ``options.overwrite``. With ``options.resume`` the items already in ``results.jsonl`` with the same settings
    (and every field a record has) are kept and not run again. The trained-policy player is first built on one env
    of each maze (``check_policy_players``), so a policy file that cannot play them stops the run before the output
    folder is touched. A failed item is an ``error`` record that counts as unsolved; a fatal error (rejected key,
    unreachable endpoint) or Ctrl-C stops the run after writing the summary and report, and propagates.
    """
    from .report import write_site

    config = config.validated()
    folders = generation_folders(config.generations)
    cast = players(config, folders)
    chosen = config.chosen
    shas = {m: protocol_sha(config, m) for m in chosen}

    def accept(record: dict[str, Any]) -> bool:
        return record.get("protocol") == shas.get(record.get("modality"))

    if any(p.kind == "policy" for p in cast):
        with tempfile.TemporaryDirectory(prefix="maze-envs-suite-") as scratch:  # nothing reaches the output folder
            mazes = build_mazes(config.sizes, config.count, config.seed, config.algorithm, Path(scratch))
            check_policy_players(config, toolkit, suite_items(config, cast, mazes, {}))
    with Run(config.output_dir, None, options, log_name=LOG_NAME, accept=accept, schema=SUITE_RECORD) as run:
        out = run.directory
        mazes = build_mazes(config.sizes, config.count, config.seed, config.algorithm, out)
        write_tasks(mazes, out / "tasks")
        if any(p.kind == "oracle" for p in cast) and set(GENERATION_MODALITIES) & set(chosen):
            folders["oracle"] = write_oracle_generations(mazes, out / "generations" / "oracle",
                                                         video="gen-video" in chosen)
        items = suite_items(config, cast, mazes, folders)
        if any(i.modality == "nav3d" for i in items):
            write_scenes(mazes, out / "nav" / "scenes", config.seed)
        with chat_clients(config, cast) as (clients, judge, local):
            manifest = _manifest(config, cast, mazes, items, local, options)
            write_json_atomic(out / SUITE_NAME, manifest, indent=2)
            ctx = Context(config, toolkit, clients, str(out), {k: str(v) for k, v in folders.items()}, judge)
            run.begin([WorkItem(i.id, i) for i in items])

            def save(failure: str | None = None) -> dict[str, Any]:
                records = run.records()
                counts = run.counts()
                summary = {"finished": run.finished,
                           "counts": {"items": counts.items, "resumed": counts.resumed, "run_now": counts.completed,
                                      "errors": counts.errors},
                           "wall_time_s": round(run.elapsed_s, 3), "local_policies": local,
                           **({"note": SERVER_NOTE} if local else {}), **summarise(records)}
                if failure:
                    summary["stopped_by"] = failure
                write_json_atomic(out / SUMMARY_NAME, summary, indent=2)
                write_site(out, manifest, summary, records, mazes)
                return summary

            try:
                run.execute(partial(run_item, ctx), kind="io", desc="suite",
                            error_record=lambda item, message: head(config, item.payload))
            except BaseException as exc:
                save(str(exc) or type(exc).__name__)
                raise
            summary = save()
            return RunResult(run.records(), summary, run.log_path, out / SUMMARY_NAME, out / REPORT_NAME)
