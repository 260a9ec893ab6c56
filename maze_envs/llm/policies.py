"""Policies of the local model server: ``scripted`` (replies from a JSONL file), ``oracle`` (solves the
text maze in the prompt), ``text-only`` (the oracle on text prompts, a wrong answer whenever the request
carries an image or a video) and any ``module:callable`` taking a ``ChatRequest``."""

from __future__ import annotations

import base64
import importlib
import io
import json
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from maze_envs.core.errors import MazeConfigError, MazeFormatError, brief_repr
from maze_envs.core.jsonfiles import parse_json
from maze_envs.core.maze import MOVE_NAMES, Cell
from maze_envs.core.render import Symbols
from maze_envs.core.textmaze import (
    TextMaze,
    format_path,
    image_maze,
    legend_symbols,
    move_between,
    next_route,
    parse_text_maze,
    plan_path,
    route_runs,
    wall_follow_route,
)

from .server import ChatRequest, Policy, PolicyReply


@dataclass(frozen=True)
class ScriptEntry:
    """One scripted reply; ``match`` (a substring of the request's text) makes it answer only such requests."""

    reply: PolicyReply
    match: str | None = None


class ScriptedPolicy:
    """Answers from a list of entries: the first entry whose ``match`` occurs in the request's text, else the
    next unmatched entry in order. When unmatched entries run out it answers HTTP 400 (or, with ``cycle``,
    starts over)."""

    name = "scripted"

    def __init__(self, entries: Sequence[ScriptEntry], *, cycle: bool = False):
        self.entries = list(entries)
        self.cycle = cycle
        self._next = 0
        self._lock = threading.Lock()

    @classmethod
    def from_jsonl(cls, path: str | os.PathLike, *, cycle: bool = False, flag: str = "--script") -> "ScriptedPolicy":
        """Return the policy of a JSONL file: each line a JSON string (the reply text) or an object with
        ``text``, optional ``status``, ``delay`` and ``match``. Errors name the file (and ``flag``)."""
        path = Path(path)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise MazeConfigError(f"{flag} {path}: cannot read: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise MazeFormatError(f"not UTF-8 text (byte {exc.start})", source=path) from None
        entries = []
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            doc = parse_json(line, source=path, line=number)
            try:
                entries.append(script_entry(doc))
            except (ValueError, TypeError) as exc:
                raise MazeFormatError(f"line {number}: {brief_repr(str(exc), 200)}", source=path) from None
        return cls(entries, cycle=cycle)

    def __call__(self, request: ChatRequest) -> PolicyReply:
        text = request.text(last_user_only=False)
        for entry in self.entries:
            if entry.match is not None and entry.match in text:
                return entry.reply
        ordered = [e for e in self.entries if e.match is None]
        with self._lock:
            if self._next >= len(ordered):
                if not (self.cycle and ordered):
                    return PolicyReply(f"scripted policy has no reply left ({len(ordered)} used)", status=400)
                self._next = 0
            entry = ordered[self._next]
            self._next += 1
        return entry.reply


def script_entry(doc: Any) -> ScriptEntry:
    """Return the entry of one script line (a string, or an object with text/status/delay/match)."""
    if isinstance(doc, str):
        return ScriptEntry(PolicyReply(doc))
    if not isinstance(doc, dict):
        raise TypeError(f"expected a string or an object, got {type(doc).__name__}")
    unknown = set(doc) - {"text", "status", "delay", "match"}
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(sorted(unknown))}")
    return ScriptEntry(PolicyReply(str(doc.get("text", "")), int(doc.get("status", 200)), float(doc.get("delay", 0))),
                       doc.get("match"))


_MOVE_QUESTION = re.compile(r"\b(next move|move next|which move|one move|single move|which direction|your move|"
                            r"one of up|move:|direction steps)", re.IGNORECASE)


