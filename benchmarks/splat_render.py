"""Benchmark: three 720x640 views of a procedural 20 m x 20 m maze scene of about 60,000 Gaussians.

Reports, for the chosen backend:
  * first call in a fresh process with an empty numba cache (JIT compile + render), target <= 5 s;
  * first call in a fresh process with the compile cached on disk;
  * warm time for the three views (median of --repeats), target <= 0.5 s;
  * the same three views end to end through the in-process renderer client (JPEG encode/decode included).
gsplat (``--backend gsplat``) needs CUDA and ``maze-envs[gpu]``; without them it stops with a clear error.

``--sh`` instead times view-dependent colour: the same maze at about 50k, 200k and 1M Gaussians (``--sh-sizes``)
given seeded random degree-3 SH coefficients, its three views rendered with SH (degree 3) and without
(``sh_degree=0``, the degree-0 path), the two interleaved run by run; ms a view (median) and their ratio.

Run: python3 benchmarks/splat_render.py [--backend cpu|gsplat] [--repeats 5] [--gaussians 60000]
     python3 benchmarks/splat_render.py --sh [--sh-sizes 50000,200000,1000000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maze_envs.core.generators import as_rng, generate  # noqa: E402
from maze_envs.nav.procedural import SceneParams, layout_maze, scene_gaussians, write_scene  # noqa: E402

TARGET_WARM_S = 0.5
TARGET_FIRST_S = 5.0


@dataclass
class Args:
    """The benchmark's settings."""

    backend: str
    repeats: int
    gaussians: int
    seed: int
    sh: bool
    sh_sizes: tuple[int, ...]


def parse_args() -> tuple[Args, argparse.Namespace]:
    """Return the settings and the raw namespace (which carries the hidden ``--child`` scene path)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", default="cpu", choices=["cpu", "gsplat"], help="renderer to time (default cpu)")
    p.add_argument("--repeats", type=int, default=5, help="warm repetitions of the three views (default 5)")
    p.add_argument("--gaussians", type=int, default=60000, help="approximate scene size (default 60000)")
    p.add_argument("--seed", type=int, default=0, help="maze seed (default 0)")
    p.add_argument("--sh", action="store_true", help="time SH degree 3 against degree 0 at --sh-sizes instead")
    p.add_argument("--sh-sizes", default="50000,200000,1000000",
                   help="comma-separated approximate scene sizes for --sh (default 50000,200000,1000000)")
    p.add_argument("--child", help=argparse.SUPPRESS)
    ns = p.parse_args()
    try:
        sizes = tuple(int(n) for n in ns.sh_sizes.split(","))
    except ValueError:
        p.error(f"--sh-sizes: expected comma-separated integers, got {ns.sh_sizes!r}")
    if ns.repeats < 1 or any(n < 1000 for n in sizes):
        p.error("--repeats must be at least 1 and every --sh-sizes entry at least 1000")
    return Args(ns.backend, ns.repeats, ns.gaussians, ns.seed, ns.sh, sizes), ns


def spacing_for(target: int, seed: int) -> float:
    """Return the surfel spacing that gives about ``target`` Gaussians on a 9x9 maze of 2.0 m cells (20 m x 20 m)."""
    spacing = 0.15
    for _ in range(3):
        maze = generate(9, 9, "dfs", seed)
        n = len(scene_gaussians(layout_maze(maze, SceneParams(surfel_spacing=spacing), as_rng(seed)), as_rng(seed)))
        spacing *= (n / target) ** 0.5
    return spacing


def three_views(scene_dir: Path):
    """Return the PinholeViews (left, right, front) at the scene's first trajectory start."""
    from maze_envs.nav.camera import view_from_pose
    from maze_envs.nav.client import view_poses
    from maze_envs.nav.scene import Episode, GaussianScene

    episode = Episode.from_scene_dir(scene_dir)
    pose = GaussianScene.get_gaussian_pose(episode.tasks[0].start_pose)
    return pose, [view_from_pose(p) for _, p in view_poses(pose, 3)]


def make_renderer(backend: str, scene_dir: Path):
    """Return a ``backend`` renderer of the scene's Gaussians."""
    from maze_envs.nav.backends import renderer_factory
    from maze_envs.nav.service import load_scene_cloud

    return renderer_factory(backend)(load_scene_cloud(scene_dir))


def child(scene_dir: Path, backend: str) -> None:
    """In a fresh process: time import, scene load and the first three views; print JSON."""
    t0 = time.perf_counter()
    renderer = make_renderer(backend, scene_dir)
    _, views = three_views(scene_dir)
    t1 = time.perf_counter()
    for view in views:
        renderer.render(view)
    t2 = time.perf_counter()
    print(json.dumps({"load_s": t1 - t0, "first_three_views_s": t2 - t1}))


