"""One suite item: a player plays one maze in one modality once, through the library of that modality (the
benchmark's one-shot and interactive trials, nav-eval's evaluation loop, the pixel evaluator and the judge),
and the outcome becomes one record.

Agents come from a ``Toolkit`` the caller hands in (``maze_envs.suite_toolkit`` builds it from ``agents``), so
this package never imports ``agents``. Every record has the same head (player, kind, modality, size, maze, trial, seed,
success, outcome, path, tokens, cost, latency, API calls) and the modality's own record under ``detail``.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from maze_envs.core.jsonfiles import read_json
from maze_envs.llm import ChatClient, sum_usage
from maze_envs.runs import RunOptions
from maze_envs.tasks.files import generated_name, media_of, solution_name, task_of

from ..bench.anticheat import choose_presentation, identity_presentation
from ..bench.episode import Budgets, bench_env
from ..bench.interactive import interactive_trial
from ..bench.oneshot import one_shot_trial, show
from .config import Player, SuiteConfig
from .mazes import GOAL_TASK, SuiteMaze, scene_dir, world_to_grid

INTERACTIVE = {"ai-text": ("ai", False), "ai-image": ("ai", True), "partial-text": ("partial-observe", False),
               "grid": ("ai", False), "grid-partial": ("partial-observe", False)}
NAV_STEP = 2.0  # metres: the longest waypoint of every 3D agent
_NAV_LOCK = threading.Lock()  # nav-eval keeps one loaded world per process: one 3D item at a time


@dataclass(frozen=True)
class Toolkit:
    """The agents the suite plays with, built by the caller (the CLI layer imports ``agents``; this package
    must not).

    ``chat_agent(env, client, images=bool, memory=int, explored_map=bool, max_calls=int, params=dict,
    cell_px=int)`` returns a chat-model agent of the grid env (``images``: the picture instead of text rows);
    ``baseline_agent(name, env, seed)`` the oracle, random, explorer or trained-policy agent of the grid env;
    ``nav_agent(player, client, seed, options)`` the 3D agent: the VLM navigation agent on ``client`` for a chat
    model, else the oracle or random-walk one (``options``: ``max_step``, ``arrive_threshold``)."""

    chat_agent: Callable[..., Any]
    baseline_agent: Callable[[str, Any, int], Any]
    nav_agent: Callable[[Player, ChatClient | None, int, dict], Any]


@dataclass(frozen=True)
class SuiteItem:
    """One work item: ``player`` plays ``maze`` in ``modality`` for the ``trial``-th time with ``seed`` (the
    benchmark's trial seed, the same for every player and modality of a maze and trial, so all meet the same
    presentation, and ``maze-envs bench`` with the same seed shows the same ones)."""

    player: Player
    maze: SuiteMaze
    modality: str
    trial: int
    seed: int

    @property
    def id(self) -> str:
        """Return the stable id ``player|maze key|modality|trial``."""
        return f"{self.player.name}|{self.maze.key}|{self.modality}|{self.trial}"


@dataclass(frozen=True)
class Context:
    """What every item reads: the settings, the toolkit, a chat client per chat player and the judge's (if
    any), the output directory and the generations folder of each generation player."""

    config: SuiteConfig
    toolkit: Toolkit
    clients: Mapping[str, ChatClient]
    out: str
    generations: Mapping[str, str] = field(default_factory=dict)
    judge: ChatClient | None = None


def protocol_sha(config: SuiteConfig, modality: str) -> str:
    """Return the hash of the settings a record of ``modality`` must share with the run to be kept on resume."""
    return hashlib.sha256(json.dumps(config.protocol(modality), sort_keys=True).encode()).hexdigest()[:16]


def head(config: SuiteConfig, item: SuiteItem) -> dict[str, Any]:
    """Return the fields every record of ``item`` starts with."""
    return {"player": item.player.name, "kind": item.player.kind, "modality": item.modality,
            "size": item.maze.size, "maze": item.maze.key, "trial": item.trial, "seed": item.seed,
            "protocol": protocol_sha(config, item.modality)}


def run_item(ctx: Context, item: SuiteItem) -> dict[str, Any]:
    """Return the record of one item (its head, then what the modality measured). Raises what the modality's
    library raises (a chat client's errors included)."""
    began = time.perf_counter()
    if item.modality in ("text2d", "image2d"):
        body = _one_shot(ctx, item)
    elif item.modality in INTERACTIVE:
        body = _interactive(ctx, item)
    elif item.modality == "nav3d":
        body = _nav3d(ctx, item)
    else:
        body = _generation(ctx, item)
    usage = body.get("usage") or {}
    return {**head(ctx.config, item), "success": bool(body["success"]), "outcome": body["outcome"],
            "path": body.get("path") or [], "tokens": int(usage.get("total_tokens", 0)),
            "cost_usd": float(usage.get("cost_usd", 0.0)), "latency_s": round(float(usage.get("latency_s", 0.0)), 4),
            "api_calls": int(usage.get("requests", 0)), "elapsed_s": round(time.perf_counter() - began, 4),
            "usage": usage, "detail": body.get("detail", {})}


def _presentation(ctx: Context, item: SuiteItem):
    if not ctx.config.anti_cheat:
        return identity_presentation()
    return choose_presentation(np.random.default_rng(item.seed))


def _params(config: SuiteConfig) -> dict[str, Any]:
    return {"temperature": config.temperature, "max_tokens": config.max_tokens}


def _one_shot(ctx: Context, item: SuiteItem) -> dict[str, Any]:
    client = ctx.clients[item.player.name]
    record = one_shot_trial(client, item.maze.bench, _presentation(ctx, item), mode=item.modality,
                            scoring=ctx.config.scoring, params=_params(ctx.config), cell_px=ctx.config.cell_px)
    outcome = "solved" if record["success"] else (record["validation"].get("error") or "wrong path")
    return {"success": record["success"], "outcome": outcome, "path": record["published_path"],
            "usage": record["usage"], "detail": record}


def _interactive(ctx: Context, item: SuiteItem) -> dict[str, Any]:
    config, maze = ctx.config, item.maze
    mode, images = INTERACTIVE[item.modality]
    if item.player.chat and item.modality not in ("grid", "grid-partial"):
        client = ctx.clients[item.player.name]
        make = partial(ctx.toolkit.chat_agent, client=client, images=images, memory=config.memory,
                       explored_map=config.explored_map and mode == "partial-observe", max_calls=config.max_calls,
                       params=_params(config), cell_px=config.cell_px)
        presentation = _presentation(ctx, item)
    else:
        client = None
        name = "oracle" if item.player.kind == "oracle" else item.player.name
        make = partial(_baseline, ctx.toolkit.baseline_agent, name, seed=item.seed)
        presentation = identity_presentation()
    budgets = Budgets(config.max_calls, 4 * maze.bench.grid.size, config.max_no_exploration)
    record = interactive_trial(make, maze.bench, presentation, mode=mode, scoring=config.scoring, budgets=budgets,
                               visibility=config.visibility, seed=item.seed, client=client)
    usage = record["usage"] if client is not None else {}
    return {"success": record["success"], "outcome": "solved" if record["success"] else record["outcome"],
            "path": record["published_path"], "usage": usage, "detail": record}


def check_policy_players(config: SuiteConfig, toolkit: Toolkit, items: list[SuiteItem]) -> None:
    """Build the agent of every trained-policy item's player once on the env of each of its mazes (the env its
    trials play), so that a policy file that cannot play them raises its error (``PolicyMismatchError``, a
    ``MazeConfigError``) before any item runs."""
    seen = set()
    for item in items:
        key = (item.player.name, item.modality, item.maze.bench.grid.shape)
        if item.player.kind != "policy" or item.modality not in INTERACTIVE or key in seen:
            continue
        seen.add(key)
        shown = show(item.maze.bench, identity_presentation())
        env = bench_env(INTERACTIVE[item.modality][0], shown.grid, shown.start, shown.goal,
                        visibility=config.visibility)
        try:
            toolkit.baseline_agent(item.player.name, env, item.seed)
        finally:
            env.close()


def _baseline(factory: Callable[[str, Any, int], Any], name: str, env: Any, *, seed: int) -> Any:
    return factory(name, env, seed)


def _nav3d(ctx: Context, item: SuiteItem) -> dict[str, Any]:
    from maze_envs.envs.nav.config import make_eval_config
    from maze_envs.envs.nav.world import camera_for_size

    from ..nav.loop import run_evaluation

    config = ctx.config
    client = ctx.clients.get(item.player.name) if item.player.kind == "chat" else None
    agent = ctx.toolkit.nav_agent(item.player, client, item.seed, {"max_step": NAV_STEP, "arrive_threshold": 0.5})
    data_dir = scene_dir(Path(ctx.out) / "nav" / "scenes", item.maze)
    steps = config.nav_max_steps
    if steps is None:
        length = read_json(data_dir / "scene" / f"{GOAL_TASK}.json")["label"]["shortest_path_length"]
        steps = math.ceil(3 * length / NAV_STEP) + 10
    eval_config = make_eval_config("outdoor", provide_occ_map=True, max_steps=steps,
                                   camera_config=camera_for_size(config.nav_view, config.nav_view),
                                   save_render_images=False)
    run_dir = Path(ctx.out) / "nav" / "runs" / item.player.name / item.maze.size / item.maze.bench.name / \
        f"trial{item.trial}"
    with _NAV_LOCK:
        run_evaluation(agent, eval_config, data_dir, run_dir=run_dir, options=RunOptions())
    result = read_json(run_dir / "scene" / GOAL_TASK / "result.json")
    stats = getattr(agent, "client", None)
    usage = stats.stats.to_dict() if client is not None and stats is not None else {}
    points = [(float(p[0]), float(p[1])) for p in result.get("trajectory") or []]  # world [x, y] per step
    detail = {k: v for k, v in result.items() if k != "trajectory"}
    detail.update(run_dir=str(run_dir), max_steps=steps)
    # the protocol's success: arrived with fewer collisions than its threshold (the legacy flag ignores them)
    metrics = result.get("metrics") or {}
    success = bool(metrics.get("success_new", result.get("success")))
    outcome = "solved" if success else ("arrived, too many collisions" if result.get("success") else
                                        str(result.get("status", "failed")))
    return {"success": success, "outcome": outcome, "path": world_to_grid(points, item.maze, config.seed),
            "usage": usage, "detail": detail}


def generation_file(folder: str | None, m: SuiteMaze, kind: str) -> Path | None:
    """Return the generated file of maze ``m`` in ``folder`` (``gen-image``: ``<task>_targeted_solution.png`` or
    any image named ``<task>_*``; ``gen-video``: ``<task>.mp4`` or any video named ``<task>_*``), or None."""
    if folder is None:
        return None
    media = "image" if kind == "gen-image" else "video"
    exact = Path(folder) / generated_name(m.stem, media)
    if exact.is_file():
        return exact
    found = sorted(p for p in Path(folder).iterdir() if p.is_file() and media_of(p) == media
                   and task_of(p.name, [m.stem]) == m.stem)
    return found[0] if found else None


def _generation(ctx: Context, item: SuiteItem) -> dict[str, Any]:
    from ..judge import pixel_pass
    from ..pixel.image import evaluate_image
    from ..pixel.video import evaluate_video

    m = item.maze
    file = generation_file(ctx.generations.get(item.player.name), m, item.modality)
    if file is None:
        return {"success": False, "outcome": "missing", "detail": {"generation": None}}
    solution = Path(ctx.out) / "tasks" / solution_name(m.stem)
    if item.modality == "gen-image":
        result = evaluate_image(file, solution, geometry=m.geometry).to_dict()
    else:
        result = evaluate_video(file, solution, geometry=m.geometry, frame_workers=1).to_dict()
    verdict = pixel_pass(result)
    detail: dict[str, Any] = {"generation": str(file), "pixel": result, "pixel_pass": verdict}
    usage = {}
    if ctx.judge is not None:
        judged = _judge(ctx.judge, ctx.config, file, m, video=item.modality == "gen-video")
        detail["judge"] = judged
        detail["judge_pass"] = judged["scores"].get("SUCCESS") if judged["status"] == "ok" else None
        usage = sum_usage([judged["usage"]])
    outcome = "solved" if verdict else ("unscored" if verdict is None else "failed the pixel gates")
    return {"success": bool(verdict), "outcome": outcome, "usage": usage, "detail": detail}


def _judge(client: ChatClient, config: SuiteConfig, file: Path, m: SuiteMaze, *, video: bool) -> dict[str, Any]:
    from ..judge import maze_task
    from ..judge.maze_task import maze_values
    from ..judge.runner import JudgeItem, judge_item

    judge_item_ = JudgeItem(file.name, file, maze_values(m.maze, video=video), "", {"task_id": m.stem})
    return judge_item(client, maze_task(), judge_item_, _params(config))
