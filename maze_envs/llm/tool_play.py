"""How the local server's policies play the benchmark's ``tools`` mode: a request that offers the maze functions
(``maze_envs.core.maze_tools``) is answered with function calls.

``ToolState.read`` rebuilds what the conversation told the model: the task line (grid size, start, goal), the maze
drawn in the prompt (the ``full`` variant), and every call's JSON result (positions, distances to the walls, the
line-of-sight windows of the ``partial`` variant) as a map of known blocks. The policies then answer from it:

- ``oracle``: the shortest path on the drawn maze (full), or an optimistic shortest path to the goal with unknown
  blocks counted as free, cut before the first unknown one (partial); each straight run of it is one ``move``
  call, all in one reply (parallel calls, played in order);
- ``explorer``: ignores the drawing; walks to the goal once known blocks connect to it, else depth-first to the
  most recently discovered frontier block, one ``move`` per run;
- ``random``: one ``move`` of one step in a uniformly drawn direction, seeded by the conversation itself (the same
  conversation gets the same call).

When a result says the episode is over, a policy calls ``submit`` if the request offers it (Inspect's agents do),
else it answers in text.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from maze_envs.core.errors import MazeFormatError
from maze_envs.core.explore import explore_route
from maze_envs.core.maze import MOVE_NAMES, MOVES, Cell
from maze_envs.core.maze_tools import MOVE, START_REPORT, TOOL_SYMBOLS, TaskLine, ToolCall
from maze_envs.core.textmaze import TextMaze, legend_symbols, next_route, parse_text_maze, plan_path, route_runs

from .server import ChatRequest, PolicyReply

SUBMIT = "submit"
MAX_CELLS = 1 << 20  # the largest grid a policy plays (a 1024 x 1024 grid); larger task lines are not played
FREE_SYMBOLS = {TOOL_SYMBOLS.path, TOOL_SYMBOLS.start, TOOL_SYMBOLS.goal, TOOL_SYMBOLS.agent}


@dataclass
class ToolState:
    """What a ``tools`` conversation told the model: the ``task`` line, the ``drawn`` maze (full variant; None when
    the prompt draws none), the ``known``/``free`` block masks gathered from the results (``order``: the result
    that first showed each block, for depth-first exploration), where the agent is, whether the episode is
    ``done``, the step limit of ``move`` and the functions offered."""

    task: TaskLine
    drawn: TextMaze | None
    known: np.ndarray
    free: np.ndarray
    order: np.ndarray
    position: Cell
    done: bool
    max_steps: int
    tools: tuple[str, ...]

    @classmethod
    def read(cls, request: ChatRequest) -> "ToolState | None":
        """Return the state of a request that offers ``move`` and states a task line (a grid of at most
        ``MAX_CELLS`` with its start and goal inside), else None. The maze drawing is read from the message that
        states the task line, at most its last ``ORACLE_MAX_CHARS`` characters."""
        if MOVE not in request.tool_names:
            return None
        prompt = next((t for t in (_text(m) for m in request.messages if m.get("role") in ("system", "user"))
                       if TaskLine.find(t) is not None), None)
        task = TaskLine.find(prompt) if prompt is not None else None
        if task is None or task.shape[0] * task.shape[1] > MAX_CELLS or not all(
                0 <= cell[0] < task.shape[0] and 0 <= cell[1] < task.shape[1] for cell in (task.start, task.goal)):
            return None
        from .policies import ORACLE_MAX_CHARS, last_lines  # policies answers tool requests through this module

        text = last_lines(prompt, ORACLE_MAX_CHARS)
        try:
            drawn = parse_text_maze(text, legend_symbols(text, TOOL_SYMBOLS))
        except MazeFormatError:
            drawn = None
        if drawn is not None and drawn.blocks.shape != task.shape:
            drawn = None
        known = np.zeros(task.shape, dtype=bool)
        free = np.zeros(task.shape, dtype=bool)
        order = np.full(task.shape, -1, dtype=np.int64)
        state = cls(task, drawn, known, free, order, task.start, False, _max_steps(request, max(task.shape)),
                    request.tool_names)
        state._see(task.start, True, 0)
        for index, result in enumerate(_results(request, prompt), start=1):
            state._learn(result, index)
        return state

    def _inside(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.known.shape[0] and 0 <= cell[1] < self.known.shape[1]

    def _see(self, cell: Cell, is_free: bool, index: int) -> None:
        if self._inside(cell) and not self.known[cell]:
            self.known[cell], self.free[cell], self.order[cell] = True, is_free, index

    def _learn(self, result: dict[str, Any], index: int) -> None:
        self.done |= bool(result.get("done"))
        position = result.get("position")
        if not (isinstance(position, list) and len(position) == 2 and all(isinstance(v, int) for v in position)
                and self._inside((position[0], position[1]))):
            return
        self.position = (position[0], position[1])
        self._see(self.position, True, index)
        window, origin = result.get("window"), result.get("window_origin")
        if isinstance(window, list) and isinstance(origin, list) and len(origin) == 2:
            for dr, row in enumerate(window):
                for dc, char in enumerate(str(row)):
                    if char != TOOL_SYMBOLS.masked:
                        self._see((origin[0] + dr, origin[1] + dc), char in FREE_SYMBOLS, index)
        distances = result.get("distances")
        if isinstance(distances, dict):
            for name, (dr, dc) in zip(MOVE_NAMES, MOVES, strict=True):
                reach = distances.get(name)
                if not isinstance(reach, int) or isinstance(reach, bool) or not 0 <= reach < max(self.known.shape):
                    continue
                for step in range(1, reach + 1):
                    self._see((self.position[0] + dr * step, self.position[1] + dc * step), True, index)
                if window is None:  # without a window the ray ends at a wall
                    self._see((self.position[0] + dr * (reach + 1), self.position[1] + dc * (reach + 1)), False,
                              index)

    def oracle_route(self) -> list[Cell] | None:
        """Return the oracle's route from the agent: the drawn maze's shortest path, else an optimistic one."""
        if self.drawn is not None:
            maze = TextMaze(self.drawn.blocks, self.drawn.known, self.task.start, self.task.goal, self.position)
            return plan_path(maze)
        maze = TextMaze((~(self.known & self.free)).astype(np.uint8), self.known.copy(), self.task.start,
                        self.task.goal, self.position)
        return next_route(maze)

    def explorer_route(self) -> list[Cell]:
        """Return the explorer's route: to the goal over known free blocks, else to the newest frontier block."""
        return explore_route(self.known, self.free, self.position, self.task.goal, recency=self.order)


