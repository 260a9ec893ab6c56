"""Policies of the local model server: ``scripted`` (replies from a JSONL file), ``oracle`` (solves the
text maze in the prompt), ``text-only`` (the oracle on text prompts, a wrong answer whenever the request
carries an image or a video), ``explorer`` and ``random`` (which play the benchmark's ``tools`` mode only; the oracle
plays it too, ``maze_envs.llm.tool_play``) and any ``module:callable`` taking a ``ChatRequest``."""

from __future__ import annotations

import base64
import importlib
import json
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from maze_envs.core.datafiles import read_data_text
from maze_envs.core.errors import MazeConfigError, MazeFormatError, brief_repr
from maze_envs.core.images import decode_image
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
from .tool_play import ToolPlayPolicy, tool_reply


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
            lines = read_data_text(path).splitlines()
        except OSError as exc:
            reason = getattr(exc, "detail", None) or exc.strerror or exc
            raise MazeConfigError(f"{flag} {path}: cannot read: {reason}") from exc
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


ORACLE_MAX_CHARS = 1 << 18  # 262,144 characters: a 250x250-cell maze drawn as text, read and solved in ~0.15 s
ORACLE_MAX_CELLS = ORACLE_MAX_CHARS  # the largest grid read from a picture: as large as the largest read as text


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
    A request that offers the ``tools`` mode's functions is answered with ``move`` calls
    (``maze_envs.llm.tool_play``).

    It reads at most the last ``max_chars`` characters of a prompt (whole lines), and a picture of at most
    ``ORACLE_MAX_CELLS`` cells (the size the prompt states is checked before the image is decoded), so a request of
    any size costs bounded time. A maze it finds but cannot use (a ragged listed grid, a start outside it, a
    picture of more cells than that) is answered with HTTP 400 saying why.
    """

    name = "oracle"

    def __init__(self, mode: str = "auto", symbols: Symbols = Symbols(), *, max_chars: int = ORACLE_MAX_CHARS):
        if mode not in ("auto", "path", "move"):
            raise MazeConfigError(f"oracle mode must be auto, path or move, got {brief_repr(mode)}")
        if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1:
            raise MazeConfigError(f"must be a whole number above 0, got {brief_repr(max_chars)}", parameter="max_chars")
        self.mode = mode
        self.symbols = symbols
        self.max_chars = max_chars

    def __call__(self, request: ChatRequest) -> PolicyReply:
        try:
            return self._answer(request)
        except MazeFormatError as exc:  # a maze was found, but it is not one (ragged, ends outside it, ...)
            return PolicyReply(f"the maze in the prompt cannot be read: {exc.detail[:200]}", status=400)

    def _answer(self, request: ChatRequest) -> PolicyReply:
        played = tool_reply(request, "oracle") if request.tool_names else None
        if played is not None:
            return played
        text = last_lines(request.text(), self.max_chars)
        try:
            maze = parse_text_maze(text, legend_symbols(text, self.symbols))
        except MazeFormatError:
            try:  # the maze may sit in an earlier or system message
                text = last_lines(request.text(last_user_only=False), self.max_chars)
                maze = parse_text_maze(text, legend_symbols(text, self.symbols))
            except MazeFormatError:
                maze = _pictured_maze(request, text) or _listed_maze(text)
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


def last_lines(text: str, limit: int) -> str:
    """Return the whole lines among the last ``limit`` characters of ``text`` (all of it when it is shorter): what
    the oracle reads of a prompt, so that its work is bounded whatever the prompt's length."""
    if len(text) <= limit:
        return text
    tail = text[-limit:]
    newline = tail.find("\n")
    return tail[newline + 1:] if newline >= 0 else tail


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


# A prompt that takes "direction steps" runs says how long one may be (MazeBench's partial-observe prompt). Every
# pattern here runs in time linear in the text: no two unbounded repeats that can match the same characters.
_STEP_LIMIT = re.compile(r"steps? between 1 and (\d{1,6})", re.IGNORECASE)
_SIZE = re.compile(r"(?<!\d)(\d{1,6})[ \t]{0,8}[x×][ \t]{0,8}(\d{1,6})")


