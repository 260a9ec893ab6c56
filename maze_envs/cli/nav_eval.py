"""Navigation evaluation commands: ``maze-envs nav-eval`` (the benchmark loop) and ``maze-envs nav-metrics``: their
flags, and the ``python -m maze_envs.cli.nav_metrics`` entry point."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from maze_envs.cli.protocol_flag import add_protocol_flag
from maze_envs.core.errors import MazeEnvsError, message_for_flags
from maze_envs.core.validate import flag_type, positive_int, size
from maze_envs.core.words import counted
from maze_envs.envs.nav.config import build_eval_config, camera_for_size
from maze_envs.evaluators.nav.loop import EvalOutcome, agent_spec, ensure_procedural_scenes, new_run_dir, run_evaluation
from maze_envs.evaluators.nav.report import MetricsSettings, report
from maze_envs.protocols import load, protocol
from maze_envs.runs import RunOptions

EVAL_DESCRIPTION = ("Run the navigation benchmark loop: every task of --data-dir (default: procedural scenes written "
                    "to <run>/scenes and rendered in-process) is played by the agent and written to "
                    "<run>/<episode>/<task>/result.json (POI runs also write <run>/eval_summary.json); then the "
                    "metrics. Without --resume-dir each run gets <output-dir>/<timestamp>/. --protocol abot "
                    "reproduces ABot-Navigation's evaluator.")
METRICS_DESCRIPTION = ("Aggregate every result.json under --result-dir into eval_summary.json (point) or "
                       "poi_goal_analysis.json (POI), print the tables, and draw <episode>/trajectories.png.")


def _maze_size(text: str) -> tuple[int, int]:
    """Return ``(rows, cols)`` of ``ROWSxCOLS`` (or ``N`` for NxN) of at least 2x2; raise
    ``argparse.ArgumentTypeError`` with the size check's message."""
    return size(text if "x" in text.lower() else f"{text}x{text}", 2, error=argparse.ArgumentTypeError)


def _add_metric_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--min-distance", type=float, default=5.0, help="outdoor difficulty: shortest bucket start (m)")
    p.add_argument("--max-distance", type=float, default=50.0, help="outdoor difficulty: range end (m)")
    p.add_argument("--exclude-scenes", nargs="*", default=None, metavar="SCENE",
                   help="scene ids to leave out (default: park3 for point-goal outdoor, none otherwise)")
    p.add_argument("--per-scene", action="store_true", help="also report each scene")
    p.add_argument("--per-poi", action=argparse.BooleanOptionalAction, default=True,
                   help="POI: print the per-POI table (default on)")
    p.add_argument("--no-pictures", dest="pictures", action="store_false",
                   help="skip <run>/<episode>/trajectories.png (trajectories over the occupancy map)")


