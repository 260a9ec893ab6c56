"""Navigation evaluation commands: ``maze-envs nav-eval`` (the benchmark loop) and ``maze-envs nav-metrics``."""

from __future__ import annotations

import argparse
from pathlib import Path

from maze_envs.runs.flags import positive_workers


def _maze_size(text: str) -> tuple[int, int]:
    rows, sep, cols = text.lower().partition("x")
    try:
        size = (int(rows), int(cols)) if sep else (int(rows), int(rows))
    except ValueError:
        size = (0, 0)
    if min(size) < 2:
        raise argparse.ArgumentTypeError(f"expected ROWSxCOLS of at least 2x2, got {text[:40]!r}")
    return size


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


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``nav-eval`` and ``nav-metrics``."""
    p = sub.add_parser(
        "nav-eval", help="evaluate a navigation agent (point-goal or POI) on Gaussian-splat scenes",
        description="Run the navigation benchmark loop: every task of --data-dir (default: procedural scenes "
                    "written to <run>/scenes and rendered in-process) is played by the agent and written to "
                    "<run>/<episode>/<task>/result.json; then the metrics. Without --resume-dir each run gets "
                    "<output-dir>/<timestamp>/.")
    p.add_argument("--task", choices=["point", "poi"], default="point", help="point-goal or POI-goal (default point)")
    p.add_argument("--agent-module", required=True, metavar="PKG.MODULE:CLASS",
                   help="agent class, e.g. agents.nav.oracle:OraclePointGoalAgent")
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
    p.add_argument("--arrive-threshold", type=float, default=None, help="arrival distance (m); default by protocol")
    p.add_argument("--collision-threshold", type=int, default=None, help="SR_NEW collision limit; default by mode")
    p.add_argument("--collision-mode", choices=["off", "soft", "hard"], default="hard", help="POI collisions")
    p.add_argument("--occ-dilation-meters", type=float, default=None, help="free-space dilation; default by protocol")
    p.add_argument("--robot-radius", type=float, default=0.0, help="POI footprint radius (m)")
    p.add_argument("--occ-obstacle-polarity", choices=["dark", "light"], default="dark", help="POI obstacle test")
    p.add_argument("--occ-dark-threshold", type=int, default=64, help="POI grey obstacle threshold")
    p.add_argument("--waypoint-frame", choices=["front_left", "right_front"], default="front_left",
                   help="how waypoints are read: [front, left] (the spec) or [right, front] (the public code)")
    cam = p.add_argument_group("camera")
    cam.add_argument("--camera-width", type=int, default=720)
    cam.add_argument("--camera-height", type=int, default=640)
    cam.add_argument("--camera-fx", type=float, default=None, help="default 252.075, scaled with --camera-width")
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
    obs.add_argument("--render-retries", type=int, default=3, help="render server retries (default 3)")
    obs.add_argument("--skip-metrics", action="store_true", help="do not run the metrics afterwards")
    gen = p.add_argument_group("procedural scenes (without --data-dir)")
    gen.add_argument("--scenes", type=int, default=4, help="number of scenes (default 4)")
    gen.add_argument("--maze-size", type=_maze_size, default=(4, 4), metavar="ROWSxCOLS", help="default 4x4")
    gen.add_argument("--seed", type=int, default=0, help="scene i is built from SEED+i (default 0)")
    run = p.add_argument_group("running")
    run.add_argument("--backend", choices=("local", "ray"), default="local",
                     help="local: worker processes on this machine; ray: Ray tasks (extra 'ray')")
    run.add_argument("--workers", type=positive_workers, default=1, help="tasks played at once (default 1)")
    run.add_argument("--ray-address", default=None, help="with --backend ray: 'auto' or 'ray://HOST:PORT'")
    run.add_argument("--no-retry-errors", dest="retry_errors", action="store_false",
                     help="with --resume-dir, keep error/render_error tasks instead of playing them again")
    _add_metric_flags(p)
    p.set_defaults(func=_run_eval)

    m = sub.add_parser(
        "nav-metrics", help="metrics of a navigation run (point-goal or POI), also while it is still running",
        description="Aggregate every result.json under --result-dir into eval_summary.json (point) or "
                    "poi_goal_analysis.json (POI), print the tables, and draw <episode>/trajectories.png.")
    m.add_argument("--task", choices=["point", "poi"], default="point")
    m.add_argument("--result-dir", required=True, help="the run directory")
    m.add_argument("--mode", choices=["outdoor", "indoor"], default=None,
                   help="difficulty groups (default outdoor for point, indoor for POI)")
    m.add_argument("--collision-threshold", type=int, default=None, help="SR_NEW collision limit (default by mode)")
    m.add_argument("--arrive-threshold", type=float, default=2.0, help="POI: threshold when a result lacks it")
    m.add_argument("--output-path", default=None, help="summary file (default in --result-dir)")
    _add_metric_flags(m)
    m.set_defaults(func=_run_metrics)


def report(task: str, result_dir: str | Path, args: argparse.Namespace) -> dict:
    """Run the metrics of ``task`` on ``result_dir`` with the metric flags in ``args``; return the summary."""
    if task == "point":
        from maze_envs.evaluators.nav.point_goal.metrics import analyze_and_report

        summary = analyze_and_report(result_dir, args.mode or "outdoor", args.collision_threshold, args.min_distance,
                                     args.max_distance, args.exclude_scenes, getattr(args, "output_path", None),
                                     args.per_scene)
    else:
        from maze_envs.evaluators.nav.poi_goal.metrics import analyze_and_report

        summary = analyze_and_report(result_dir, args.mode or "indoor", args.collision_threshold or 3,
                                     args.arrive_threshold or 2.0, args.min_distance, args.max_distance,
                                     args.exclude_scenes, getattr(args, "output_path", None), args.per_scene,
                                     args.per_poi)
    if args.pictures:
        from maze_envs.evaluators.nav.pictures import draw_run

        drawn = draw_run(result_dir)
        if drawn:
            print(f"drew {len(drawn)} trajectory pictures (<episode>/trajectories.png)")
    return summary


def _run_metrics(args: argparse.Namespace) -> int:
    report(args.task, args.result_dir, args)
    return 0


def _build_config(args: argparse.Namespace):
    from maze_envs.envs.nav.config import PoiGoalEvalConfig, make_eval_config
    from maze_envs.nav.camera import CameraConfig

    fx = args.camera_fx if args.camera_fx is not None else 252.075 * args.camera_width / 720
    camera = CameraConfig(args.camera_width, args.camera_height, fx, args.camera_fy or fx, args.camera_width / 2,
                          args.camera_height / 2, args.extrinsic_height)
    common = dict(render_url=args.render_url, max_steps=args.max_steps, camera_config=camera,
                  provide_history=args.provide_history, provide_occ_map=args.provide_occ_map,
                  provide_height_map=args.provide_height_map, max_history_frames=args.max_history_frames,
                  history_resize_ratio=args.history_resize_ratio, save_render_images=args.save_render_images,
                  enable_visualization=args.enable_visualization, waypoint_frame=args.waypoint_frame,
                  render_max_retries=args.render_retries)
    overrides = {k: v for k, v in (("arrive_threshold", args.arrive_threshold),
                                   ("collision_threshold", args.collision_threshold),
                                   ("occ_dilation_meters", args.occ_dilation_meters)) if v is not None}
    if args.task == "point":
        return make_eval_config(args.mode or "outdoor", **common, **overrides)
    config = PoiGoalEvalConfig(**common, **overrides, collision_mode=args.collision_mode,
                               robot_radius=args.robot_radius, occ_obstacle_polarity=args.occ_obstacle_polarity,
                               occ_dark_threshold=args.occ_dark_threshold)
    config.check()
    return config


def _run_eval(args: argparse.Namespace) -> int:
    from maze_envs.evaluators.nav.agent_loader import load_class
    from maze_envs.evaluators.nav.config import load_agent_config
    from maze_envs.evaluators.nav.loop import AgentSpec, ensure_procedural_scenes, new_run_dir, run_evaluation
    from maze_envs.core.errors import MazeConfigError
    from maze_envs.runs import RunOptions

    config = _build_config(args)
    try:
        load_class(args.agent_module)
        kwargs = load_agent_config(args.agent_config) if args.agent_config else {}
    except (ValueError, ImportError, AttributeError, TypeError, FileNotFoundError) as exc:
        parameter = "agent_config" if isinstance(exc, FileNotFoundError) or (
            isinstance(exc, ValueError) and args.agent_config and str(args.agent_config) in str(exc)) else "agent_module"
        raise MazeConfigError(str(exc), parameter=parameter) from exc
    if args.task == "poi" and args.agent_config:
        kwargs.setdefault("arrive_threshold", config.arrive_threshold)
    agent = AgentSpec(args.agent_module, kwargs)
    try:
        agent.build()
    except Exception as exc:  # report a constructor that rejects the config before any task runs
        raise MazeConfigError(f"{args.agent_module}(**config) failed: {type(exc).__name__}: {exc}",
                              parameter="agent_config" if args.agent_config else "agent_module") from exc
    run_dir = Path(args.resume_dir) if args.resume_dir else new_run_dir(args.output_dir)
    data_dir = args.data_dir
    if data_dir is None:
        rows, cols = args.maze_size
        data_dir = ensure_procedural_scenes(run_dir / "scenes", args.scenes, rows, cols, args.seed)
    options = RunOptions(backend=args.backend, workers=args.workers, ray_address=args.ray_address,
                         resume=args.resume_dir is not None, retry_errors=args.retry_errors)
    print(f"run directory: {run_dir}", flush=True)
    outcome = run_evaluation(agent, config, data_dir, map_dir=args.map_dir, run_dir=run_dir, options=options)
    print(f"{outcome.total} tasks: {outcome.skipped} already finished, {outcome.played} played now "
          f"({outcome.errors} ended in error or render_error)")
    if not args.skip_metrics:
        report(args.task, run_dir, args)
    return 0
