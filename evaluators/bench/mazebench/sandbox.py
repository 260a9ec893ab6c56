"""MazeBench's sandbox reproduced for ``--protocol mazebench`` (https://github.com/Aileen-90/MazeBench,
``sandbox/env.py``, ``sandbox/ai.py``, ``sandbox/partial_observe.py``, ``sandbox/exploration.py``).

One grid engine: the agent moves on ``Maze-v0`` under ``protocol="mazebench"``, the partial view is the grid
envs' line of sight (``maze_envs.envs.grid.visibility``) and the no-exploration counter their ``visited`` rule;
this module keeps MazeBench's presentation. ``MazeBenchEnv`` gives the answers of its ``MazeEnvironment``:
``step`` (a wall or the edge changes nothing, ``steps`` counts cells, after the goal every call answers ``Game
ended``), the atomic ``step_path`` (each point checked for adjacency, bounds and wall before anything moves; only
the LAST point reaching the goal ends the game, so a path through the goal walks past it),
``available_actions`` (moves into free in-bounds cells, [] after the goal) and its renderings. ``run_sandbox``
plays its two model loops, ai and partial-observe:

- ``max_steps`` counts API calls; each loop turn makes one call, then checks the exploration rule (20 calls
  in a row without a new cell by default) before reading the reply, so a failing episode costs one call more;
- replies are read by the reader's ``mazebench-sandbox`` rule: ai, every ``(d, d)`` pair is the path (a first
  one equal to the position dropped), else exactly up/down/left/right; partial, spaced moves first, then
  joined, no cap at k (``maze_envs.protocols.mazebench.reading``); a reply it cannot read is
  a parse error that moves nothing and leaves the exploration counter alone;
- a call whose action failed adds 1 to the counter (ai) or 2 (partial, when nothing moved); a call reaching a
  new cell resets it;
- partial moves run in order as repeated steps; the first collision keeps the progress made and drops the rest;
- a model call that fails (any error but one that stops the run: a rejected key, an unreachable endpoint) ends
  the episode as failed with the label ``ai_decision_error``, its steps and calls kept;
- the stop label (``error``) is otherwise ``max_steps_exceeded`` when the CELLS moved reach the CALL budget, else
  ``exploration_failed`` when that rule ended it, else ``unknown``; ``success`` = goal reached and the
  exploration rule not failed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from maze_envs.core.errors import FatalRunError
from maze_envs.core.maze import MOVE_NAMES, Grid, move_index
from maze_envs.core.replies import read_move, read_moves, read_path
from maze_envs.envs.grid.rules import idle_after_visit
from maze_envs.envs.grid.visibility import visible_mask
from maze_envs.llm import Asking, ask

from ..episode import bench_env
from ..mazes import BenchMaze

Cell = tuple[int, int]
MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
RULE = "mazebench-sandbox"
DECISION_ERROR = "ai_decision_error"
SANDBOX_SYMBOLS = {"wall": "█", "path": " ", "start": "S", "goal": "G", "agent": "A", "masked": "?"}
RENDER_SYMBOLS = {"wall": "#", "path": " ", "start": "S", "goal": "G", "agent": "A", "masked": "?"}


class MazeBenchEnv:
    """MazeBench's ``MazeEnvironment`` on one benchmark maze, played on ``Maze-v0`` under ``protocol="mazebench"``
    (``episode.bench_env``): the env moves the agent; this class gives MazeBench's answers, ``position``, ``done``
    and ``steps`` (cells moved)."""

    def __init__(self, maze: BenchMaze):
        self.maze = maze
        self.grid = np.asarray(maze.grid)
        self.env = bench_env("ai", self.grid, maze.start, maze.goal).unwrapped
        self.env.reset(seed=0)
        self.layout: Grid = self.env.layout
        self.reset()

    def reset(self) -> dict[str, Any]:
        """Go back to the start; return the state."""
        self._restart(tuple(self.maze.start))
        self.done = False
        self.steps = 0
        return self.state()

    def _restart(self, cell: Cell) -> None:
        """Start the env's episode with the agent on ``cell``."""
        _, info = self.env.reset(seed=0, options={"maze": replace(self.layout, start=cell)})
        self.position: Cell = tuple(info["position"])

    def state(self) -> dict[str, Any]:
        """Return ``{position, done, steps}``."""
        return {"position": list(self.position), "done": self.done, "steps": self.steps}

    def _inside(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.grid.shape[0] and 0 <= cell[1] < self.grid.shape[1]

    def _move(self, action: str) -> bool:
        """Play one move on the env; return whether the agent moved."""
        _, _, _, _, info = self.env.step(MOVE_NAMES.index(action))
        moved = tuple(info["position"]) != self.position
        self.position = tuple(info["position"])
        return moved

    def step(self, action: str) -> dict[str, Any]:
        """Play one move; return MazeBench's info dict (``error``, ``success``/``position`` or ``message``)."""
        if self.done:
            return {"info": "Game ended"}
        if action not in MOVES:
            return {"error": f"Invalid action: {action}", "valid_actions": list(MOVES)}
        dr, dc = MOVES[action]
        if not self._move(action):
            outside = not self._inside((self.position[0] + dr, self.position[1] + dc))
            return {"error": f"Wall collision: {'out of bounds' if outside else 'hit wall'}",
                    "position": list(self.position)}
        self.steps += 1
        if self.position == tuple(self.maze.goal):
            self.done = True
            return {"success": True, "message": f"Congratulations! Reached goal in {self.steps} steps"}
        return {"success": True, "position": list(self.position)}

    def step_path(self, path: Sequence[Cell]) -> dict[str, Any]:
        """Walk ``path`` atomically: the first bad point fails the call and nothing moves; return the info. Only
        the last point reaching the goal ends the game: a path through the goal walks on past it (the env, which
        ends its episode at the goal, starts again where the path ends)."""
        if self.done:
            return {"info": "Game ended"}
        if not path:
            return {"error": "Path is empty"}
        here = self.position
        for cell in path:
            cell = tuple(cell)
            if abs(cell[0] - here[0]) + abs(cell[1] - here[1]) != 1:
                return {"error": f"Invalid jump: {here} to {cell} is not adjacent", "position": list(self.position)}
            if not self._inside(cell):
                return {"error": f"Wall collision: position {cell} out of bounds", "position": list(self.position)}
            if self.grid[cell] == 1:
                return {"error": f"Wall collision: position {cell} is a wall", "position": list(self.position)}
            here = cell
        goal = tuple(self.maze.goal)
        for cell in path:
            if self.position == goal:  # the env's episode has ended at the goal
                break
            self._move(MOVE_NAMES[move_index(self.position, tuple(cell))])
        if self.position != here:
            self._restart(here)
        self.steps += len(path)
        if here == goal:
            self.done = True
            return {"success": True, "message": f"Congratulations! Reached goal in {self.steps} steps",
                    "steps_moved": len(path)}
        return {"success": True, "position": list(here), "steps_moved": len(path)}

    def available_actions(self) -> list[str]:
        """Return the moves into free in-bounds cells, in the order up, down, left, right ([] after the goal)."""
        if self.done:
            return []
        return [name for name, (dr, dc) in MOVES.items()
                if self._inside(cell := (self.position[0] + dr, self.position[1] + dc)) and self.grid[cell] == 0]

    def info(self) -> dict[str, Any]:
        """Return MazeBench's ``get_info()``: size, start, goal, current position, steps, done, actions."""
        return {"size": f"{self.grid.shape[0]}x{self.grid.shape[1]}", "start": list(self.maze.start),
                "goal": list(self.maze.goal), "current_position": list(self.position), "steps": self.steps,
                "done": self.done, "available_actions": self.available_actions()}

    def render_ascii(self, *, show_path: bool = False) -> str:
        """Return MazeBench's ``render_ascii``: ``#`` walls, ``*`` on the shortest path under start, goal and
        agent marks (agent first, then start, goal, path, wall)."""
        route = {tuple(c) for c in self.maze.shortest_path} if show_path else set()
        lines = []
        for r in range(self.grid.shape[0]):
            line = ""
            for c in range(self.grid.shape[1]):
                cell = (r, c)
                if cell == self.position:
                    line += RENDER_SYMBOLS["agent"]
                elif cell == tuple(self.maze.start):
                    line += RENDER_SYMBOLS["start"]
                elif cell == tuple(self.maze.goal):
                    line += RENDER_SYMBOLS["goal"]
                elif cell in route:
                    line += "*"
                else:
                    line += RENDER_SYMBOLS["wall"] if self.grid[cell] == 1 else RENDER_SYMBOLS["path"]
            lines.append(line)
        return "\n".join(lines)

    def render_tensor(self, symbols: dict[str, str]) -> np.ndarray:
        """Return the symbol array of the whole maze (walls, then start, goal and the agent on top)."""
        tensor = np.full(self.grid.shape, symbols["path"], dtype="<U10")
        tensor[self.grid == 1] = symbols["wall"]
        tensor[tuple(self.maze.start)] = symbols["start"]
        tensor[tuple(self.maze.goal)] = symbols["goal"]
        tensor[self.position] = symbols["agent"]
        return tensor


def partial_view(env: MazeBenchEnv, k: int, symbols: dict[str, str]) -> str:
    """Return MazeBench's partial view: the bounding box of the visible cells (the grid envs' line of sight,
    ``maze_envs.envs.grid.visibility``: Manhattan <= k, no wall on the Bresenham line between), cells inside it
    that are not visible masked, rows joined."""
    visible = visible_mask(env.grid, env.position, k)
    rows, cols = np.nonzero(visible)
    box = (slice(rows.min(), rows.max() + 1), slice(cols.min(), cols.max() + 1))
    shown = np.where(visible[box], env.render_tensor(symbols)[box], symbols["masked"])
    return "\n".join("".join(row) for row in shown)


class ExplorationTracker:
    """MazeBench's no-exploration counter, by the grid envs' ``visited`` rule
    (``maze_envs.envs.grid.rules.idle_after_visit``), and its explored set."""

    def __init__(self, start: Cell, limit: int):
        self.explored = {tuple(start)}
        self.limit = limit
        self.count = 0

    def update(self, cells: Sequence[Cell], failed: bool = False) -> bool:
        """Add the ``cells`` one call reached; reset the counter when one is new, else add 1, and 1 more when the
        call ``failed`` without moving. Return whether one was new."""
        fresh = {tuple(cell) for cell in cells} - self.explored
        self.explored |= fresh
        self.count = idle_after_visit(self.count, bool(fresh), failed)
        return bool(fresh)

    def should_fail(self) -> bool:
        """Return whether the counter has reached the limit."""
        return self.count >= self.limit

    def rate(self, grid: np.ndarray) -> float:
        """Return explored free cells / free cells (full precision)."""
        free = int((grid == 0).sum())
        explored = sum(1 for r, c in self.explored
                       if 0 <= r < grid.shape[0] and 0 <= c < grid.shape[1] and grid[r, c] == 0)
        return explored / free if free else 0.0


def _memory(entries: list[dict[str, str]], memory: int) -> str:
    if memory == 0 or not entries:
        return ""
    shown = entries if memory == -1 else entries[-memory:]
    return "Recent action history: " + ", ".join(
        f"Step {i + 1}: {e['action']} ({e['feedback']})" for i, e in enumerate(shown)) + ". "


def ai_prompt(env: MazeBenchEnv, memory: str, symbols: dict[str, str]) -> str:
    """Return MazeBench's ai prompt (the maze as ``str()`` of its numpy symbol array, as it sends it)."""
    here, goal = tuple(env.position), tuple(env.maze.goal)
    return (f"You are a maze expert and need to navigate yourself to the goal. Current position A{here}, goal {goal}.\n"
            "Coordinate format: All coordinates use (y, x) format, where y is the row number and x is the column "
            "number.\n\nYou can:\nOutput path coordinates: e.g., (1,2),(1,3),(2,3) - coordinate format is (y,x)\n"
            "Note: Please start outputting from the next position's coordinate, do not output coordinates that "
            "duplicate the current position, and the output coordinates must be adjacent\n"
            "Hint: First confirm your current position, then you can move to a safe position first, and then plan "
            f"the next steps\nMaze layout:\n{env.render_tensor(symbols)}\nSymbol legend:\n"
            f"- {symbols['wall']}: Wall, cannot pass through\n- {symbols['path']}: Path, can pass through\n"
            f"- {symbols['start']}: Start position (you have left)\n"
            f"- {symbols['goal']}: Goal position (target location)\n"
            f"- {symbols['agent']}: Current position (your location)\n{memory}"
            "Please reply with the path coordinate sequence:\n")


def partial_prompt(env: MazeBenchEnv, k: int, memory: str, symbols: dict[str, str]) -> str:
    """Return MazeBench's partial-observe prompt (no coordinates)."""
    return (f"You are a maze expert and need to navigate yourself to the goal. You can only see the surrounding {k} "
            "cells, and your vision cannot pass through walls. You do not know your current coordinates or the "
            "goal coordinates.\n\nYou can move by specifying direction and steps:\n"
            "- Direction: up, down, left, or right\n"
            f"- Steps: a number between 1 and {k} (inclusive)\n"
            '- Format: "direction steps", e.g., "up 3" or "right 2"\n'
            '- You can specify multiple moves separated by commas, e.g., "up 3, right 2"\n\n'
            f"Visible maze layout (you are at position A):\n{partial_view(env, k, symbols)}\nSymbol legend:\n"
            f"- {symbols['wall']}: Wall, cannot pass through\n- {symbols['path']}: Path, can pass through\n"
            f"- {symbols['start']}: Start position (you have left)\n"
            f"- {symbols['goal']}: Goal position (target location)\n"
            f"- {symbols['agent']}: Current position (your location)\n"
            f"- {symbols['masked']}: Unknown area (not visible)\n"
            f"{memory}\n"
            'Please reply with your move(s) in the format "direction steps" (e.g., "up 3" or "right 2, down 1"):\n')


@dataclass
class SandboxResult:
    """What one MazeBench sandbox episode reports (its result file's fields)."""

    success: bool = False
    steps: int = 0
    path: list[list[int]] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    error: str | None = None
    api_calls: int = 0
    wall_collisions: int = 0
    invalid_jumps: int = 0
    parse_errors: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    explored_area: int = 0
    exploration_rate: float = 0.0
    exploration_failed: bool = False
    total_reachable: int = 0
    walk: list[list[int]] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Return the result as a JSON-ready dict (``error_count`` and ``total_steps`` added as MazeBench's)."""
        out = {k: v for k, v in self.__dict__.items()}
        out["error_count"] = len(self.errors)
        out["total_steps"] = len(self.path)
        return out


def _classify(feedback: str, result: SandboxResult, *, partial: bool) -> str:
    lower = feedback.lower()
    if "墙" in feedback or "wall" in lower:
        result.wall_collisions += 1
        return "wall_collision"
    if "跳步" in feedback or "jump" in lower or "不连续" in feedback:
        result.invalid_jumps += 1
        return "invalid_jump"
    if "超出" in feedback or (partial and "out of bounds" in lower):
        result.wall_collisions += 1
        return "out_of_bounds"
    return ""


def _walk_partial(env: MazeBenchEnv, moves: list[tuple[str, int]]) -> tuple[list[Cell], int, str | None, list[Cell]]:
    """Run partial-observe moves; return (cells given to the tracker, cells moved, last error, cells walked)."""
    tracked: list[Cell] = []
    walked: list[Cell] = []
    moved, error = 0, None
    for direction, steps in moves:
        if env.done:
            break
        tracked.append(env.position)
        done_here = 0
        for _ in range(steps):
            info = env.step(direction)
            if "error" in info:
                error = f"Wall collision after {done_here} steps: {info['error']}"
                break
            done_here += 1
            tracked.append(env.position)
            walked.append(env.position)
            if env.done:
                break
        moved += done_here
        if error or env.done:
            break
    return tracked, moved, error, walked


def run_sandbox(maze: BenchMaze, *, mode: str, params: dict[str, Any], max_steps: int = 50, memory: int = 5,
                visibility: int = 3, max_no_exploration: int = 20, symbols: dict[str, str] | None = None,
                log: list[dict[str, Any]] | None = None) -> Asking[SandboxResult]:
    """Return the steps of one MazeBench sandbox episode of ``mode`` (``ai`` or ``partial-observe``) on ``maze``:
    one question a turn (its prompt, sent with ``params``), each reply with its latency appended to ``log``
    (``{"reply", "latency_s"}``); they return its result. ``walk`` holds every cell entered, start first."""
    symbols = symbols or SANDBOX_SYMBOLS
    partial = mode == "partial-observe"
    env = MazeBenchEnv(maze)
    tracker = ExplorationTracker(env.position, max_no_exploration)
    result = SandboxResult(total_reachable=int((env.grid == 0).sum()), walk=[list(env.position)])
    remembered: list[dict[str, str]] = []
    for turn in range(1, max_steps + 1):
        if env.done:
            break
        here = env.position
        prompt = partial_prompt(env, visibility, _memory(remembered, memory), symbols) if partial else \
            ai_prompt(env, _memory(remembered, memory), symbols)
        result.api_calls += 1
        began = time.perf_counter()
        try:
            answered = yield ask(prompt, **params)
        except FatalRunError:
            raise
        except Exception as exc:  # MazeBench ends the episode as failed, its steps and calls kept
            result.error = DECISION_ERROR
            result.errors.append({"step": turn, "type": DECISION_ERROR,
                                  "error_message": f"{type(exc).__name__}: {exc}"})
            break
        if log is not None:
            log.append({"reply": answered, "latency_s": time.perf_counter() - began})
        reply = answered.text
        result.replies.append(reply)
        if tracker.should_fail():
            break
        response = reply.strip().lower()
        cells, move = [], None
        if partial:
            moves = read_moves(response, RULE).moves
            action = f"Moves: {', '.join(f'{d} {s}' for d, s in moves)}" if moves else None
        else:
            cells = read_path(response, RULE).cells
            if cells and cells[0] == here:
                cells = cells[1:]
            move = None if cells else next((d for d, _ in read_move(response, RULE).moves), None)
            action = f"Path: {cells}" if cells else move
        if action is None:
            remembered.append({"action": response, "feedback": "Invalid output"})
            result.parse_errors += 1
            result.errors.append({"step": turn, "type": "parse_error", "response": response[:100]})
            continue
        if partial:
            tracked, moved, error, walked = _walk_partial(env, moves)
        elif cells:
            info = env.step_path(cells)
            error = info.get("error")
            walked = [] if error else list(cells)
            tracked, moved = [here, *cells], len(walked)
            action = f"Path move: {cells}"
        else:
            info = env.step(move)
            error = info.get("error")
            walked = [] if error else [env.position]
            tracked, moved = [env.position], len(walked)
        result.walk += [list(c) for c in walked]
        if error:
            feedback = error
            kind = _classify(error, result, partial=partial)
            result.errors.append({"step": turn, "type": "action_error", "action": action, "error_message": error,
                                  **({"subtype": kind} if kind else {})})
        elif partial:
            feedback = f"Successfully moved {moved} steps"
        else:
            feedback = f"Successfully moved {moved} steps" if cells else "Successfully moved"
        tracker.update(tracked if partial or not error else [], failed=partial and bool(error) and moved == 0)
        remembered.append({"action": action, "feedback": feedback})
        result.path.append(list(env.position))
        result.actions.append(action)
        if env.done:
            remembered[-1]["feedback"] = "Reached goal"
            break
    result.exploration_failed = tracker.should_fail()
    result.success = env.done and not result.exploration_failed
    if not result.success and result.error != DECISION_ERROR:
        result.error = ("max_steps_exceeded" if env.steps >= max_steps else
                        "exploration_failed" if result.exploration_failed else "unknown")
    result.steps = env.steps
    result.explored_area = sum(1 for cell in tracker.explored if env.grid[cell] == 0)
    result.exploration_rate = tracker.rate(env.grid)
    return result