def add_eval_arguments(p: argparse.ArgumentParser) -> None:
    """Add the flags of ``nav-eval`` to ``p``; returns nothing."""
    p.add_argument("--task", choices=["point", "poi"], default="point", help="point-goal or POI-goal (default point)")
    add_protocol_flag(p, "nav")
    p.add_argument("--agent-module", required=True, metavar="PKG.MODULE:CLASS",
                   help="agent class, e.g. maze_envs.agents.nav.oracle:OraclePointGoalAgent")
    p.add_argument("--agent-config", default=None, help="YAML whose keys become the agent's keyword arguments")
    p.add_argument("--data-dir", default=None, help="scenes in the public layout (<scene>/traj_*.json, map/)")
    p.add_argument("--map-dir", default=None, help="separate occupancy map directory (<scene>/map/)")
    p.add_argument("--render-url", default=None,
                   help="render server, e.g. http://127.0.0.1:7036/render_gs (default: the embedded renderer)")
    p.add_argument("--output-dir", default="./eval_output", help="where timestamped runs go (default ./eval_output)")
    p.add_argument("--resume-dir", default=None, help="a run directory to continue: finished tasks are skipped")
    p.add_argument("--max-steps", type=int, default=100, help="step limit per task (default 100)")
    p.add_argument("--mode", choices=["outdoor", "indoor"], default=None,
                   help="point-goal protocol and metric groups (default outdoor); POI: metric groups (default indoor)")
    p.add_argument("--arrive-threshold", type=float, default=None,
                   help="arrival distance (m); default by protocol. POI with --agent-config: also given to the "
                        "agent when its YAML lacks one (--protocol abot: replacing the YAML's value)")
    p.add_argument("--collision-threshold", type=int, default=None, help="SR_NEW collision limit; default by mode")
    p.add_argument("--collision-mode", choices=["off", "soft", "hard"], default="hard", help="POI collisions")
    p.add_argument("--occ-dilation-meters", type=float, default=None, help="free-space dilation; default by protocol")
    p.add_argument("--robot-radius", type=float, default=0.0, help="POI footprint radius (m)")
    p.add_argument("--occ-obstacle-polarity", choices=["dark", "light"], default="dark", help="POI obstacle test")
    p.add_argument("--occ-dark-threshold", type=int, default=64, help="POI grey obstacle threshold")
    p.add_argument("--waypoint-frame", choices=["front_left", "right_front"], default=None,
                   help="how waypoints are read: [front, left] (the spec) or [right, front] (the public code); "
                        "default front_left, or right_front with --protocol abot")
    cam = p.add_argument_group("camera")
    cam.add_argument("--camera-width", type=int, default=720)
    cam.add_argument("--camera-height", type=int, default=640)
    cam.add_argument("--camera-fx", type=float, default=None,
                     help="default 252.075, scaled with --camera-width (--protocol abot: not scaled, and the "
                          "principal point stays at 360, 320)")
    cam.add_argument("--camera-fy", type=float, default=None, help="default: --camera-fx")
    cam.add_argument("--extrinsic-height", type=float, default=0.65, help="camera height above ground (m)")
    obs = p.add_argument_group("observations and outputs")
    obs.add_argument("--provide-history", action="store_true", help="add history_images / history_poses")
    obs.add_argument("--provide-occ-map", action="store_true", help="add the dilated occupancy map")
    obs.add_argument("--provide-height-map", action="store_true", help="add the height map")
    obs.add_argument("--max-history-frames", type=int, default=20)
    obs.add_argument("--history-resize-ratio", type=float, default=0.25)
    obs.add_argument("--save-render-images", action=argparse.BooleanOptionalAction, default=True,
                     help="save renders to <task>/render_images (default on)")
    obs.add_argument("--enable-visualization", action="store_true", help="draw WaypointPrediction.extra on renders")
    obs.add_argument("--render-retries", dest="render_max_retries", type=int, default=3,
                     help="render server retries (default 3)")
    obs.add_argument("--skip-metrics", action="store_true", help="do not run the metrics afterwards")
    gen = p.add_argument_group("procedural scenes (without --data-dir)")
    gen.add_argument("--scenes", type=int, default=4, help="number of scenes (default 4)")
    gen.add_argument("--maze-size", type=_maze_size, default=(4, 4), metavar="ROWSxCOLS", help="default 4x4")
    gen.add_argument("--seed", type=int, default=0, help="scene i is built from SEED+i (default 0)")
    run = p.add_argument_group("running")
    run.add_argument("--backend", choices=("local", "ray"), default="local",
                     help="local: worker processes on this machine; ray: Ray tasks (extra 'ray')")
    run.add_argument("--workers", type=flag_type(positive_int), default=1, help="tasks played at once (default 1)")
    run.add_argument("--ray-address", default=None, help="with --backend ray: 'auto' or 'ray://HOST:PORT'")
    run.add_argument("--no-retry-errors", dest="retry_errors", action="store_false",
                     help="with --resume-dir, keep error/render_error tasks instead of playing them again")
    _add_metric_flags(p)


def add_metrics_arguments(p: argparse.ArgumentParser) -> None:
    """Add the flags of ``nav-metrics`` (and ``python -m maze_envs.cli.nav_metrics``) to ``p``."""
    p.add_argument("--task", choices=["point", "poi"], default="point")
    add_protocol_flag(p, "nav")
    p.add_argument("--result-dir", required=True, help="the run directory")
    p.add_argument("--mode", choices=["outdoor", "indoor"], default=None,
                   help="difficulty groups (default outdoor for point, indoor for POI)")
    p.add_argument("--collision-threshold", type=int, default=None, help="SR_NEW collision limit (default by mode)")
    p.add_argument("--arrive-threshold", type=float, default=None,
                   help="POI: threshold when a result lacks it (default 2.0)")
    p.add_argument("--output-path", default=None, help="summary file (default in --result-dir)")
    _add_metric_flags(p)


def metrics_settings(args: argparse.Namespace, *, quiet: bool = False) -> MetricsSettings:
    """Return the ``MetricsSettings`` the metric flags in ``args`` ask for."""
    return MetricsSettings(task=args.task, mode=args.mode, collision_threshold=args.collision_threshold,
                           arrive_threshold=args.arrive_threshold, min_distance=args.min_distance,
                           max_distance=args.max_distance, exclude_scenes=args.exclude_scenes,
                           output_path=getattr(args, "output_path", None), per_scene=args.per_scene,
                           per_poi=args.per_poi, pictures=args.pictures, protocol=args.protocol, quiet=quiet)


