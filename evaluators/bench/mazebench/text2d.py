"""text2d and image2d under ``--protocol mazebench``: MazeBench's prompts, input perturbation, validator and
metrics (https://github.com/Aileen-90/MazeBench, ``runners/text2d_runner.py``, ``runners/image2d_runner.py``,
``core/anti_cheat.py``, ``core/validator.py``, ``core/metrics.py``, ``main.py``), and the trial record that carries
both its verdict and this benchmark's strict one on the same reply.

- Perturbation: ``random.seed(nonce)``; with probability 0.1 it flips 1-3 random interior cells (start and goal
  included: its guard compares a tuple with the JSON lists and never matches). The prompt shows the flipped
  grid; MazeBench grades on the published one. (A private ``random.Random`` here, so threads do not share it.)
- Validator, in order: empty, start, goal, 4-adjacent steps, every cell in bounds and free, no cell twice.
- v1: S = Q = 100, O = 100 * optimal / length (100 when the optimum is 0 moves), A = (S+Q+O)/3,
  total = 0.4 S + 0.3 Q + 0.3 O; O, A and total rounded to 2 places. Invalid: every score 0.
- v2: MazeBench's validator then computes the path similarity with ``set()`` over the JSON shortest path's
  lists, which raises ``TypeError: unhashable type: 'list'`` for every valid path; ``main.py`` catches it and
  records every score 0 with the error. The protocol reproduces that crash and names it
  (``defect: v2_unhashable_crash``); the strict verdict beside it gives the score v2 was meant to give.
- image2d: the picture is of the published maze (the prompt's text names only the size, start and goal).
- A maze file without ``shortest_path`` is read as MazeBench reads it (``.get('shortest_path', [])``): the
  optimum is 0 moves (O = 100) and v2's similarity is 0 without the crash (P = 0, total 80 for any valid path).
- The summary averages ``total`` over the trials whose total is above 0 (``evaluators.bench.mazebench.summary``).
"""

from __future__ import annotations

import hashlib
import itertools
import random
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from maze_envs.core.render import benchmark_picture
from maze_envs.core.replies import read_path
from maze_envs.llm import Asking, Meter, RunStats, ask
from maze_envs.protocols.mazebench.generator import bfs_path
from maze_envs.protocols.mazebench.reading import output_filter

from ..mazes import BenchMaze
from ..scores import score
from ..validate import grade_path

SYSTEM = ("You are a helpful assistant that can help me solve mazes."
          "        横轴为x轴，竖轴为y轴，坐标用（y，x）来表示"
          "        Please output the complete coordinate path list strictly.")
V2_CRASH = "unhashable type: 'list'"
V2_DEFECT = "v2_unhashable_crash"
ZERO = {"total": 0, "S": 0, "Q": 0, "O": 0, "A": 0}


def perturbed_grid(grid: Sequence[Sequence[int]], nonce: int) -> list[list[int]]:
    """Return the grid MazeBench's prompt shows for a maze with ``nonce`` (``AntiCheat.perturb_input``).
    Raises ``ValueError`` as MazeBench does when a flip is drawn on a grid under 3x3."""
    draw = random.Random(nonce)
    shown = [list(map(int, row)) for row in grid]
    if draw.random() < 0.1:
        height, width = len(shown), len(shown[0])
        for _ in range(draw.randint(1, 3)):
            r = draw.randint(1, height - 2)
            c = draw.randint(1, width - 2)
            shown[r][c] = 1 - shown[r][c]
    return shown


def messages(grid: list[list[int]], start: Sequence[int], goal: Sequence[int],
             mode: str = "text2d") -> list[dict[str, str]]:
    """Return MazeBench's chat messages for the shown ``grid``: text2d prints it as a Python list of lists;
    image2d names only its size (the picture goes with the last user message)."""
    ends = f"起点{list(map(int, start))}，终点{list(map(int, goal))}。"
    if mode == "image2d":
        user = (f"请根据图片中的迷宫，从绿色起点到红色终点输出坐标路径列表。白色单元格为通路，黑色为墙壁。"
                f"迷宫尺寸为{len(grid)}x{len(grid[0])}。{ends}")
    else:
        user = f"迷宫大小 {len(grid)}x{len(grid[0])}。迷宫为{grid}。0为通路,1为墙壁。{ends}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


