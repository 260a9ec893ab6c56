"""Benchmark the pixel evaluators: median seconds per image and per 192-frame 512x512 video, single process.

The spec quotes about 0.5 s per image and 5-10 s per video for the original scripts (there is no
installable peer package to run side by side), so those quoted figures are printed next to ours.
Each timing includes reading the files and analysing the solution image (grid auto-detected, or
taken from the task's metadata), as a batch over distinct tasks pays both; visualisations are off.
Wall-clock and CPU medians are printed: on a shared machine the CPU time is the steadier figure.

    python3 benchmarks/pixel_eval.py [--images 20] [--videos 3] [--size 9]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maze_envs.core.generators import generate  # noqa: E402
from maze_envs.core.render import ImageStyle  # noqa: E402
from maze_envs.evaluators.pixel import synthetic  # noqa: E402
from maze_envs.evaluators.pixel.image import evaluate_image  # noqa: E402
from maze_envs.evaluators.pixel.reference import read_image  # noqa: E402
from maze_envs.evaluators.pixel.video import evaluate_video  # noqa: E402

QUOTED_IMAGE_S = 0.5
QUOTED_VIDEO_S = (5.0, 10.0)
TARGET_IMAGE_S = 0.05
TARGET_VIDEO_S = 1.0


def _median_time(fn, repeats: int) -> tuple[float, float]:
    """Return the median wall-clock and CPU seconds of ``fn`` over ``repeats`` runs (after one warm-up)."""
    fn()
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def main() -> int:
    """Run the benchmark and print the figures; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=20, help="timed image evaluations (default 20)")
    parser.add_argument("--videos", type=int, default=3, help="timed video evaluations (default 3)")
    parser.add_argument("--size", type=int, default=9, help="maze side in cells (default 9)")
    parser.add_argument("--frames", type=int, default=192, help="frames per video (default 192)")
    parser.add_argument("--frame-workers", type=int, default=4, help="threads checking video frames (default 4)")
    args = parser.parse_args()

    maze = generate(args.size, args.size, "dfs", 0)
    task = synthetic.make_task(maze, ImageStyle.fit(args.size, args.size, 512))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        solution = tmp / "task_solution.png"
        generated = tmp / "task_targeted_solution.png"
        cv2.imwrite(str(solution), task.solution)
        cv2.imwrite(str(generated), cv2.resize(synthetic.image_case(task, "correct"), (512, 512)))
        video = synthetic.write_marker_video(tmp / "task.mp4", task, synthetic.video_route(maze, "detour"),
                                             frames=args.frames, size=(512, 512))
        # The solution is passed as freshly read pixels: a path would hit the per-file solution cache.
        image_s, image_cpu = _median_time(lambda: evaluate_image(generated, read_image(solution)), args.images)
        known_s, known_cpu = _median_time(
            lambda: evaluate_image(generated, read_image(solution), geometry=task.geometry), args.images)
        video_s, video_cpu = _median_time(
            lambda: evaluate_video(video, read_image(solution), num_frames=args.frames,
                                   frame_workers=args.frame_workers), args.videos)
        diff_s, diff_cpu = _median_time(
            lambda: evaluate_video(video, read_image(solution), num_frames=args.frames,
                                   frame_workers=args.frame_workers, extraction_method="frame_differencing"),
            args.videos)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"maze {args.size}x{args.size}, solution {task.solution.shape[1]}x{task.solution.shape[0]} px, generated "
          f"512x512 PNG, {args.frames}-frame 512x512 mp4v video; {os.cpu_count()} CPUs, load average {load:.2f}")
    print("timings include reading the files and analysing the solution; wall-clock (CPU) medians")
    print(f"image, grid auto-detected: {image_s * 1000:.1f} ms ({image_cpu * 1000:.1f} ms CPU); target <= "
          f"{TARGET_IMAGE_S * 1000:.0f} ms; spec quotes ~{QUOTED_IMAGE_S:.1f} s: "
          f"{QUOTED_IMAGE_S / image_s:.1f}x faster")
    print(f"image, grid from metadata: {known_s * 1000:.1f} ms ({known_cpu * 1000:.1f} ms CPU); "
          f"{QUOTED_IMAGE_S / known_s:.1f}x faster than quoted")
    print(f"video ({args.frame_workers} frame threads): {video_s:.3f} s ({video_cpu:.3f} s CPU); target <= "
          f"{TARGET_VIDEO_S:.1f} s; spec quotes {QUOTED_VIDEO_S[0]:.0f}-{QUOTED_VIDEO_S[1]:.0f} s: "
          f"{QUOTED_VIDEO_S[0] / video_s:.1f}-{QUOTED_VIDEO_S[1] / video_s:.1f}x faster")
    print(f"video, frame_differencing: {diff_s:.3f} s ({diff_cpu:.3f} s CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