def run_metrics(args: argparse.Namespace) -> int:
    """Run ``nav-metrics``; return the exit status."""
    report(args.result_dir, metrics_settings(args))
    return 0


def run_eval(args: argparse.Namespace) -> EvalOutcome:
    """Run ``nav-eval`` (evaluation, then the metrics unless ``--skip-metrics``); return what the run did."""
    camera = camera_for_size(args.camera_width, args.camera_height, args.extrinsic_height, fx=args.camera_fx,
                             fy=args.camera_fy, protocol=args.protocol)
    frame = args.waypoint_frame or protocol(args.protocol, "nav").nav.waypoint_frame
    poi_only = dict(collision_mode=args.collision_mode, robot_radius=args.robot_radius,
                    occ_obstacle_polarity=args.occ_obstacle_polarity, occ_dark_threshold=args.occ_dark_threshold)
    config = build_eval_config(
        args.task, args.mode, render_url=args.render_url, max_steps=args.max_steps, camera_config=camera,
        provide_history=args.provide_history, provide_occ_map=args.provide_occ_map,
        provide_height_map=args.provide_height_map, max_history_frames=args.max_history_frames,
        history_resize_ratio=args.history_resize_ratio, save_render_images=args.save_render_images,
        enable_visualization=args.enable_visualization, waypoint_frame=frame,
        render_max_retries=args.render_max_retries, protocol=args.protocol, arrive_threshold=args.arrive_threshold,
        collision_threshold=args.collision_threshold, occ_dilation_meters=args.occ_dilation_meters,
        **(poi_only if args.task == "poi" else {}))
    inject = {"arrive_threshold": config.arrive_threshold} if args.task == "poi" and args.agent_config else None
    agent = agent_spec(args.agent_module, args.agent_config, inject=inject,
                       merge=load(config.rules.agent_settings))
    run_dir = Path(args.resume_dir) if args.resume_dir else new_run_dir(args.output_dir)
    data_dir = args.data_dir
    if data_dir is None:
        rows, cols = args.maze_size
        data_dir = ensure_procedural_scenes(run_dir / "scenes", args.scenes, rows, cols, args.seed)
    options = RunOptions(backend=args.backend, workers=args.workers, ray_address=args.ray_address,
                         resume=args.resume_dir is not None, retry_errors=args.retry_errors)
    print(f"run directory: {run_dir}", flush=True)
    outcome = run_evaluation(agent, config, data_dir, map_dir=args.map_dir, run_dir=run_dir, options=options)
    print(f"{counted(outcome.total, 'task')}: {outcome.skipped} already finished, {outcome.played} played now "
          f"({outcome.errors} ended in error or render_error)")
    if not args.skip_metrics:
        report(run_dir, metrics_settings(args))
    return outcome


def eval_command(args: argparse.Namespace) -> int:
    """Run ``nav-eval``; return the exit status."""
    run_eval(args)
    return 0


def build_metrics_parser(prog: str = "python -m maze_envs.cli.nav_metrics") -> argparse.ArgumentParser:
    """Return the parser of the standalone metrics command."""
    parser = argparse.ArgumentParser(prog=prog, description=METRICS_DESCRIPTION)
    add_metrics_arguments(parser)
    return parser


def metrics_main(argv: Sequence[str] | None = None) -> int:
    """Run ``python -m maze_envs.cli.nav_metrics``; return the exit status (2 with a one-line message naming the
    flag at fault for bad input)."""
    parser = build_metrics_parser()
    args = parser.parse_args(argv)
    flags = {a.dest: a.option_strings[0] for a in parser._actions if a.option_strings}
    try:
        return run_metrics(args)
    except (MazeEnvsError, OSError) as exc:
        print(f"{parser.prog}: error: {message_for_flags(exc, flags)}", file=sys.stderr)
        return 2


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``nav-eval`` and ``nav-metrics``."""
    p = sub.add_parser("nav-eval", help="evaluate a navigation agent (point-goal or POI) on Gaussian-splat scenes "
                                        "(--protocol abot: as ABot-Navigation's evaluator)",
                       description=EVAL_DESCRIPTION)
    add_eval_arguments(p)
    p.set_defaults(func=eval_command)
    m = sub.add_parser("nav-metrics", help="metrics of a navigation run (point-goal or POI), also while it is still "
                                           "running", description=METRICS_DESCRIPTION)
    add_metrics_arguments(m)
    m.set_defaults(func=run_metrics)