MESSAGES = {
    "en": {"empty": "Path is empty", "start": "Path start incorrect, expected {0}, got {1}",
           "goal": "Path goal incorrect, expected {0}, got {1}", "jump": "Path disconnected: {0} -> {1}",
           "bounds": "Path point out of bounds: {0}", "wall": "Path point is a wall: {0}",
           "twice": "Path has duplicate point: {0}"},
    "zh": {"empty": "路径为空", "start": "路径起点不正确，期望{0}，实际{1}", "goal": "路径终点不正确，期望{0}，实际{1}",
           "jump": "路径不连通：{0} -> {1}", "bounds": "路径点超出网格范围：{0}", "wall": "路径点为墙壁：{0}",
           "twice": "路径存在重复点：{0}"},
}


def validate(grid: np.ndarray, start: Sequence[int], goal: Sequence[int], shortest: Sequence[Sequence[int]],
             path: Sequence[Sequence[int]], language: str = "en") -> dict[str, Any]:
    """Return MazeBench's validation dict of ``path``: ``ok`` and ``error`` (its messages: ``en`` as in the
    validator that computes the path similarity, ``zh`` as in the one before it), and for a valid path
    ``path_length``, ``optimal_length`` (moves) and ``efficiency``."""
    say = MESSAGES[language]
    start, goal = tuple(start), tuple(goal)
    cells = [tuple(p) for p in path]
    if not cells:
        return {"ok": False, "error": say["empty"]}
    if cells[0] != start:
        return {"ok": False, "error": say["start"].format(start, cells[0])}
    if cells[-1] != goal:
        return {"ok": False, "error": say["goal"].format(goal, cells[-1])}
    for a, b in itertools.pairwise(cells):
        if abs(b[0] - a[0]) + abs(b[1] - a[1]) != 1:
            return {"ok": False, "error": say["jump"].format(a, b)}
    height, width = grid.shape
    for cell in cells:
        if not (0 <= cell[0] < height and 0 <= cell[1] < width):
            return {"ok": False, "error": say["bounds"].format(cell)}
        if grid[cell] != 0:
            return {"ok": False, "error": say["wall"].format(cell)}
    seen: set = set()
    for cell in cells:
        if cell in seen:
            return {"ok": False, "error": say["twice"].format(cell)}
        seen.add(cell)
    length = len(cells) - 1
    optimal = len(shortest) - 1 if shortest else 0
    return {"ok": True, "path_length": length, "optimal_length": optimal,
            "efficiency": optimal / length if length > 0 else 0, "error": None}


def metrics_v1(validation: dict[str, Any]) -> dict[str, Any]:
    """Return MazeBench's v1 scores of a validation dict (O, A and total rounded to 2 places)."""
    if not validation.get("ok"):
        return dict(ZERO)
    length, optimal = validation["path_length"], validation["optimal_length"]
    o = min(100, max(0, 100 * (optimal / length))) if optimal > 0 else 100
    return {"total": round(0.4 * 100 + 0.3 * 100 + 0.3 * o, 2), "S": 100, "Q": 100, "O": round(o, 2),
            "A": round((100 + 100 + o) / 3, 2)}


def mazebench_scores(maze: BenchMaze, path: Sequence[Sequence[int]], scoring: str) -> dict[str, Any]:
    """Return what MazeBench records for ``path`` on the published ``maze`` under ``scoring``: ``scores``,
    ``validation`` and, where its v2 crashes, ``error`` and ``defect``."""
    validation = validate(maze.grid, maze.start, maze.goal, maze.shortest_path, path,
                          "en" if scoring == "v2" else "zh")
    if scoring == "v2" and validation["ok"]:
        if maze.shortest_path:  # set() of the file's [row, col] lists
            return {"scores": dict(ZERO), "validation": {"ok": False, "error": None}, "error": V2_CRASH,
                    "defect": V2_DEFECT}
        validation["path_similarity"] = 0.0  # no stored path: nothing in common
        return {"scores": metrics_v2(validation), "validation": validation}
    return {"scores": metrics_v1(validation), "validation": validation}


