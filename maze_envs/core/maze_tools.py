"""The maze as functions a model calls (the LLM benchmark's ``tools`` mode): the function definitions, how a call's
arguments are read, and the JSON each call answers with.

A model moves by calling ``move(direction, steps)`` (and, in the ``partial`` variant, ``look()``). Every call
answers with a ``ToolResult`` as JSON: the position ``[row, col]``, the cells ``moved``, whether the move was
``blocked`` by a wall or the grid's edge, the ``free`` directions, the ``distances`` to the wall in each direction,
whether the goal is reached and the episode over, and in the ``partial`` variant the line-of-sight ``window`` (rows
of ``TOOL_SYMBOLS``, the agent in its centre) with the grid coordinates of its top-left block (``window_origin``).
A call that cannot be played (an unknown function, arguments that are not a JSON object, a direction or a step
count out of range) answers ``{"error": ...}`` instead (``tool_error``).

The definitions are in the Chat Completions format (``{"type": "function", "function": {...}}``); the chat client
converts them for the Responses API. This module is pure data: the env that plays the calls is
``maze_envs.envs.grid.tools``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .errors import brief_repr
from .maze import MOVE_NAMES, Cell
from .render import Symbols

VARIANTS = ("full", "partial")
TOOL_SYMBOLS = Symbols(wall="#", path=".", start="S", goal="G", agent="A", masked="?")
MOVE, LOOK = "move", "look"
START_REPORT = "Start report: "  # the prompt's line that holds the start's report (JSON)


@dataclass(frozen=True)
class ToolCall:
    """One function call of a model's reply: its ``id`` (``call_id`` in the Responses API), the function ``name``
    and its ``arguments`` as the JSON text the model wrote."""

    id: str
    name: str
    arguments: str

    def to_message_part(self) -> dict[str, Any]:
        """Return the call as an entry of a Chat Completions assistant message's ``tool_calls``."""
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}

    def to_dict(self) -> dict[str, Any]:
        """Return the call as a JSON-ready dict (``id``, ``name``, ``arguments``)."""
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


def tool_definitions(variant: str, max_steps: int) -> list[dict[str, Any]]:
    """Return the function definitions (JSON Schema parameters) of ``variant``: ``move`` (a direction and 1 to
    ``max_steps`` steps), and ``look`` in the ``partial`` variant."""
    move = {"type": "function", "function": {
        "name": MOVE,
        "description": "Walk up to `steps` cells in one direction; you stop early at a wall or on the goal. "
                       "Returns your position, whether a wall blocked you, the free directions and the distance "
                       "to the wall in each direction" + (", and what you can see." if variant == "partial" else "."),
        "parameters": {"type": "object", "properties": {
            "direction": {"type": "string", "enum": list(MOVE_NAMES), "description": "which way to walk"},
            "steps": {"type": "integer", "minimum": 1, "maximum": max_steps, "default": 1,
                      "description": f"how many cells to walk (1 to {max_steps})"}},
            "required": ["direction"], "additionalProperties": False}}}
    if variant == "full":
        return [move]
    look = {"type": "function", "function": {
        "name": LOOK, "description": "Look around without moving: returns the same report as move, with the "
                                     "window of cells you can see.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False}}}
    return [move, look]


class ToolArgumentError(ValueError):
    """A call that cannot be played: an unknown function or bad arguments (the message says which)."""


def read_call(call: ToolCall, variant: str, max_steps: int) -> tuple[str, int, int]:
    """Return ``(name, direction index, steps)`` of ``call`` (``look`` gives direction -1 and 0 steps). Raises
    ``ToolArgumentError`` naming the function or argument at fault."""
    names = (MOVE,) if variant == "full" else (MOVE, LOOK)
    if call.name not in names:
        raise ToolArgumentError(f"unknown function {brief_repr(call.name)}; call one of {', '.join(names)}")
    try:
        args = json.loads(call.arguments or "{}")
    except ValueError:
        raise ToolArgumentError(f"{call.name}: the arguments are not JSON: {brief_repr(call.arguments)}") from None
    if not isinstance(args, dict):
        raise ToolArgumentError(f"{call.name}: the arguments must be a JSON object")
    allowed = {"direction", "steps"} if call.name == MOVE else set()
    unknown = sorted(set(args) - allowed)
    if unknown:
        raise ToolArgumentError(f"{call.name}: unknown argument(s) {', '.join(unknown)}")
    if call.name == LOOK:
        return LOOK, -1, 0
    direction, steps = args.get("direction"), args.get("steps", 1)
    if direction not in MOVE_NAMES:
        raise ToolArgumentError(f"move: direction must be one of {', '.join(MOVE_NAMES)}, got {brief_repr(direction)}")
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= max_steps:
        raise ToolArgumentError(f"move: steps must be a whole number from 1 to {max_steps}, got {brief_repr(steps)}")
    return MOVE, MOVE_NAMES.index(direction), steps


@dataclass(frozen=True)
class ToolResult:
    """What one played call reports (see the module docstring); ``window`` and ``window_origin`` only in the
    ``partial`` variant."""

    position: Cell
    moved: int
    blocked: bool
    free: tuple[str, ...]
    distances: dict[str, int]
    goal_reached: bool
    done: bool
    window: tuple[str, ...] | None = None
    window_origin: Cell | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the result as a JSON-ready dict."""
        out: dict[str, Any] = {"position": list(self.position), "moved": self.moved, "blocked": self.blocked,
                               "free": list(self.free), "distances": dict(self.distances),
                               "goal_reached": self.goal_reached, "done": self.done}
        if self.window is not None:
            out.update(window=list(self.window), window_origin=list(self.window_origin or (0, 0)))
        return out

    def to_json(self) -> str:
        """Return the result as the compact JSON text a tool message carries."""
        return json.dumps(self.to_dict(), separators=(",", ":"))


def tool_error(message: str, *, done: bool = False) -> str:
    """Return the JSON text of a call that could not be played: ``{"error": message}`` (and ``done`` when the
    episode is over)."""
    return json.dumps({"error": message, **({"done": True} if done else {})}, separators=(",", ":"))


_TASK_LINE = ("The grid has {rows} rows and {cols} columns (coordinates are [row, col], [0, 0] at the top left); "
              "you start at [{sr}, {sc}] and the goal is at [{gr}, {gc}].")
_TASK_PATTERN = re.compile(r"The grid has (\d{1,6}) rows and (\d{1,6}) columns .{0,80}?you start at \[(\d{1,6}), "
                           r"(\d{1,6})\] and the goal is at \[(\d{1,6}), (\d{1,6})\]")


@dataclass(frozen=True)
class TaskLine:
    """The facts a ``tools`` prompt states in one line: the grid's ``shape``, the ``start`` and the ``goal``."""

    shape: tuple[int, int]
    start: Cell
    goal: Cell

    def text(self) -> str:
        """Return the line as the prompt states it."""
        return _TASK_LINE.format(rows=self.shape[0], cols=self.shape[1], sr=self.start[0], sc=self.start[1],
                                 gr=self.goal[0], gc=self.goal[1])

    @classmethod
    def find(cls, text: str) -> "TaskLine | None":
        """Return the task line stated in ``text``, or None when it states none."""
        found = _TASK_PATTERN.search(text)
        if found is None:
            return None
        rows, cols, sr, sc, gr, gc = (int(v) for v in found.groups())
        return cls((rows, cols), (sr, sc), (gr, gc))
