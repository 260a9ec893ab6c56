"""The evaluation loop on the run engine: one work item per (episode, task), one ``result.json`` per task.

Per task (the spec's loop): ``agent.reset()``, render the start, then ``observation -> agent.predict -> step`` until
arrival, a hard collision or ``max_steps``, and write ``<run>/<episode>/<task>/result.json`` atomically through the
protocol's record writer (non-finite numbers as null, or as the strings "inf"/"nan" under ``protocol="abot"``, as
ABot-Navigation writes them), renders in ``render_images/``. An agent exception or a malformed prediction ends that
task with status ``error``, a failed render with ``render_error``; the run goes on, the failure's text in
``result.json`` (``error``) and the run log (under ``protocol="abot"``, whose records have no field for it, in the
run log and on stdout). An ``AgentConfigError`` (the agent cannot run as configured) stops the run with its message.
A POI run also writes ``eval_summary.json`` (``poi_goal.metrics.run_summary``). The result files are the record:
resuming a run directory skips the tasks whose ``result.json`` is there (retrying ``error`` and ``render_error``
ones unless ``retry_errors`` is off); the engine's log ``run_log.jsonl`` beside them holds the latest invocation's
records.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from maze_envs.core.errors import MazeConfigError, MazeFormatError
from maze_envs.core.jsonfiles import read_json, write_json_atomic
from maze_envs.datasets import generate_nav_scenes
from maze_envs.envs.nav.config import EvalConfig, PoiGoalEvalConfig
from maze_envs.envs.nav.session import ERROR, RENDER_ERROR, NavSession, NavTaskError
from maze_envs.envs.nav.strategies import json_ready
from maze_envs.envs.nav.world import NavWorld, dataset_world
from maze_envs.nav.errors import RenderFailureError
from maze_envs.nav.interface.poi_goal import PoiGoalObservation
from maze_envs.nav.interface.point_goal import AgentConfigError, Observation
from maze_envs.nav.procedural import SceneParams
from maze_envs.protocols import load
from maze_envs.runs import Run, RunOptions, WorkItem
from maze_envs.runs.engine import entries_holding

from .agent_loader import load_class
from .config import load_agent_config
from .strategies import fill_gaps, injected_first
from .visualization import process_extra_visualization

LOG_NAME = "run_log.jsonl"
RETRY_STATUSES = (ERROR, RENDER_ERROR)


@dataclass(frozen=True)
class AgentSpec:
    """An agent to build in each worker: ``module_path`` (``package.module:Class``) and its keyword arguments."""

    module_path: str
    kwargs: dict = field(default_factory=dict)

    def build(self) -> Any:
        """Return a new agent instance."""
        return load_class(self.module_path)(**self.kwargs)


@dataclass(frozen=True)
class WorldSpec:
    """The scenes a run reads: ``data_dir`` (public layout), ``map_dir``, the settings and the embedded backend."""

    data_dir: str
    map_dir: str | None
    config: EvalConfig
    backend: str = "cpu"


@dataclass(frozen=True)
class TaskJob:
    """One task to play: the world, the agent (an ``AgentSpec`` or an instance), the task and the run directory."""

    world: WorldSpec
    agent: Any
    episode_id: str
    task_id: str
    run_dir: str


_WORLDS: dict[str, NavWorld] = {}
_AGENTS: dict[str, Any] = {}


def agent_spec(module_path: str, config_path: str | os.PathLike | None = None, *,
               inject: dict[str, Any] | None = None, overwrite: bool = False,
               merge: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] | None = None) -> AgentSpec:
    """Return the ``AgentSpec`` of the class at ``module_path`` with the keyword arguments of the YAML at
    ``config_path`` merged with ``inject`` by ``merge(from_yaml, injected)`` (a protocol's ``agent_settings``;
    None: ``inject`` replaces YAML values when ``overwrite``, else fills gaps), after building it once to check
    the constructor accepts them.

    Raises ``MazeConfigError`` naming ``agent_module`` (the class cannot be loaded, or its constructor fails
    without a config) or ``agent_config`` (the file is missing or malformed, or the constructor rejects it).
    """
    try:
        load_class(module_path)
    except (ValueError, ImportError, AttributeError, TypeError) as exc:
        raise MazeConfigError(str(exc), parameter="agent_module") from exc
    kwargs: dict[str, Any] = {}
    if config_path is not None:
        try:
            kwargs = load_agent_config(config_path)
        except (OSError, ValueError) as exc:
            raise MazeConfigError(str(exc), parameter="agent_config") from exc
    merge = merge or (injected_first if overwrite else fill_gaps)
    spec = AgentSpec(module_path, merge(kwargs, dict(inject or {})))
    try:
        spec.build()
    except Exception as exc:  # a constructor that rejects its arguments, reported before any task runs
        raise MazeConfigError(f"{module_path}(**config) failed: {type(exc).__name__}: {exc}",
                              parameter="agent_config" if config_path is not None else "agent_module") from exc
    return spec


def _world(spec: WorldSpec) -> NavWorld:
    key = repr(spec)
    if key not in _WORLDS:
        _WORLDS.clear()
        _WORLDS[key] = dataset_world(spec.config, spec.data_dir, spec.map_dir, spec.backend)
    return _WORLDS[key]


def _agent(agent: Any) -> Any:
    if not isinstance(agent, AgentSpec):
        return agent
    key = repr(agent)
    if key not in _AGENTS:
        _AGENTS[key] = agent.build()
    return _AGENTS[key]


def task_dir(run_dir: str | os.PathLike, episode_id: str, task_id: str) -> Path:
    """Return ``<run_dir>/<episode_id>/<task_id>``, the folder of one task's outputs."""
    return Path(run_dir) / episode_id / task_id