class OraclePolicy:
    """Reads the last text maze in the last user message (else in the whole conversation, else the last image of
    pure-colour cells: black walls, green start, red goal) and answers correctly.
    A legend in the prompt (``'#' = wall, '.' = passage, ...``, see ``legend_symbols``) overrides ``symbols``.

    ``mode`` ``path`` answers a shortest path ``(r,c),(r,c),...`` from the agent (else the start) in the text
    grid's coordinates, ``move`` one of up/down/left/right, ``auto`` a move when the view is partial or the
    prompt asks for a move ("next move", "Which move next?", "direction steps"), else a path. Partial views
    get a move along an optimistic shortest path to a visible goal, or toward the nearest unexplored edge of the
    map explored so far; a view without a map but with the history of its last moves is walked by the right-hand
    rule from its last heading, which solves a maze without loops from what the conversation shows. When the
    prompt allows runs ("steps between 1 and k") the whole known part of that route goes as ``direction n`` runs.
    """

    name = "oracle"

    def __init__(self, mode: str = "auto", symbols: Symbols = Symbols()):
        if mode not in ("auto", "path", "move"):
            raise MazeConfigError(f"oracle mode must be auto, path or move, got {brief_repr(mode)}")
        self.mode = mode
        self.symbols = symbols

    def __call__(self, request: ChatRequest) -> PolicyReply:
        text = request.text()
        try:
            maze = parse_text_maze(text, legend_symbols(text, self.symbols))
        except MazeFormatError:
            try:  # the maze may sit in an earlier or system message
                text = request.text(last_user_only=False)
                maze = parse_text_maze(text, legend_symbols(text, self.symbols))
            except MazeFormatError:
                maze = _pictured_maze(request) or _listed_maze(text)
                if maze is None:
                    return PolicyReply("I cannot find a text maze in the prompt.")
        mode = self.mode
        if mode == "auto":
            mode = "move" if (maze.partial or _MOVE_QUESTION.search(text)) else "path"
        if mode == "move":
            limit = _STEP_LIMIT.search(text)
            route = _partial_route(maze, text, int(limit[1]) if limit else 1)
            if limit is None:
                move = move_between(route[0], route[1]) if route else None
                return PolicyReply(f"Move: {move}" if move else "I have no move that leads anywhere new.")
            if route is None:
                return PolicyReply("I have no move that leads anywhere new.")
            return PolicyReply(", ".join(f"{move} {n}" for move, n in route_runs(route, int(limit[1]))))
        path = plan_path(maze)
        return PolicyReply(format_path(path) if path else "The goal cannot be reached.")


def _partial_route(maze: TextMaze, text: str, limit: int) -> list[Cell] | None:
    """Return the oracle's route in a move prompt. A view with neither the goal nor a map explored so far, but with
    the moves that led here (the history of the last turns), is followed by the right-hand rule from the last
    heading (``wall_follow_route``, up to ``4 * limit`` blocks): that solves a maze from what the conversation
    shows, where a frontier search on one view alone walks back and forth. Otherwise the route of
    ``next_route``: to a visible goal, else to the nearest frontier of the map shown."""
    heading = last_heading(text)
    if maze.goal is None and heading is not None and not shows_explored_map(text):
        return wall_follow_route(maze, heading, 4 * limit)
    return next_route(maze)


# The partial-view prompts of ``agents.llm``: "Recent action history: Step 1: up 2, left 1 (Moved 3 steps), ...",
# and the explored map's heading.
_HISTORY_STEP = re.compile(r"Step \d+: ((?:(?:up|down|left|right) \d+(?:, )?)+) \((?:Moved (\d+) steps?|Wall collision "
                           r"after (\d+) steps?)", re.IGNORECASE)
_HISTORY_RUN = re.compile(r"(up|down|left|right) (\d+)", re.IGNORECASE)
_EXPLORED_MAP = re.compile(r"map explored so far", re.IGNORECASE)


def shows_explored_map(text: str) -> bool:
    """Return whether a prompt shows the map explored so far (``--explored-map``)."""
    return bool(_EXPLORED_MAP.search(text))


def last_heading(text: str) -> int | None:
    """Return the direction (index into ``MOVES``) of the last block the prompt's action history says the agent
    moved, or None when it tells of no move that moved."""
    for moves, moved, collided in reversed(_HISTORY_STEP.findall(text)):
        left = int(moved or collided or 0)
        heading = None
        for name, count in _HISTORY_RUN.findall(moves):
            if left <= 0:
                break
            heading = MOVE_NAMES.index(name.lower())
            left -= int(count)
        if heading is not None:
            return heading
    return None


# A prompt that takes "direction steps" runs says how long one may be (MazeBench's partial-observe prompt).
_STEP_LIMIT = re.compile(r"steps? between 1 and (\d+)", re.IGNORECASE)
_SIZE = re.compile(r"(\d+)\s*[x×]\s*(\d+)")


