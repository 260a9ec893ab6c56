"""Navigation-scene commands: ``maze-envs generate nav-scenes`` and ``maze-envs serve-render``."""

from __future__ import annotations

import argparse

from maze_envs.cli.run_flags import run_options
from maze_envs.core.generators import GENERATORS
from maze_envs.core.words import counted

from .server_flags import access_options, add_access_flags
from .writer_flags import add_writer_flags, report_failures


def register_target(targets: argparse._SubParsersAction) -> None:
    """Add ``generate nav-scenes``."""
    p = targets.add_parser(
        "nav-scenes", help="procedural Gaussian-splat navigation scenes built from mazes",
        description="Write <out>/maze_<i>/ scenes in the navigation benchmark's layout: traj_*.json, map/ "
                    "(occupancy PNG, metadata, height TIFF), gs/0/point_cloud.ply and scene.json. "
                    "Scene i is built from seed SEED+i.")
    p.add_argument("--count", type=int, default=1, help="number of scenes (default 1)")
    p.add_argument("--rows", type=int, default=6, help="maze rows in cells (default 6)")
    p.add_argument("--cols", type=int, default=6, help="maze columns in cells (default 6)")
    p.add_argument("--algorithm", default="dfs", choices=list(GENERATORS), help="maze generator (default dfs)")
    p.add_argument("--cell-metres", type=float, default=2.0, help="corridor width of a cell in metres (default 2.0)")
    p.add_argument("--wall-metres", type=float, default=0.2, help="wall thickness in metres (default 0.2)")
    p.add_argument("--wall-height", type=float, default=2.5, help="wall height in metres (default 2.5)")
    p.add_argument("--surfel-spacing", type=float, default=0.12,
                   help="distance between wall surfels in metres; smaller means more Gaussians (default 0.12)")
    p.add_argument("--pixel-metres", type=float, default=0.05, help="occupancy map resolution (default 0.05 m/px)")
    p.add_argument("--landmarks", type=int, default=3, dest="num_landmarks",
                   help="named landmarks per scene, in dead ends (default 3)")
    p.add_argument("--trajectories", type=int, default=4, dest="num_trajectories",
                   help="trajectories per scene (default 4)")
    p.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    add_writer_flags(p, "scenes root directory to write")
    p.set_defaults(func=_run_generate)


def _run_generate(args: argparse.Namespace) -> int:
    from maze_envs.datasets import generate_nav_scenes
    from maze_envs.nav.procedural import SceneParams

    params = SceneParams(args.cell_metres, args.wall_metres, args.wall_height, args.surfel_spacing,
                         args.pixel_metres, args.num_landmarks, args.num_trajectories)
    summary = generate_nav_scenes(args.output_dir, args.count, args.rows, args.cols, seed=args.seed,
                                  algorithm=args.algorithm, params=params, options=run_options(args),
                                  overwrite=args.overwrite)
    total = sum(s["num_gaussians"] for s in summary.records)
    tasks = sum(len(s["trajectories"]) for s in summary.records)
    print(f"wrote {counted(summary.written, 'scene')} ({summary.resumed} already there; "
          f"{counted(total, 'Gaussian')}, {counted(tasks, 'trajectory')} in all) under {args.output_dir}")
    return report_failures(summary, "scene")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``serve-render``."""
    p = sub.add_parser(
        "serve-render", help="serve Gaussian-splat renders over HTTP (POST /render_gs)",
        description="Serve the render protocol for the scenes under --scenes-root: POST /render_gs, GET /ping, "
                    "GET /scenes. Backend auto uses gsplat on CUDA when installed, else the embedded CPU renderer.")
    p.add_argument("--scenes-root", required=True, help="directory holding <scene_id>/gs/<block>/*.ply")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1, loopback only)")
    p.add_argument("--port", type=int, default=7036, help="port (default 7036; 0 picks a free one)")
    p.add_argument("--backend", default="auto", choices=["auto", "cpu", "gsplat"],
                   help="renderer: auto (gsplat on CUDA, else cpu), cpu (numba) or gsplat (needs CUDA)")
    p.add_argument("--render-scale", type=float, default=1.0,
                   help="default supersampling factor, downsized with area interpolation (default 1.0)")
    p.add_argument("--pixel-budget", type=int, default=None, metavar="PIXELS",
                   help="pixels all renders in flight may hold together; a render that does not fit gets HTTP 503 "
                        "with Retry-After (default 33554432: two 4096x4096 renders, about 1.3 GB with depth)")
    add_access_flags(p)
    p.add_argument("--sh-degree", type=int, choices=range(4), default=None, metavar="{0,1,2,3}",
                   help="highest spherical-harmonic degree of the colours, capped at each scene's own "
                        "(default: the scene's degree; 0: view-independent colours)")
    p.set_defaults(func=_run_serve)


def _run_serve(args: argparse.Namespace) -> int:
    from maze_envs.serving.render import PIXEL_BUDGET, make_server

    pixel_budget = PIXEL_BUDGET if args.pixel_budget is None else args.pixel_budget
    server = make_server(args.scenes_root, args.host, args.port, args.backend, args.render_scale,
                         pixel_budget=pixel_budget, sh_degree=args.sh_degree, **access_options(args))
    print(f"serving {args.scenes_root} with the {server.service.backend} backend at {server.url}/render_gs",
          flush=True)
    server.serve_forever()
    return 0