def play_task(session: NavSession, agent: Any, enable_visualization: bool = False) -> None:
    """Play ``session`` with ``agent`` to its end (the spec's loop); failures end the task as ``error`` or
    ``render_error``; returns nothing. Raises the agent's ``AgentConfigError``."""
    observation_type = PoiGoalObservation if session.poi else Observation
    try:
        agent.reset()
    except AgentConfigError:
        raise
    except Exception as exc:  # the agent's own bug ends its task, not the run
        session.fail(ERROR, f"agent.reset() raised {type(exc).__name__}: {exc}")
        return
    try:
        session.start()
    except RenderFailureError as exc:
        session.fail(RENDER_ERROR, str(exc))
        return
    except NavTaskError as exc:
        session.fail(ERROR, str(exc))
        return
    while not session.done:
        try:
            prediction = agent.predict(observation_type(**session.observation(pil_images=True)))
        except AgentConfigError:
            raise
        except Exception as exc:
            session.fail(ERROR, f"agent.predict() raised {type(exc).__name__}: {exc}")
            return
        extra = getattr(prediction, "extra", None)
        if enable_visualization and extra and session.save_dir is not None:
            process_extra_visualization(extra, session.save_dir, session.steps)
        try:
            session.step(prediction.waypoint, bool(getattr(prediction, "arrive", False)),
                         getattr(prediction, "directions", None))
        except RenderFailureError as exc:
            session.fail(RENDER_ERROR, str(exc))
        except (MazeConfigError, AttributeError) as exc:
            session.fail(ERROR, f"malformed prediction: {exc}")


def run_task(job: TaskJob) -> dict[str, Any]:
    """Play one task and write its ``result.json``; return the engine's record (status ``error`` for tasks
    that ended in ``error`` or ``render_error``, so that the counts show them)."""
    world = _world(job.world)
    config = job.world.config
    episode = world.episode(job.episode_id)
    task = next((t for t in episode.tasks if t.task_id == job.task_id), None)
    if task is None:
        raise MazeConfigError(f"episode {job.episode_id!r} has no task {job.task_id!r}")
    folder = task_dir(job.run_dir, job.episode_id, job.task_id)
    folder.mkdir(parents=True, exist_ok=True)
    save_dir = folder / "render_images" if config.save_render_images else None
    session = NavSession(episode, task, world.renderer, config, save_dir=save_dir)
    play_task(session, _agent(job.agent), config.enable_visualization)
    records = load(config.rules.record)
    result = records.run_fields(session.result(), {"map_dir": world.map_dirs.get(job.episode_id),
                                                   "occ_dilation_meters": config.occ_dilation_meters})
    result = records.encode(result)
    write_json_atomic(folder / "result.json", result, indent=2)
    record = {"episode_id": job.episode_id, "task_id": job.task_id,
              "status": "error" if result["status"] in RETRY_STATUSES else "ok",
              "result_status": result["status"], "success": result["success"]}
    if session.error is not None:
        record["error"] = session.error  # the run log keeps why the task failed under every protocol
        if "error" not in result:  # a reference record without the text: say it on stdout as well
            print(f"{job.episode_id}/{job.task_id}: {result['status']}: {session.error}", flush=True)
    return record


def finished_tasks(run_dir: str | os.PathLike, retry_errors: bool = True) -> set[tuple[str, str]]:
    """Return the (episode_id, task_id) pairs with a readable ``result.json`` under ``run_dir`` that count as done
    (``error``/``render_error`` ones only when ``retry_errors`` is off)."""
    done = set()
    for path in Path(run_dir).glob("*/*/result.json"):
        try:
            result = read_json(path)
        except MazeFormatError:
            continue
        if not isinstance(result, dict):
            continue
        if retry_errors and result.get("status") in RETRY_STATUSES:
            continue
        done.add((path.parent.parent.name, path.parent.name))
    return done