def metrics_v2(validation: dict[str, Any]) -> dict[str, Any]:
    """Return MazeBench's v2 scores of a validation dict with ``path_similarity`` (O, P, A and total rounded to 2
    places): total = 0.3 S + 0.25 Q + 0.25 O + 0.2 P."""
    if not validation.get("ok"):
        return {**ZERO, "P": 0}
    length, optimal = validation["path_length"], validation["optimal_length"]
    o = min(100, max(0, 100 * (optimal / length))) if optimal > 0 else 100
    p = min(100, max(0, 100 * validation["path_similarity"]))
    return {"total": round(0.3 * 100 + 0.25 * 100 + 0.25 * o + 0.2 * p, 2), "S": 100, "Q": 100, "O": round(o, 2),
            "P": round(p, 2), "A": round((100 + 100 + o + p) / 4, 2)}


def strict_shortest(shown: np.ndarray, maze: BenchMaze) -> list[tuple[int, int]]:
    """Return the shortest path this benchmark grades against on the grid shown: the file's when the grid is the
    published one and the file's path is a shortest one, else a BFS path."""
    best = bfs_path(shown, maze.start, maze.goal)
    stored = list(maze.shortest_path)
    return stored if np.array_equal(shown, maze.grid) and len(stored) == len(best) else best


def strict_verdict(reply: str, shown: np.ndarray, maze: BenchMaze, scoring: str) -> dict[str, Any]:
    """Return this benchmark's default reading of ``reply`` (its reader, validator and scores) on the grid the
    model was shown (its own BFS path when the perturbation changed the grid)."""
    reading = read_path(reply, "strict")
    path = reading.cells
    shortest = strict_shortest(shown, maze)
    verdict = grade_path(shown, maze.start, maze.goal, path, shortest)
    return {"parsed_path": [list(c) for c in path], "reading": reading.to_dict(), "validation": verdict.to_dict(),
            "success": verdict.valid,
            "scores": score(verdict, path, shortest, scoring).to_dict()}


def mazebench_one_shot_trial(meter: Meter, maze: BenchMaze, *, scoring: str, params: dict[str, Any],
                             mode: str = "text2d", cell_px: int = 24) -> Asking[dict[str, Any]]:
    """Return the steps of one text2d (or image2d) trial under ``--protocol mazebench``: one question, then the
    record (``meter`` prices the reply): MazeBench's prompt and verdict (``scores``, ``success``, ``validation``,
    ``parsed_path`` as MazeBench reads the reply) and, under ``strict``, this benchmark's verdict on the same
    reply. image2d sends MazeBench's picture of the published maze (``cell_px`` a cell) with a prompt naming the
    size, start and goal. Raise a failed call's error."""
    shown_grid = perturbed_grid(maze.grid, maze.nonce)
    prompt = messages(shown_grid, maze.start, maze.goal, mode)
    images = [benchmark_picture(maze.layout, cell_px)] if mode == "image2d" else []
    if mode == "image2d":
        shown_grid = maze.grid.tolist()      # the picture shows the published maze
    began = time.perf_counter()
    reply = yield ask(prompt, images=images, **params)
    latency = time.perf_counter() - began
    read = read_path(reply.text, "mazebench")
    verdict = mazebench_scores(maze, read.cells, scoring)
    shown = np.asarray(shown_grid, dtype=np.uint8)
    usage = RunStats()
    usage.add(reply, meter.config)
    return {
        "prompt_sha256": hashlib.sha256(repr(prompt).encode("utf-8")).hexdigest(),
        "perturbed": not np.array_equal(shown, maze.grid),
        "raw_reply": reply.text,
        "filtered_reply": output_filter(reply.text),
        "parse_form": read.form,
        "reading": read.to_dict(),
        "parsed_path": [list(c) for c in read.cells],
        "published_path": [list(c) for c in read.cells],
        "validation": verdict["validation"],
        "success": bool(verdict["validation"].get("ok")),
        "scores": {"scoring": f"mazebench-{scoring}", **verdict["scores"]},
        **({"error_text": verdict["error"], "defect": verdict["defect"]} if "defect" in verdict else {}),
        "strict": strict_verdict(reply.text, shown, maze, scoring),
        "api_calls": 1,
        "invalid_outputs": 0 if read.cells else 1,
        "usage": usage.to_dict(),
        "latency_s": round(latency, 4),
        "cached": reply.cached,
        "local_server": reply.local_server,
    }