def _pictured_maze(request: ChatRequest) -> TextMaze | None:
    """Return the maze in the request's last image, read as ``HxW`` pure-colour cells (the size taken from the
    first ``HxW`` in the text), or None when there is no image or no size, the image cannot be decoded, or the
    size is not between 1 and the image's pixels a side."""
    size = _SIZE.search(request.text(last_user_only=False))
    urls = [p["image_url"]["url"] for m in request.messages if isinstance(m.get("content"), list)
            for p in m["content"] if isinstance(p, dict) and p.get("type") == "image_url"]
    if size is None or not urls or ";base64," not in urls[-1]:
        return None
    from PIL import Image

    try:
        data = base64.b64decode(urls[-1].split(";base64,", 1)[1])
        rgb = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
    except (ValueError, OSError, Image.DecompressionBombError):  # not base64, not an image, or a decompression bomb
        return None
    height, width = int(size[1]), int(size[2])
    if not (1 <= height <= rgb.shape[0] and 1 <= width <= rgb.shape[1]):
        return None
    return image_maze(rgb, height, width)


# MazeBench's own prompts (``--protocol mazebench``): text2d prints the grid as a Python list with the start and
# goal as lists; its ai sandbox prints ``str()`` of a numpy symbol array after "Current position A(r, c), goal (r, c)".
_LISTED_GRID = re.compile(r"迷宫为(\[\[[\d,\s\[\]]*\]\])")
_LISTED_ENDS = re.compile(r"起点\[(\d+), (\d+)\]，终点\[(\d+), (\d+)\]")
_ARRAY_ENDS = re.compile(r"Current position A\((\d+), (\d+)\), goal \((\d+), (\d+)\)")
_ARRAY = re.compile(r"Maze layout:\n(\[\[.*?\]\])\nSymbol legend:\n- (.): Wall", re.DOTALL)


def _listed_maze(text: str) -> TextMaze | None:
    """Return the maze of a MazeBench text2d or ai prompt (a listed grid or a numpy symbol array), else None."""
    grid, ends = _LISTED_GRID.search(text), _LISTED_ENDS.search(text)
    if grid and ends:
        blocks = np.array(json.loads(grid[1]), dtype=np.uint8)
        agent = None
    else:
        array, ends = _ARRAY.search(text), _ARRAY_ENDS.search(text)
        if not (array and ends):
            return None
        rows = [re.findall(r"'(.*?)'", row) for row in re.findall(r"\[([^\[\]]*)\]", array[1])]
        if not rows or len({len(r) for r in rows}) != 1:
            return None
        blocks = (np.array(rows) == array[2]).astype(np.uint8)
        agent = (int(ends[1]), int(ends[2]))
    r0, c0, r1, c1 = (int(v) for v in ends.groups())
    return TextMaze(blocks, np.ones(blocks.shape, dtype=bool), (r0, c0), (r1, c1), agent)


class TextOnlyPolicy:
    """A model that reads text but not pictures: ``OraclePolicy`` answers every request without media; a
    request carrying an image or a video gets ``MEDIA_REPLY``, an answer no maze or navigation task accepts
    (no path, no move; a navigation agent reads a zero waypoint and a claim of arrival at its start).
    It gives the profile "solved from text, failed from images" that a perception gap shows."""

    name = "text-only"
    MEDIA_REPLY = '{"waypoint": [0, 0], "arrive": true}'

    def __init__(self, mode: str = "auto", symbols: Symbols = Symbols()):
        self.oracle = OraclePolicy(mode, symbols)

    def __call__(self, request: ChatRequest) -> PolicyReply:
        if request.media_count():
            return PolicyReply(self.MEDIA_REPLY)
        return self.oracle(request)


POLICIES = ("scripted", "oracle", "text-only")


def load_policy(spec: str, *, script: str | os.PathLike | None = None, mode: str = "auto",
                flag: str = "--policy", script_flag: str = "--script") -> Policy:
    """Return the policy named ``spec``: ``scripted`` (needs ``script``), ``oracle``, ``text-only`` or
    ``module:callable``.

    Errors are ``MazeConfigError`` naming the command-line flags ``flag`` and ``script_flag``.
    """
    if spec == "scripted":
        if script is None:
            raise MazeConfigError(f"{flag} scripted needs {script_flag} FILE.jsonl")
        return ScriptedPolicy.from_jsonl(script, flag=script_flag)
    if spec == "oracle":
        return OraclePolicy(mode)
    if spec == "text-only":
        return TextOnlyPolicy(mode)
    if ":" not in spec:
        raise MazeConfigError(
            f"{flag}: unknown policy {brief_repr(spec)}; choose from {', '.join(POLICIES)} or module:callable"
        )
    module_name, _, attr = spec.partition(":")
    try:
        target = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise MazeConfigError(f"{flag} {spec}: cannot load: {exc}") from exc
    if not callable(target):
        raise MazeConfigError(f"{flag} {spec}: not callable")
    return target