def new_run_dir(output_dir: str | os.PathLike) -> Path:
    """Return a fresh ``<output_dir>/<YYYYmmdd_HHMMSS>`` run directory (suffixed when that name is taken)."""
    base = Path(output_dir) / time.strftime("%Y%m%d_%H%M%S")
    path, n = base, 1
    while path.exists():
        path, n = Path(f"{base}_{n}"), n + 1
    path.mkdir(parents=True)
    return path


def ensure_procedural_scenes(scenes_dir: str | os.PathLike, count: int, rows: int, cols: int, seed: int,
                             params: SceneParams | None = None) -> Path:
    """Return ``scenes_dir``, writing ``count`` procedural scenes there unless it already holds them."""
    scenes_dir = Path(scenes_dir)
    if not (scenes_dir / f"maze_{count - 1:03d}" / "scene.json").is_file():
        generate_nav_scenes(scenes_dir, count, rows, cols, seed=seed, params=params, options=RunOptions(resume=True))
    return scenes_dir


@dataclass
class EvalOutcome:
    """What a run did: its directory, how many tasks it had, skipped (already done) and played now."""

    run_dir: Path
    total: int
    skipped: int
    played: int
    errors: int
    summary_path: Path | None = None


def run_evaluation(agent: Any, config: EvalConfig, data_dir: str | os.PathLike, *, map_dir: str | None = None,
                   run_dir: str | os.PathLike, options: RunOptions = RunOptions(), backend: str = "cpu") -> EvalOutcome:
    """Evaluate ``agent`` (an instance, or an ``AgentSpec`` to build in each worker) on every task under
    ``data_dir`` into ``run_dir`` through the run engine; ``options.resume`` skips finished tasks. A POI run
    writes ``<run_dir>/eval_summary.json`` over every task of the run directory (under ``protocol="abot"``, as
    ABot-Navigation does, over the tasks played in this call). A ``run_dir`` that holds files besides the inputs
    kept in it needs ``options.resume`` or ``options.overwrite``.

    Raises ``MazeConfigError`` naming a bad setting (``OutputNotEmptyError`` for that run directory), the agent's
    ``AgentConfigError`` and the engine's fatal errors (a locked run directory).
    """
    config.check()
    if not isinstance(config, PoiGoalEvalConfig) and type(config) is not EvalConfig:
        raise MazeConfigError(f"expected an EvalConfig or PoiGoalEvalConfig, got {type(config).__name__}",
                              parameter="config")
    spec = WorldSpec(str(Path(data_dir).resolve()), str(Path(map_dir).resolve()) if map_dir else None, config, backend)
    world = _world(spec)
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    done = finished_tasks(run_dir, options.retry_errors) if options.resume else set()
    items = [WorkItem(f"{e.episode_id}/{t.task_id}", TaskJob(spec, agent, e.episode_id, t.task_id, str(run_dir)))
             for e, t in world.tasks() if (e.episode_id, t.task_id) not in done]
    # finished tasks are known from their result.json files, so the engine's log starts afresh on resume too
    engine_options = RunOptions(backend=options.backend, workers=options.workers, ray_address=options.ray_address,
                                overwrite=options.resume or options.overwrite)
    inputs = entries_holding(run_dir, [data_dir, map_dir])
    with Run(run_dir, items, engine_options, log_name=LOG_NAME, inputs=inputs) as run:
        run.execute(run_task, kind="cpu", desc="nav tasks",
                    error_record=lambda item, message: {"episode_id": item.payload.episode_id,
                                                        "task_id": item.payload.task_id})
        counts = run.counts()
    outcome = EvalOutcome(run_dir, len(world.tasks()), len(world.tasks()) - len(items), counts.completed,
                          counts.errors)
    if isinstance(config, PoiGoalEvalConfig):
        rules = config.rules
        outcome.summary_path = write_poi_summary(run_dir, load(rules.summary).run_scope({i.id for i in items}),
                                                 load(rules.record).encode)
    return outcome


def write_poi_summary(run_dir: str | os.PathLike, only: set[str] | None = None,
                      encode: Callable[[Any], Any] | None = None) -> Path:
    """Write ``<run_dir>/eval_summary.json``, the POI run summary over the tasks' ``result.json`` files (only the
    ``episode/task`` ids in ``only`` when given), made JSON-ready by ``encode`` (a record writer's; None: non-finite
    numbers as null); return its path."""
    from .aggregate import load_all_results
    from .poi_goal.metrics import run_summary

    results = [r for r in load_all_results(run_dir)
               if only is None or f"{r['episode_id']}/{r['task_id']}" in only]
    summary = run_summary(results)
    path = Path(run_dir) / "eval_summary.json"
    write_json_atomic(path, (encode or json_ready)(summary), indent=2)
    return path
