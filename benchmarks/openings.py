"""Median time to make one hard labelled-openings sample: a 20x20 puzzle with 6 openings, rendered.

Run: ``python3 benchmarks/openings.py [--samples 200] [--seed 0]``. Prints the median milliseconds
per sample for generation (position balancing included) + rendering (the issue's target: <= 50 ms),
also with the PNG encoding a dataset run adds, and the one-off cost of the first sample.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maze_envs.openings.puzzle import generate_openings  # noqa: E402
from maze_envs.openings.render import OpeningsStyle, render_openings  # noqa: E402

TARGET_MS = 50.0


def main() -> int:
    """Time the samples and print the medians; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200, help="samples to time (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    args = parser.parse_args()
    style = OpeningsStyle()
    t0 = time.perf_counter()
    render_openings(generate_openings(20, 20, 6, args.seed), style)  # font and 20x20 position prior, once
    first = (time.perf_counter() - t0) * 1000
    made, encoded = [], []
    for seed in range(args.seed, args.seed + args.samples):
        t0 = time.perf_counter()
        puzzle = generate_openings(20, 20, 6, seed)
        assert puzzle.difficulty == "hard"
        rendering = render_openings(puzzle, style)
        t1 = time.perf_counter()
        rendering.image.save(io.BytesIO(), format="PNG")
        t2 = time.perf_counter()
        made.append((t1 - t0) * 1000)
        encoded.append((t2 - t0) * 1000)
    gen_render = statistics.median(made)
    print(f"hard 20x20, 6 openings, {args.samples} samples")
    print(f"generate + render:            median {gen_render:6.2f} ms/sample "
          f"(target <= {TARGET_MS:.0f} ms: {'met' if gen_render <= TARGET_MS else 'MISSED'}, "
          f"{TARGET_MS / gen_render:.1f}x under)")
    print(f"generate + render + PNG:      median {statistics.median(encoded):6.2f} ms/sample")
    print(f"first sample (loads the font, builds the size's position prior once): {first:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
