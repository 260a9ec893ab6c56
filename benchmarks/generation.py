"""Time every generator and BFS on 20x20 and 100x100 mazes, side by side with maze-dataset, mazelib and labmaze.

Run: ``python3 benchmarks/generation.py [--repeats N]``. Peers are timed when installed
(``pip install -e ".[bench]"``); ratios are peer time / our time (higher = we are faster), each against our
generator of the same kind (our DFS for DFS-like peers), and the fastest peer against our slowest generator.
``batch_dfs`` (the envs' batched reset path) is timed per maze beside ``generate``. Targets (2-core machine, 100x100):
DFS <= 10 ms, Prim/Kruskal <= 20 ms, Wilson <= 50 ms, BFS <= 5 ms; every generator at least as fast as the fastest peer.

labmaze is DeepMind's C++ level generator (DM Lab); ``RandomMaze`` is timed on the same block grid,
``(2n+1) x (2n+1)``, with ``max_rooms=0`` (its fastest setting: corridors only) and, at 20x20, with its
default 4 rooms. It does not make perfect mazes: its corridors leave open 2x2 areas and loops (a 41x41
grid without rooms has hundreds of independent cycles on its free blocks) and rooms leave about half the
cells wall, so it is a speed reference, not the same output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import fmt_ms, median_seconds  # noqa: E402

from maze_envs.core import GENERATORS, distance_map, generate, shortest_path  # noqa: E402
from maze_envs.core.batch_dfs import batch_dfs, compiled  # noqa: E402


def peers(size: int) -> dict[str, object]:
    """Return peer callables by name (dfs/wilson/backtracking) for the installed peer packages."""
    out: dict[str, object] = {}
    try:
        from maze_dataset import LatticeMazeGenerators

        shape = np.array([size, size])
        out["dfs"] = ("maze-dataset gen_dfs", lambda: LatticeMazeGenerators.gen_dfs(shape))
        if size <= 20 or "--slow-peers" in sys.argv:
            out["wilson"] = ("maze-dataset gen_wilson", lambda: LatticeMazeGenerators.gen_wilson(shape))
    except Exception as exc:  # noqa: BLE001 - a broken peer install must not stop the benchmark
        print(f"(maze-dataset unavailable: {exc.__class__.__name__}: {exc})")
    try:
        from mazelib import Maze as LibMaze
        from mazelib.generate.BacktrackingGenerator import BacktrackingGenerator

        def backtracking() -> None:
            m = LibMaze()
            m.generator = BacktrackingGenerator(size, size)
            m.generate()

        out["dfs-mazelib"] = ("mazelib BacktrackingGenerator", backtracking)
    except Exception as exc:  # noqa: BLE001
        print(f"(mazelib unavailable: {exc.__class__.__name__}: {exc})")
    try:
        import labmaze

        side = 2 * size + 1
        corridors = labmaze.RandomMaze(height=side, width=side, max_rooms=0, random_seed=0)
        out["dfs-labmaze"] = ("labmaze RandomMaze max_rooms=0", corridors.regenerate)
        if size <= 20:
            rooms = labmaze.RandomMaze(height=side, width=side, random_seed=0)
            out["dfs-labmaze-rooms"] = ("labmaze RandomMaze 4 rooms", rooms.regenerate)
    except Exception as exc:  # noqa: BLE001
        print(f"(labmaze unavailable: {exc.__class__.__name__}: {exc})")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7,
                        help="timed runs per measurement; the median is printed (default 7)")
    parser.add_argument("--slow-peers", action="store_true", help="also time maze-dataset Wilson at 100x100 (~5 s)")
    args = parser.parse_args()
    for size in (20, 100):
        print(f"\n== {size}x{size} ==")
        ours = {}
        seeds = iter(range(10_000))
        for name in GENERATORS:
            ours[name] = median_seconds(
                lambda size=size, name=name, seeds=seeds: generate(size, size, name, next(seeds)), args.repeats
            )
            print(f"maze-envs {name:<8} {fmt_ms(ours[name])}")
        rngs = [np.random.default_rng(s) for s in range(16 if size <= 20 else 4)]
        batch = median_seconds(lambda size=size, rngs=rngs: batch_dfs(size, size, rngs), args.repeats) / len(rngs)
        print(f"maze-envs batch_dfs {fmt_ms(batch)} per maze ({len(rngs)} at once; "
              f"{'compiled' if compiled() else 'numpy'}), generate/batch = {ours['dfs'] / batch:5.1f}x")
        maze = generate(size, size, "dfs", 0)
        bfs = median_seconds(lambda maze=maze: distance_map(maze), args.repeats)
        path = median_seconds(lambda maze=maze: shortest_path(maze), args.repeats)
        print(f"maze-envs BFS dist {fmt_ms(bfs)}   shortest_path {fmt_ms(path)}")
        peer_times = {}
        for key, (label, fn) in peers(size).items():
            mine = ours["dfs" if key.startswith("dfs") else key]
            theirs = peer_times[label] = median_seconds(fn, max(1, args.repeats // 2) if size == 100 else args.repeats)
            print(f"{label:<32} {fmt_ms(theirs)}   ratio peer/ours = {theirs / mine:7.1f}x")
        if peer_times:
            label, best = min(peer_times.items(), key=lambda kv: kv[1])
            slowest = max(ours, key=ours.get)
            print(f"fastest peer {label}: our slowest generator ({slowest}) is {best / ours[slowest]:.2f}x as fast")


if __name__ == "__main__":
    main()
