"""Benchmark the run engine's backends on this machine.

1. ``eval-video`` on N synthetic videos (default 64, 192 frames each) with the local backend
   (2 worker processes) and with Ray (2 workers on a local runtime started for the run), same inputs;
   the records are compared (timings aside) and the wall times printed with their ratio.
2. The per-item overhead of each backend: a run of no-op items (the work returns at once), so the time
   per item is what the engine itself costs (log line, scheduling, transport). Pool start-up is included
   (it is part of a run); Ray's runtime start is timed apart, once.

    python3 benchmarks/run_backends.py [--videos 64] [--frames 192] [--noop-items 2000] [--skip-ray]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maze_envs.cli import main as cli  # noqa: E402
from maze_envs.core.render import ImageStyle  # noqa: E402
from maze_envs.evaluators.pixel.synthetic import write_synthetic_dataset  # noqa: E402
from maze_envs.runs import Run, RunOptions, WorkItem  # noqa: E402
from maze_envs.runs.socket_dir import socket_temp_dir  # noqa: E402
from maze_envs.tasks.spec import task_specs  # noqa: E402


def noop(payload: int) -> dict:
    """Return an empty record at once."""
    return {}


def _records(folder: Path) -> list[dict]:
    latest = json.loads(next(folder.glob("evaluation_results*_latest.json")).read_text())
    return [{k: v for k, v in r.items() if k != "elapsed_s"} for r in latest["results"]]


def eval_video(root: Path, frames: int, backend: str, out: str) -> float:
    """Return the wall seconds of one ``eval-video`` run over the synthetic videos under ``root``."""
    began = time.perf_counter()
    status = cli(["eval-video", "--input-dir", str(root / "video_results/synthetic/easy_round1"),
                  "--solution-dir", str(root / "data/solution"), "--output-dir", str(root / out),
                  "--num-frames", str(frames), "--no-visualizations", "--backend", backend, "--workers", "2",
                  "--log-dir", str(root / "logs")])
    if status != 0:
        raise SystemExit(f"eval-video --backend {backend} exited {status}")
    return time.perf_counter() - began


def noop_overhead(root: Path, backend: str, workers: int, kind: str, count: int) -> float:
    """Return the seconds per no-op item of a run of ``count`` items."""
    items = [WorkItem(str(i), i) for i in range(count)]
    began = time.perf_counter()
    with Run(root / f"noop-{backend}-{workers}-{kind}", items, RunOptions(backend=backend, workers=workers)) as run:
        run.execute(noop, kind=kind)
    return (time.perf_counter() - began) / count


def main() -> None:
    """Run both measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--videos", type=int, default=64)
    parser.add_argument("--frames", type=int, default=192)
    parser.add_argument("--noop-items", type=int, default=2000)
    parser.add_argument("--skip-ray", action="store_true", help="measure the local backends only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        root = Path(tmp)
        specs = task_specs(["dfs", "wilson"], ["easy", "medium"], (args.videos + 3) // 4, seed=0)[: args.videos]
        write_synthetic_dataset(root, specs, style=ImageStyle(24, 6), image_cases=("correct",),
                                video_cases=("correct", "detour", "through_wall", "still"), frames=args.frames)
        print(f"eval-video, {len(specs)} synthetic videos of {args.frames} frames, 2 workers")
        local = eval_video(root, args.frames, "local", "local")
        print(f"  local (processes x2): {local:7.2f} s  ({local / len(specs):.3f} s/video)")
        if not args.skip_ray:
            import ray

            began = time.perf_counter()
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
                     _temp_dir=stack.enter_context(socket_temp_dir()))  # short: Ray's socket paths under TMPDIR
            stack.callback(ray.shutdown)
            print(f"  ray runtime start: {time.perf_counter() - began:.2f} s (paid once per run, not counted below)")
            ray_s = eval_video(root, args.frames, "ray", "ray-out")
            same = _records(root / "ray-out") == _records(root / "local")
            print(f"  ray x2: {ray_s:7.2f} s  ({ray_s / len(specs):.3f} s/video); ray/local {ray_s / local:.2f}x; "
                  f"same records: {same}")
        print(f"per-item overhead, {args.noop_items} no-op items")
        cases = [("local", 1, "io", "inline"), ("threads", 2, "io", "threads x2"),
                 ("processes", 2, "cpu", "processes x2")]
        if not args.skip_ray:
            cases.append(("ray", 2, "cpu", "ray x2"))
        for backend, workers, kind, label in cases:
            per_item = noop_overhead(root, backend, workers, kind, args.noop_items)
            print(f"  {label:14s} {per_item * 1e6:9.1f} us/item")


if __name__ == "__main__":
    main()
