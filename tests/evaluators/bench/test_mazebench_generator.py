"""``generate text --protocol mazebench`` writes MazeBench's generator's files byte for byte.

The expected mazes come from a second, independent reading of MazeBench's ``core/generator.py`` written here
in another shape (a recursive backtracker, a BFS over a visited grid), so the module and the test would have
to misread the reference the same way twice to agree on a wrong grid. A few grids are also pinned as text.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import deque

import numpy as np
import pytest

from maze_envs.core.errors import MazeConfigError
from maze_envs.datasets import generate_text_mazes
from maze_envs.evaluators.bench.mazes import bench_mazes
from maze_envs.protocols.mazebench.generator import mazebench_maze

SIZES = ((5, 5), (9, 9), (10, 10), (15, 15), (8, 12))
CASES = [(h, w, algorithm, start_goal) for h, w in SIZES for algorithm in ("dfs", "prim")
         for start_goal in ("corner", "random")]
PER_CASE = 3     # 5 sizes x 2 algorithms x 2 placements x 3 = 60 mazes


def expected_maze(h: int, w: int, seed: int, algorithm: str, start_goal: str) -> dict:
    """MazeBench's generator as read from its code: the same draws in the same order."""
    rng = np.random.default_rng(seed)
    if start_goal == "random":
        start = [int(rng.integers(0, h)), int(rng.integers(0, w))]
        goal = start
        while goal == start:
            goal = [int(rng.integers(0, h)), int(rng.integers(0, w))]
    else:
        start, goal = [0, 0], [h - 1, w - 1]
    start = [start[0] // 2 * 2, start[1] // 2 * 2]
    goal = [goal[0] // 2 * 2, goal[1] // 2 * 2]
    grid = [[1] * w for _ in range(h)]
    steps = [(2, 0), (-2, 0), (0, 2), (0, -2)]
    def inside(r, c):
        return 0 <= r < h and 0 <= c < w
    if algorithm == "dfs":
        seen = {(0, 0)}
        grid[0][0] = 0

        def visit(r: int, c: int) -> None:
            while True:
                fresh = [(dr, dc) for dr, dc in steps if inside(r + dr, c + dc) and (r + dr, c + dc) not in seen]
                if not fresh:
                    return
                dr, dc = fresh[int(rng.integers(0, len(fresh)))]
                grid[r + dr // 2][c + dc // 2] = 0
                grid[r + dr][c + dc] = 0
                seen.add((r + dr, c + dc))
                visit(r + dr, c + dc)
        visit(0, 0)
    else:
        root = tuple(start)
        tree = {root}
        grid[root[0]][root[1]] = 0
        frontier = set()
        for dr, dc in steps:
            if inside(root[0] + dr, root[1] + dc):
                frontier.add((root[0] + dr, root[1] + dc))
        while frontier:
            cell = list(frontier)[int(rng.integers(0, len(frontier)))]
            frontier.discard(cell)
            links = [(dr, dc) for dr, dc in steps if (cell[0] + dr, cell[1] + dc) in tree]
            dr, dc = links[int(rng.integers(0, len(links)))]
            grid[cell[0] + dr // 2][cell[1] + dc // 2] = 0
            grid[cell[0]][cell[1]] = 0
            tree.add(cell)
            for dr, dc in steps:
                nxt = (cell[0] + dr, cell[1] + dc)
                if inside(*nxt) and nxt not in tree and nxt not in frontier:
                    frontier.add(nxt)
    grid[start[0]][start[1]] = 0
    grid[goal[0]][goal[1]] = 0
    came = {tuple(start): None}
    queue = deque([tuple(start)])
    while queue:
        here = queue.popleft()
        if here == tuple(goal):
            break
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nxt = (here[0] + dr, here[1] + dc)
            if inside(*nxt) and grid[nxt[0]][nxt[1]] == 0 and nxt not in came:
                came[nxt] = here
                queue.append(nxt)
    path, cell = [], tuple(goal)
    while cell is not None:
        path.insert(0, list(cell))
        cell = came[cell]
    return {"width": w, "height": h, "grid": grid, "start": start, "goal": goal, "shortest_path": path,
            "nonce": seed}


def test_sixty_mazes_match_mazebench_byte_for_byte(tmp_path):
    base = 42
    for h, w, algorithm, start_goal in CASES:
        out = tmp_path / f"{h}x{w}-{algorithm}-{start_goal}"
        summary = generate_text_mazes([f"{h}x{w}"], PER_CASE, base, out, algorithm=algorithm,
                                      placement=start_goal, protocol="mazebench")
        assert summary.written == PER_CASE
        for i in range(PER_CASE):
            path = out / f"{h}x{w}" / f"maze_{h}x{w}_{i}.json"
            expected = expected_maze(h, w, base + i, algorithm, start_goal)
            assert path.read_bytes() == json.dumps(expected, ensure_ascii=False, indent=2).encode("utf-8"), \
                (h, w, algorithm, start_goal, i)
        # the benchmark reads MazeBench's files as they are (uncarved last row/column, even-snapped ends)
        loaded = bench_mazes(out, f"{h}x{w}")
        assert [m.name for m in loaded] == [f"maze_{h}x{w}_{i}" for i in range(PER_CASE)]


def test_even_sizes_keep_the_last_row_and_column_uncarved_and_snap_the_goal():
    maze = mazebench_maze(10, 10, 7, algorithm="prim")
    grid = np.array(maze["grid"])
    assert maze["goal"] == (8, 8) and maze["start"] == (0, 0)
    assert (grid[9] == 1).all() and (grid[:, 9] == 1).all()
    assert maze["shortest_path"][0] == (0, 0) and maze["shortest_path"][-1] == (8, 8)
    # a perfect maze on the 5x5 lattice: 25 cells and 24 passages open
    assert int((grid == 0).sum()) == 25 + 24


def test_dfs_starts_at_the_corner_whatever_the_start():
    maze = mazebench_maze(9, 9, 3, algorithm="dfs", start_goal="random")
    rows = ["".join("#" if v else "." for v in row) for row in maze["grid"]]
    assert rows[0][0] == "."
    assert maze["start"][0] % 2 == 0 and maze["start"][1] % 2 == 0
    assert maze == {**maze, "nonce": 3}


def test_pinned_grids():
    """Two grids written out, so a change of the generator shows as a diff of walls."""
    def rows(m):
        return ["".join("#" if v else "." for v in row) for row in m["grid"]]
    small = mazebench_maze(5, 5, 42)
    assert rows(small) == [".#...", ".#.#.", "...#.", "####.", "....."]
    assert (small["start"], small["goal"]) == ((0, 0), (4, 4))
    wide = mazebench_maze(8, 12, 1, algorithm="prim", start_goal="random")
    assert rows(wide) == ["...#.....#.#", "##.###.###.#", ".#.......#.#", ".#.#.#.#.#.#", "...#.#.#...#",
                          ".###.#.#####", ".#...#.....#", "############"]
    assert (wide["start"], wide["goal"]) == ((2, 6), (6, 10))


def test_random_ends_may_coincide_after_snapping():
    same = [seed for seed in range(200) if (m := mazebench_maze(5, 5, seed, start_goal="random"))["start"] == m["goal"]]
    assert same, "MazeBench snaps start and goal after drawing them distinct, so some seeds give one cell"
    maze = mazebench_maze(5, 5, same[0], start_goal="random")
    assert maze["shortest_path"] == [maze["start"]]


def test_bad_options_are_named(tmp_path):
    with pytest.raises(MazeConfigError, match="algorithm"):
        generate_text_mazes(["9x9"], 1, 0, tmp_path, algorithm="wilson", protocol="mazebench")
    with pytest.raises(MazeConfigError, match="start_goal"):
        generate_text_mazes(["9x9"], 1, 0, tmp_path, placement="far", protocol="mazebench")
    with pytest.raises(MazeConfigError, match="protocol"):
        generate_text_mazes(["9x9"], 1, 0, tmp_path, protocol="abot")


def test_cli_writes_mazebench_files(tmp_path):
    out = tmp_path / "mazes"
    run = subprocess.run([sys.executable, "-m", "maze_envs", "generate", "text", "--protocol", "mazebench",
                          "--algorithm", "prim", "--start-goal", "random", "--sizes", "8x12", "--count", "2",
                          "--seed", "5", "--out", str(out)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    for i in range(2):
        text = (out / "8x12" / f"maze_8x12_{i}.json").read_text(encoding="utf-8")
        assert text == json.dumps(expected_maze(8, 12, 5 + i, "prim", "random"), indent=2)


def test_bench_generates_mazebench_s_mazes_under_the_protocol(tmp_path):
    from maze_envs.evaluators.bench.config import resolve_config
    from maze_envs.evaluators.bench.mazes import prepare_mazes

    config = resolve_config({"protocol": "mazebench", "models": ["m"], "sizes": ["9x9"], "generate_mazes": True,
                             "maze_count": 2, "seed": 7, "mazes_dir": str(tmp_path / "mazes")}, environ={})
    mazes = prepare_mazes(config)["9x9"]
    assert [m.nonce for m in mazes] == [7, 8]
    text = (tmp_path / "mazes" / "9x9" / "maze_9x9_1.json").read_text(encoding="utf-8")
    assert text == json.dumps(expected_maze(9, 9, 8, "dfs", "corner"), indent=2)