def _max_steps(request: ChatRequest, default: int) -> int:
    """Return the ``maximum`` of ``move``'s ``steps`` parameter, else ``default`` (the grid's longer side, the
    bench's own limit)."""
    for tool in request.params.get("tools") or ():
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and function.get("name") == MOVE:
            steps = ((function.get("parameters") or {}).get("properties") or {}).get("steps") or {}
            maximum = steps.get("maximum") if isinstance(steps, dict) else None
            if isinstance(maximum, int) and maximum >= 1:
                return maximum
    return default


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or () if isinstance(p, dict) and p.get("type") == "text")


def _results(request: ChatRequest, prompt: str) -> list[dict[str, Any]]:
    """Return the start's report (the ``START_REPORT`` line of the task's ``prompt``) and the JSON objects of the
    conversation's tool results, in order (text that is no JSON object is skipped)."""
    texts = [line[len(START_REPORT):] for line in prompt.split("\n") if line.startswith(START_REPORT)][:1]
    texts += [m["content"] for m in request.messages if m.get("role") == "tool" and isinstance(m.get("content"), str)]
    out = []
    for text in texts:
        try:
            doc = json.loads(text)
        except ValueError:
            continue
        if isinstance(doc, dict):
            out.append(doc)
    return out


def _call_id(request: ChatRequest, index: int) -> str:
    return f"call_{len(request.messages)}_{index}"


def _moves(request: ChatRequest, route: list[Cell] | None, limit: int, *, first_only: bool = False) -> PolicyReply:
    if not route or len(route) < 2:
        return PolicyReply("I have no move that leads anywhere new.")
    runs = route_runs(route, limit)[:1 if first_only else None]
    return PolicyReply(tool_calls=tuple(
        ToolCall(_call_id(request, i), MOVE, json.dumps({"direction": move, "steps": n}))
        for i, (move, n) in enumerate(runs)))


def _finished(request: ChatRequest, state: ToolState) -> PolicyReply:
    if SUBMIT in state.tools:
        return PolicyReply(tool_calls=(ToolCall(_call_id(request, 0), SUBMIT, json.dumps({"answer": "done"})),))
    return PolicyReply("The episode is over.")


def tool_reply(request: ChatRequest, policy: str) -> PolicyReply | None:
    """Return the function calls ``policy`` (``oracle``, ``explorer`` or ``random``) answers a ``tools`` request
    with, or None when the request offers no maze functions or states no task line."""
    state = ToolState.read(request)
    if state is None:
        return None
    if state.done:
        return _finished(request, state)
    if policy == "oracle":
        return _moves(request, state.oracle_route(), state.max_steps)
    if policy == "explorer":
        return _moves(request, state.explorer_route(), state.max_steps, first_only=True)
    seed = hashlib.sha256(json.dumps(request.messages, sort_keys=True, default=str).encode()).digest()
    direction = MOVE_NAMES[int(np.random.default_rng(list(seed[:8])).integers(4))]
    return PolicyReply(tool_calls=(ToolCall(_call_id(request, 0), MOVE,
                                            json.dumps({"direction": direction, "steps": 1})),))


class ToolPlayPolicy:
    """A server policy that plays only the ``tools`` mode (``explorer`` or ``random``): a request without the maze
    functions gets HTTP 400 saying so."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, request: ChatRequest) -> PolicyReply:
        reply = tool_reply(request, self.name)
        if reply is None:
            return PolicyReply(f"the {self.name} policy plays the maze benchmark's tools mode: offer the move "
                               "function and state the task line", status=400)
        return reply
