"""LLMAgent and VLMAgent: a chat model plays Maze-v0 (full map) or Maze-PartialObs-v0 through ``maze_envs.llm``.

Each model call is one turn of MazeBench's ai / partial-observe sandbox (https://github.com/Aileen-90/MazeBench):
the prompt (a template file in ``agents/llm/prompts``) shows the maze as joined text rows with a legend (or,
for ``VLMAgent``, MazeBench's picture), the memory of the last ``memory`` turns with their feedback, and asks
for a coordinate path or moves (full map) or ``direction n[, direction n ...]`` (partial). A usable reply
becomes env actions played one ``act`` at a time; feedback is read back from the observation and ``info``
(``moved``, never the hidden position). Full-map coordinates are MazeBench's ``(row, col)`` without the
outer ring (``maze_envs.core.benchmark_frame``); partial prompts carry no coordinates.

A path is checked as a whole before anything moves, as MazeBench's ``step_path`` is: a jump, a wall or a
cell off the grid fails the turn with its feedback and nothing moves. Moves stop at the first wall and
drop the rest of the turn. A reply with nothing usable, or a partial move longer than the visibility ``k``,
is an invalid output handled by ``InvalidOutputPolicy``. ``calls`` keeps one ``CallRecord`` per model call
and ``failures`` every rejected candidate, for the runner.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from maze_envs.core import replies
from maze_envs.core.benchmark_frame import BenchmarkFrame, frame_of
from maze_envs.core.codes import AGENT, GOAL, WALL
from maze_envs.core.errors import MazeConfigError, brief_repr
from maze_envs.core.maze import MOVE_NAMES, Cell, Grid, move_index
from maze_envs.core.render import benchmark_picture
from maze_envs.core.replies import ReadingRule, read_moves, read_path
from maze_envs.core.solve import path_faults
from maze_envs.core.validate import choice, integer, positive_int
from maze_envs.envs.agent import AgentStopped
from maze_envs.envs.grid.partial import PartialObsMazeEnv
from maze_envs.llm import Asking, ChatClient, answer, ask
from maze_envs.llm.prompts import PromptTemplate

from ..explored import ExploredMaps
from .prompts import PROMPTS_DIR
from .views import PROMPT_SYMBOLS, draw, legend, visible_box

INVALID_OUTPUT_MODES = ("noop", "retry", "default")
PATH_EXAMPLE = "(1,2),(1,3),(2,3)"


@dataclass(frozen=True)
class InvalidOutputPolicy:
    """What the agent does with a reply it cannot use (every such reply is logged in ``failures``).

    ``noop``: nothing moves; the turn is remembered as ``Invalid output`` and the next call asks afresh.
    ``retry``: ask again at once in the same conversation, telling the model why, while the episode's
    invalid outputs stay within ``allowance``; one more stops the episode (``AgentStopped``).
    ``default``: play ``default_move`` (up/right/down/left) one block.
    """

    mode: str = "noop"
    allowance: int = 3
    default_move: str = "up"

    def __post_init__(self) -> None:
        choice(self.mode, INVALID_OUTPUT_MODES, name="invalid_output mode")
        integer(self.allowance, 0, name="invalid_output allowance")
        choice(self.default_move, MOVE_NAMES, name="invalid_output default_move")


@dataclass(frozen=True)
class CallRecord:
    """One model call: which turn, the prompt's hash, the raw reply, what was parsed, the ``outcome`` (``ok``,
    ``invalid_output``, ``invalid_jump``, ``wall_collision``, ``out_of_bounds``), its feedback, tokens and latency."""

    call: int
    turn: int
    prompt_sha256: str
    raw_reply: str
    parsed: dict[str, Any]
    outcome: str
    feedback: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cached: bool

    def to_dict(self) -> dict[str, Any]:
        """Return the record as a JSON-ready dict."""
        return asdict(self)


@dataclass
class _Turn:
    """The turn being played: its text for the memory, the env moves left and the blocks moved so far."""

    text: str
    moves: deque = field(default_factory=deque)
    moved: int = 0
    expect: tuple[int, int] | None = None


@functools.lru_cache(maxsize=None)
def _template(name: str) -> PromptTemplate:
    return PromptTemplate.load(PROMPTS_DIR / f"{name}.txt")


def _sha256(messages: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


class LLMAgent:
    """A chat model as an agent of ``Maze-v0`` (full map) or ``Maze-PartialObs-v0`` (the env passed decides).

    ``memory``: how many past turns the prompt recalls with their feedback (0 none, -1 all).
    ``coordinates``: number the rows and columns of the full-map drawing. ``explored_map``: partial prompts
    also show the map explored so far (the agent's own frame, no coordinates). ``max_calls``: model calls
    per episode. ``params`` go to the chat call (default ``temperature=0.1``, MazeBench's). ``reading_rule``:
    the name (or object) of the ``maze_envs.core.replies`` rule that reads replies (default ``strict``).
    ``client``: the chat client ``act`` asks; None for an agent driven through ``decide`` alone (the benchmark's
    trials hand its questions to whoever plays them).
    """

    template_name = "full_map"

    def __init__(self, env: gym.Env, client: ChatClient | None, *, memory: int = 5, coordinates: bool = False,
                 explored_map: bool = False, invalid_output: InvalidOutputPolicy = InvalidOutputPolicy(),
                 max_calls: int = 50, params: dict[str, Any] | None = None,
                 reading_rule: str | ReadingRule = "strict") -> None:
        if isinstance(memory, bool) or not isinstance(memory, int) or memory < -1:
            raise MazeConfigError(f"memory must be -1 (all), 0 (none) or a positive integer, got {brief_repr(memory)}")
        positive_int(max_calls, name="max_calls")
        self.env = env.unwrapped
        self.partial = isinstance(self.env, PartialObsMazeEnv)
        self.client = client
        self.memory = memory
        self.coordinates = coordinates
        self.explored_map = explored_map
        self.invalid_output = invalid_output
        self.max_calls = max_calls
        self.params = {"temperature": 0.1} if params is None else dict(params)
        self.reading_rule = replies.reading_rule(reading_rule)
        self.k = self.env.k if self.partial else 0
        self.template = _template("partial" if self.partial else self.template_name)
        self.reset()

    def reset(self) -> None:
        """Forget the episode: calls, failures, memory, counters and the map."""
        self.calls: list[CallRecord] = []
        self.failures: list[dict[str, Any]] = []
        self.history: list[str] = []
        self.wall_collisions = 0
        self.invalid_jumps = 0
        self.invalid_outputs = 0
        self._turn: _Turn | None = None
        self._frame: BenchmarkFrame | None = None
        self._start: Cell | None = None
        self._goal: Cell | None = None
        self._previous: Cell | None = None
        self._explored = ExploredMaps()

    # --- acting -----------------------------------------------------------------------------------

    def act(self, observation: Any, info: dict[str, Any]) -> Any:
        """Return the next env action: the next move of the current turn, else of a new reply of the model,
        asked with ``client.chat`` (``decide``). Raises what ``decide`` raises and the client's errors."""
        if self.client is None:
            raise MazeConfigError("this agent has no chat client: drive its decide() steps instead",
                                  parameter="client")
        return answer(self.decide(observation, info), self.client)

    def decide(self, observation: Any, info: dict[str, Any]) -> Asking[Any]:
        """Return the steps of choosing the next env action: the next move of the current turn, else one of a new
        model reply; each question to the model is yielded (an ``Ask``) and its ``Reply`` sent back.

        Raises ``AgentStopped`` when ``max_calls`` are spent or (``retry``) invalid outputs exceed the allowance.
        """
        self._settle(observation, info)
        if self._turn is not None and self._turn.moves:
            return self._emit()
        messages: list[dict[str, Any]] | None = None
        while True:
            if len(self.calls) >= self.max_calls:
                raise AgentStopped("max_calls", f"the model was called {len(self.calls)} times (max_calls)")
            messages = messages or [{"role": "user", "content": self._prompt(observation)}]
            reply = yield ask(messages, images=self._images(observation), **self.params)
            moves, outcome, reason, parsed = self._interpret(reply.text, observation)
            turn = len(self.history) + 1
            self.calls.append(CallRecord(len(self.calls) + 1, turn, _sha256(messages), reply.text, parsed, outcome,
                                         reason, reply.usage.prompt_tokens, reply.usage.completion_tokens,
                                         round(reply.latency, 4), reply.cached))
            if outcome == "ok":
                self._turn = _Turn(self._describe(moves, parsed), deque(moves))
                return self._emit()
            self.failures.append({"call": len(self.calls), "turn": turn, "reply": reply.text, "outcome": outcome,
                                  "reason": reason})
            if outcome != "invalid_output":
                self.wall_collisions += outcome != "invalid_jump"
                self.invalid_jumps += outcome == "invalid_jump"
                self.history.append(f"{self._describe([], parsed)} ({reason}; nothing moved)")
                messages = None
                continue
            self.invalid_outputs += 1
            if self.invalid_output.mode == "default":
                move = self.invalid_output.default_move
                self._turn = _Turn(f"{move} 1 (default move after an invalid output)",
                                   deque([(MOVE_NAMES.index(move), 1)]))
                return self._emit()
            if self.invalid_output.mode == "retry":
                if self.invalid_outputs > self.invalid_output.allowance:
                    raise AgentStopped("invalid_outputs", f"{self.invalid_outputs} invalid outputs exceed the "
                                                          f"allowance of {self.invalid_output.allowance}")
                messages = messages + [{"role": "assistant", "content": reply.text},
                                       {"role": "user", "content": _template("retry").fill({"reason": reason})}]
                continue
            self.history.append(f"Invalid output ({reason})")
            messages = None

    def _emit(self) -> Any:
        """Return the env action of the turn's next move (``(direction, blocks)``, at most ``k`` blocks)."""
        direction, blocks = self._turn.moves.popleft()
        space = self.env.action_space
        if isinstance(space, spaces.Discrete):
            if blocks > 1:
                self._turn.moves.appendleft((direction, blocks - 1))
            blocks = 1
        self._turn.expect = (direction, blocks)
        if isinstance(space, spaces.Discrete):
            return direction
        return np.array([direction, blocks - 1], dtype=space.dtype)

    def _settle(self, observation: Any, info: dict[str, Any]) -> None:
        """Read the outcome of the last action from the observation and ``info``; close the turn when it ends."""
        turn = self._turn
        if self.partial:
            if turn is not None and turn.expect is not None:
                self._explored.move(turn.expect[0], int(info["moved"]))
            self._explored.integrate(self._window(observation)[None])
        if turn is None or turn.expect is None:
            return
        direction, blocks = turn.expect
        turn.expect = None
        if self.partial:
            moved = int(info["moved"])
        else:
            before = self._previous
            moved = int(self._position(observation) != before)
        turn.moved += moved
        if moved < blocks:
            self.wall_collisions += 1
            feedback = f"Wall collision after {turn.moved} steps: hit wall" if self.partial else \
                "Wall collision: hit wall"
            turn.moves.clear()
        elif turn.moves:
            return
        else:
            feedback = f"Moved {turn.moved} steps" if self.partial else f"Moved to {self._position(observation)}"
        self.history.append(f"{turn.text} ({feedback})")
        self._turn = None

    # --- reading replies --------------------------------------------------------------------------

    def _interpret(self, text: str, observation: Any) -> tuple[list[tuple[int, int]], str, str, dict[str, Any]]:
        """Return ``(moves, outcome, reason, parsed)`` of a reply; moves are ``(direction, blocks)``."""
        if not self.partial:
            here = self._position(observation)
            path = read_path(text, self.reading_rule)
            cells = list(path.cells)
            if cells and cells[0] == here:
                cells = cells[1:]
            if cells:
                parsed = {"form": path.form, "cells": [list(c) for c in cells], "unparsed": path.ignored}
                problem = self._check_path(here, cells, observation)
                if problem:
                    return [], problem[0], problem[1], parsed
                return [(move_index(a, b), 1) for a, b in zip([here] + cells, cells, strict=False)], "ok", "", parsed
        found = read_moves(text, self.reading_rule)
        parsed = {"form": found.form, "moves": [list(m) for m in found.moves], "unparsed": found.ignored}
        if not found.moves:
            return [], "invalid_output", "no coordinates or moves found" if not self.partial else \
                "no moves found (expected \"direction steps\")", parsed
        too_long = [f"{d} {n}" for d, n in found.moves if self.partial and n > self.k]
        if too_long:
            return [], "invalid_output", f"'{too_long[0]}' is longer than the {self.k} steps allowed", parsed
        return [(MOVE_NAMES.index(d), n) for d, n in found.moves], "ok", "", parsed

    def _check_path(self, here: Cell, cells: list[Cell], observation: Any) -> tuple[str, str] | None:
        """Return ``(outcome, feedback)`` of the first step of a path that cannot be walked, else None."""
        grid = self._grid(observation)
        fault = path_faults(cells, self._frame.contains, lambda previous, cell: grid[cell] == WALL,
                            before=here).first(("jump", "outside", "wall"))
        if fault is None:
            return None
        check, i = fault
        if check == "jump":
            return "invalid_jump", f"Invalid jump: {([here] + cells)[i]} to {cells[i]} is not adjacent"
        if check == "outside":
            return "out_of_bounds", "Wall collision: out of bounds"
        return "wall_collision", f"Wall collision: hit wall at {cells[i]}"

    @staticmethod
    def _describe(moves: list[tuple[int, int]], parsed: dict[str, Any]) -> str:
        if "cells" in parsed:
            return "path " + ",".join(f"({r},{c})" for r, c in parsed["cells"])
        return ", ".join(f"{d} {n}" for d, n in parsed.get("moves", [])) or "no action"

    # --- what the model sees ----------------------------------------------------------------------

    def _window(self, observation: Any) -> np.ndarray:
        return np.asarray(observation["view"] if isinstance(observation, dict) else observation)

    def _grid(self, observation: Any) -> np.ndarray:
        """Return the full-map observation's benchmark grid (codes, no outer ring)."""
        if self._frame is None:
            self._frame = frame_of(self.env.layout)
        return self._frame.crop(np.asarray(observation))

    def _position(self, observation: Any) -> Cell:
        """Return where the agent stands on the full map's benchmark grid (read from the observation)."""
        grid = self._grid(observation)
        where = np.argwhere(grid == AGENT)
        position = (int(where[0][0]), int(where[0][1])) if len(where) else self._goal
        if self._start is None:
            self._start = position
        goal = np.argwhere(grid == GOAL)
        if len(goal):
            self._goal = (int(goal[0][0]), int(goal[0][1]))
        self._previous = position
        return position

    def _memory_line(self) -> str:
        entries = self.history if self.memory == -1 else self.history[-self.memory:] if self.memory else []
        if not entries:
            return ""
        return "Recent action history: " + ", ".join(f"Step {i}: {e}" for i, e in enumerate(entries, 1)) + "\n"

    def _prompt(self, observation: Any) -> str:
        """Return the filled prompt of this turn."""
        memory = self._memory_line()
        if self.partial:
            return self._partial_prompt(observation, memory)
        here = self._position(observation)
        grid = self._grid(observation)
        return self.template.fill({
            "position": f"({here[0]}, {here[1]})", "goal": f"({self._goal[0]}, {self._goal[1]})",
            "example": PATH_EXAMPLE, "legend": legend(), "memory": memory,
            "maze": draw(grid, start=self._start, coordinates=self.coordinates),
            "height": grid.shape[0], "width": grid.shape[1]})

    def _partial_prompt(self, observation: Any, memory: str) -> str:
        window = self._window(observation)
        rows, cols = visible_box(window)
        k = window.shape[0] // 2
        moved = self._explored.displacement()
        start = (k - moved[0], k - moved[1])
        in_view = rows.start <= start[0] < rows.stop and cols.start <= start[1] < cols.stop
        view = draw(window[rows, cols], start=(start[0] - rows.start, start[1] - cols.start) if in_view else None)
        explored = ""
        if self.explored_map:
            codes, _, start_cell = self._explored.seen()
            explored = f"Map explored so far (your own frame):\n{draw(codes, start=start_cell)}\n"
        return self.template.fill({"k": self.k, "agent": PROMPT_SYMBOLS.agent, "view": view,
                                   "legend": legend(masked=True), "explored": explored, "memory": memory})

    def _images(self, observation: Any) -> list[np.ndarray]:
        return []


class VLMAgent(LLMAgent):
    """``LLMAgent`` for ``Maze-v0`` with MazeBench's picture of the maze (image2d) instead of text rows:
    black walls, white passages, green start, red goal, the agent orange once it has left the start."""

    template_name = "image"

    def __init__(self, env: gym.Env, client: ChatClient | None, *, cell_px: int = 24, **options: Any) -> None:
        if isinstance(env.unwrapped, PartialObsMazeEnv):
            raise MazeConfigError("VLMAgent plays Maze-v0 (the full map); use LLMAgent for Maze-PartialObs-v0")
        self.cell_px = cell_px
        super().__init__(env, client, **options)

    def _images(self, observation: Any) -> list[np.ndarray]:
        grid = self._grid(observation)
        here = self._position(observation)
        return [benchmark_picture(Grid(grid == WALL, self._start, self._goal), self.cell_px, agent=here)]