def first_call(scene_dir: Path, backend: str, cache_dir: str) -> dict:
    """Return the timings of a fresh process rendering the first three views with ``cache_dir`` as numba's cache."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    out = subprocess.run([sys.executable, __file__, "--child", str(scene_dir), "--backend", backend],
                         capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def sh_scene(target: int, spacing_50k: float, seed: int):
    """Return (cloud with seeded random degree-3 SH, the three views at its first start) of the 9x9 maze at about
    ``target`` Gaussians (spacing scaled from the one measured at 50k, then once more from the count it gave)."""
    from maze_envs.nav.camera import view_from_pose
    from maze_envs.nav.client import view_poses
    from maze_envs.nav.ply import GaussianCloud
    from maze_envs.nav.procedural import build_scene
    from maze_envs.nav.scene import GaussianScene

    spacing = spacing_50k * (50_000 / target) ** 0.5
    for _ in range(2):
        built = build_scene(generate(9, 9, "dfs", seed), "bench",
                            SceneParams(surfel_spacing=spacing, num_trajectories=1), seed)
        if abs(len(built.cloud) / target - 1) < 0.03:
            break
        spacing *= (len(built.cloud) / target) ** 0.5
    flat = built.cloud
    rest = as_rng(seed).normal(0.0, 0.1, (len(flat), 15, 3)).astype("float32")
    cloud = GaussianCloud(flat.means, flat.scales, flat.quats, flat.opacities, flat.sh_dc, rest)
    pose = GaussianScene.get_gaussian_pose(built.episode.tasks[0].start_pose)
    return cloud, [view_from_pose(p) for _, p in view_poses(pose, 3)]


def sh_table(args: Args) -> int:
    """Print wall and CPU (all threads) ms a view with SH degree 3 and with degree 0 at each of ``args.sh_sizes``,
    runs interleaved; return the exit status."""
    from maze_envs.nav.backends import renderer_factory

    factory = renderer_factory(args.backend)
    spacing_50k = spacing_for(50_000, args.seed)
    print(f"SH degree 3 vs degree 0, backend {args.backend}, three 720x640 views a run, median of {args.repeats} "
          f"interleaved runs each, {os.cpu_count()} CPUs")
    print(f"{'Gaussians':>10} {'with SH ms/view':>16} {'without ms/view':>16} {'ratio':>6} "
          f"{'CPU ms/view with':>17} {'without':>8} {'ratio':>6}  load average before -> after")
    for target in args.sh_sizes:
        cloud, views = sh_scene(target, spacing_50k, args.seed)
        modes = {"with": factory(cloud), "without": factory(cloud, sh_degree=0)}
        times: dict[str, list[float]] = {name: [] for name in modes}
        cpu: dict[str, list[float]] = {name: [] for name in modes}
        for renderer in modes.values():
            renderer.render_many(views)  # compile and warm up
        load_before = os.getloadavg()[0]
        for run in range(args.repeats):
            for name in (("with", "without") if run % 2 == 0 else ("without", "with")):
                t0, c0 = time.perf_counter(), time.process_time()
                modes[name].render_many(views)
                times[name].append((time.perf_counter() - t0) / len(views) * 1000)
                cpu[name].append((time.process_time() - c0) / len(views) * 1000)
        with_sh, without = statistics.median(times["with"]), statistics.median(times["without"])
        cpu_with, cpu_without = statistics.median(cpu["with"]), statistics.median(cpu["without"])
        print(f"{len(cloud):>10} {with_sh:>16.1f} {without:>16.1f} {with_sh / without:>6.2f} "
              f"{cpu_with:>17.1f} {cpu_without:>8.1f} {cpu_with / cpu_without:>6.2f}  "
              f"{load_before:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
    return 0


def main() -> int:
    """Build the scene, print the first-call, warm and end-to-end timings; return the exit status."""
    args, ns = parse_args()
    if ns.child:
        child(Path(ns.child), args.backend)
        return 0
    from maze_envs.nav.backends import renderer_factory
    from maze_envs.nav.errors import NavDependencyError

    try:
        renderer_factory(args.backend)
    except NavDependencyError as exc:
        print(f"splat_render: {exc}", file=sys.stderr)
        return 2
    if args.sh:
        return sh_table(args)
    with tempfile.TemporaryDirectory() as tmp:
        spacing = spacing_for(args.gaussians, args.seed)
        scene_dir = Path(tmp) / "scenes" / "bench"
        summary = write_scene(generate(9, 9, "dfs", args.seed), scene_dir,
                              SceneParams(surfel_spacing=spacing, num_trajectories=1), args.seed)
        print(f"scene: {summary['size_metres'][0]:.1f} m x {summary['size_metres'][1]:.1f} m, "
              f"{summary['num_gaussians']} Gaussians (surfel spacing {spacing:.3f} m), backend {args.backend}, "
              f"{os.cpu_count()} CPUs")
        cache = str(Path(tmp) / "numba_cache")
        cold = first_call(scene_dir, args.backend, cache)
        cached = first_call(scene_dir, args.backend, cache)
        print(f"first call, empty JIT cache : {cold['first_three_views_s']:.2f} s for 3 views "
              f"(+{cold['load_s']:.2f} s import and load)   target <= {TARGET_FIRST_S} s  "
              f"ratio {cold['first_three_views_s'] / TARGET_FIRST_S:.2f}")
        print(f"first call, cached compile  : {cached['first_three_views_s']:.2f} s for 3 views "
              f"(+{cached['load_s']:.2f} s import and load)")

        renderer = make_renderer(args.backend, scene_dir)
        pose, views = three_views(scene_dir)
        for view in views:
            renderer.render(view)
        times, cpu = [], []
        for _ in range(args.repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            for view in views:
                renderer.render(view)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        warm = statistics.median(times)
        print(f"warm, 3 views (median of {args.repeats}): {warm:.3f} s ({warm / 3 * 1000:.0f} ms a view; "
              f"min {min(times):.3f} s)   target <= {TARGET_WARM_S} s  ratio {warm / TARGET_WARM_S:.2f}")
        print(f"  CPU time of the 3 views (all threads, median): {statistics.median(cpu):.3f} s; "
              f"load average while running: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")

        from maze_envs.nav.client import LocalGaussianRenderer

        client = LocalGaussianRenderer(scene_dir.parent, backend=args.backend)
        client.render_at_pose(pose, "bench")
        t0 = time.perf_counter()
        for _ in range(args.repeats):
            client.render_at_pose(pose, "bench")
        e2e = (time.perf_counter() - t0) / args.repeats
        print(f"in-process client render_at_pose (3 views, JPEG encode+decode): {e2e:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