def _pictured_maze(request: ChatRequest, text: str) -> TextMaze | None:
    """Return the maze in the request's last image, read as ``HxW`` pure-colour cells (the size taken from the
    first ``HxW`` in ``text``), or None when there is no image or no size, the image cannot be decoded or is over
    ``MAX_DECODED_PIXELS`` (refused from its header), or the size is not between 1 and the image's pixels a side.

    Raises ``MazeFormatError`` when the size is over ``ORACLE_MAX_CELLS`` cells, before the image is decoded.
    """
    size = _SIZE.search(text)
    urls = [p["image_url"]["url"] for m in request.messages if isinstance(m.get("content"), list)
            for p in m["content"] if isinstance(p, dict) and p.get("type") == "image_url"]
    if size is None or not urls or ";base64," not in urls[-1]:
        return None
    cells = int(size[1]) * int(size[2])
    if cells > ORACLE_MAX_CELLS:
        raise MazeFormatError(f"the pictured maze is {size[1]}x{size[2]} = {cells} cells, over the oracle's limit "
                              f"of {ORACLE_MAX_CELLS}", field="size")
    try:
        rgb = np.asarray(decode_image(base64.b64decode(urls[-1].split(";base64,", 1)[1])))
    except (ValueError, MazeFormatError):  # not base64, not an image, or too many pixels
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
_ARRAY_ROW = re.compile(r"\[([^\[\]]*)\]")
_ARRAY_SYMBOL = re.compile(r"'([^']*)'")
_LAYOUT = "Maze layout:\n"
_LEGEND = "]]\nSymbol legend:\n- "


def _array_layout(text: str) -> tuple[str, str] | None:
    """Return (the ``[[...]]`` array, the wall symbol) of the first "Maze layout:" block of an ai prompt that a
    "Symbol legend:" naming the wall follows, else None; one forward scan (``str.find``), linear in the text."""
    start = text.find(_LAYOUT + "[[")
    if start < 0:
        return None
    begin = start + len(_LAYOUT)
    end = text.find(_LEGEND, begin)
    while end >= 0:
        wall = end + len(_LEGEND)
        if wall < len(text) and text.startswith(": Wall", wall + 1):
            return text[begin:end + 2], text[wall]
        end = text.find(_LEGEND, end + 1)
    return None


def _coordinates(match: re.Match, shape: tuple[int, ...]) -> list[tuple[int, int]]:
    """Return the (row, col) pairs of ``match``'s groups; raises ``MazeFormatError`` unless each is in ``shape``."""
    cells = []
    for row, col in zip(match.groups()[::2], match.groups()[1::2], strict=True):
        cell = (int(row) if len(row) <= 9 else -1, int(col) if len(col) <= 9 else -1)
        if not (0 <= cell[0] < shape[0] and 0 <= cell[1] < shape[1]):
            raise MazeFormatError(f"cell ({row[:12]}, {col[:12]}) is outside the "
                                  f"{shape[0]}x{shape[1]} grid", field="start/goal")
        cells.append(cell)
    return cells


def _listed_blocks(listed: str) -> np.ndarray:
    """Return the 0/1 block grid of a text2d prompt's listed grid; raises ``MazeFormatError`` unless it is a
    non-empty rectangular list of lists of 0 and 1."""
    try:
        rows = json.loads(listed)
    except ValueError:
        raise MazeFormatError(f"the listed grid {brief_repr(listed, 60)} is not a list of lists",
                              field="grid") from None
    if not rows or not all(isinstance(row, list) and row for row in rows) or len({len(row) for row in rows}) != 1:
        raise MazeFormatError("the listed grid is not a rectangle of rows", field="grid")
    if not all(type(value) is int and value in (0, 1) for row in rows for value in row):
        raise MazeFormatError("the listed grid holds values other than 0 and 1", field="grid")
    return np.array(rows, dtype=np.uint8)


def _listed_maze(text: str) -> TextMaze | None:
    """Return the maze of a MazeBench text2d or ai prompt (a listed grid or a numpy symbol array), else None.

    Raises ``MazeFormatError`` when the prompt has such a maze that cannot be one (not a rectangle, values other
    than 0/1, a start, goal or position outside it).
    """
    grid, ends = _LISTED_GRID.search(text), _LISTED_ENDS.search(text)
    if grid and ends:
        blocks = _listed_blocks(grid[1])
        start, goal = _coordinates(ends, blocks.shape)
        return TextMaze(blocks, np.ones(blocks.shape, dtype=bool), start, goal, None)
    layout, ends = _array_layout(text), _ARRAY_ENDS.search(text)
    if not (layout and ends):
        return None
    rows = [_ARRAY_SYMBOL.findall(row) for row in _ARRAY_ROW.findall(layout[0])]
    if not rows or not rows[0] or len({len(r) for r in rows}) != 1:
        raise MazeFormatError("the maze layout is not a rectangle of quoted symbols", field="grid")
    blocks = (np.array(rows) == layout[1]).astype(np.uint8)
    agent, goal = _coordinates(ends, blocks.shape)
    return TextMaze(blocks, np.ones(blocks.shape, dtype=bool), agent, goal, agent)


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


POLICIES = ("scripted", "oracle", "text-only", "explorer", "random")


def load_policy(spec: str, *, script: str | os.PathLike | None = None, mode: str = "auto",
                flag: str = "--policy", script_flag: str = "--script") -> Policy:
    """Return the policy named ``spec``: ``scripted`` (needs ``script``), ``oracle``, ``text-only``, ``explorer``,
    ``random`` (the last two play the ``tools`` mode only) or ``module:callable``.

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
    if spec in ("explorer", "random"):
        return ToolPlayPolicy(spec)
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
