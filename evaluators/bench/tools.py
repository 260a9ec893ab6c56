"""The ``tools`` mode of the LLM maze benchmark: the model moves by function calls.

The model is offered ``move(direction, steps)`` (and ``look()`` in the ``partial`` variant;
``maze_envs.core.maze_tools``); each call is played on the grid env of the trial's maze (``Maze-v0`` for ``full``,
``Maze-PartialObs-v0`` with the trial's visibility for ``partial``: its line of sight) by
``maze_envs.envs.grid.tools.MazeTools`` and answered with a JSON result. The ``full`` variant draws the whole maze
once in the first prompt; ``partial`` shows only what each result's window shows. Both state the grid's size, the
start and the goal, and the start's report.

Rules (``ToolsEpisode``): the calls of one reply are played in order; a reply that calls no function gets an error
message (as a user message) and counts as one invalid call; an unknown function or bad arguments get an error
result and count as invalid calls; every call, valid or not, counts against ``max_calls``. The episode ends on the
goal, when ``max_calls`` calls were made or when ``max_moves`` cells were moved; calls of the ending reply after
that are answered "the episode is over" and not counted.

``tools_trial`` is the trial as steps (``maze_envs.llm.Asking``): it yields each question (``Ask``: the conversation so
far and the request parameters, the function definitions in ``params["tools"]``), is sent each ``Reply`` and returns
the record body; the default protocol's trial rules run it for the ``tools`` mode, so ``maze-envs bench``, the trial
API (``start``/``observe``) and the suite play the same steps. The record holds the walk graded as in the ai mode
(validation, scores), success, why it stopped, the replies (``api_calls``), ``function_calls``, ``invalid_calls``,
``cell_moves``, ``wall_collisions``, ``path_efficiency`` (shortest path over cells moved, 0 without the goal) and the
loop measures (``maze_envs.core.loops``).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import numpy as np

from maze_envs.core.loops import loop_measures
from maze_envs.core.maze_tools import (
    START_REPORT,
    TOOL_SYMBOLS,
    TaskLine,
    ToolArgumentError,
    ToolCall,
    read_call,
    tool_definitions,
    tool_error,
)
from maze_envs.core.render import text_rows
from maze_envs.envs.grid.tools import MazeTools
from maze_envs.llm import Ask, Asking, Meter, Reply, RunStats

from .anticheat import choose_presentation, identity_presentation
from .config import BenchConfig
from .episode import Budgets, bench_env
from .oneshot import ShownMaze, show
from .scores import score
from .trials import Trial
from .validate import grade_path

NO_CALL = "your reply called no function: call move(direction, steps) to walk"
OVER = "the episode is over"
VARIANT_ENVS = {"full": "ai", "partial": "partial-observe"}
SYSTEM = ("You are an agent in a grid maze. You act only by calling the functions you are given; each call returns "
          "a JSON report of where you are. Reach the goal in as few cells and calls as you can.")


class ToolsEpisode:
    """One episode of the ``tools`` mode on ``tools`` within ``budgets`` (calls and cells moved; see the module
    docstring for the rules). ``log`` keeps each call with its result; ``replies`` counts the replies answered."""

    def __init__(self, tools: MazeTools, budgets: Budgets, max_steps: int) -> None:
        self.tools, self.budgets, self.max_steps = tools, budgets, max_steps
        self.replies = self.calls = self.invalid_calls = 0
        self.stopped_by = ""
        self.log: list[dict[str, Any]] = []

    @property
    def over(self) -> bool:
        """Return whether the episode has ended."""
        return bool(self.stopped_by)

    def reset(self, seed: int | None = None) -> str:
        """Start the episode; return the start's report (JSON)."""
        return self.tools.reset(seed).to_json()

    def _count(self) -> None:
        if self.tools.reached:
            self.stopped_by = "goal"
        elif self.calls >= self.budgets.max_calls:
            self.stopped_by = "max_calls"
        elif self.tools.moves >= self.budgets.max_moves:
            self.stopped_by = "max_moves"

    def call(self, call: ToolCall) -> str:
        """Play one function call; return its result (JSON): the report, or an error for an invalid call or a call
        after the end."""
        if self.over:
            return tool_error(OVER, done=True)
        self.calls += 1
        try:
            name, direction, steps = read_call(call, self.tools.variant, self.max_steps)
        except ToolArgumentError as exc:
            self.invalid_calls += 1
            self._count()
            text = tool_error(str(exc), done=self.over)
        else:
            result = self.tools.play(name, direction, steps)
            self._count()
            text = replace(result, done=self.over).to_json()
        self.log.append({"call": call.to_dict(), "result": json.loads(text)})
        return text

    def no_call(self, text: str = "") -> str:
        """Count a reply that called no function (an invalid call); return the error message it gets."""
        if self.over:
            return tool_error(OVER, done=True)
        self.calls += 1
        self.invalid_calls += 1
        self._count()
        message = tool_error(NO_CALL, done=self.over)
        self.log.append({"call": None, "text": text, "result": json.loads(message)})
        return message

    def count_reply(self) -> None:
        """Count a reply of the model (while the episode runs)."""
        self.replies += not self.over

    def answer(self, reply: Reply) -> list[dict[str, Any]]:
        """Play ``reply`` (its calls in order); return the messages that answer it (a ``tool`` message per call, or
        a user message with the error when it called nothing)."""
        self.count_reply()
        if not reply.tool_calls:
            return [{"role": "user", "content": self.no_call(reply.text)}]
        return [{"role": "tool", "tool_call_id": call.id, "content": self.call(call)} for call in reply.tool_calls]

    def counters(self, shortest_moves: int) -> dict[str, Any]:
        """Return the episode's counters and loop measures (``shortest_moves``: the optimal path's cell count)."""
        tools = self.tools
        efficiency = round(shortest_moves / tools.moves, 4) if tools.reached and tools.moves else 0.0
        return {"api_calls": self.replies, "function_calls": self.calls, "invalid_calls": self.invalid_calls,
                "cell_moves": tools.moves, "wall_collisions": tools.blocked_moves, "path_efficiency": efficiency,
                **loop_measures(tools.path, tools.reached).to_dict()}


def tools_prompt(shown: ShownMaze, variant: str, budgets: Budgets, start_report: str) -> list[dict[str, Any]]:
    """Return the first messages of a ``tools`` trial: the system message and the task (the maze drawn once in the
    ``full`` variant, the task line, the budgets and the start's report)."""
    task = TaskLine(tuple(shown.grid.shape), tuple(shown.start), tuple(shown.goal))
    parts = []
    if variant == "full":
        chars = np.where(np.asarray(shown.grid) == 1, TOOL_SYMBOLS.wall, TOOL_SYMBOLS.path).astype(object)
        chars[tuple(shown.start)], chars[tuple(shown.goal)] = TOOL_SYMBOLS.start, TOOL_SYMBOLS.goal
        parts.append(f"The maze ({TOOL_SYMBOLS.legend()}):\n{text_rows(chars)}")
    else:
        parts.append("You cannot see the whole maze: each report shows the window of cells in your line of sight "
                     f"({TOOL_SYMBOLS.legend(('wall', 'path', 'goal', 'agent', 'masked'))}) and the grid coordinates "
                     "of its top-left cell (window_origin). Call look() to see without moving.")
    parts.append(task.text())
    parts.append(f"The episode ends at the goal, after {budgets.max_calls} function calls or after "
                 f"{budgets.max_moves} cells moved. A reply without a function call counts as an invalid call.")
    parts.append(START_REPORT + start_report)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]


def tools_setup(config: BenchConfig, trial: Trial, budgets: Budgets) -> tuple[Any, ShownMaze, Any, ToolsEpisode]:
    """Return ``(presentation, shown maze, env, episode)`` of a ``tools`` trial, the episode not yet reset (the
    caller closes the env)."""
    rng = np.random.default_rng(trial.seed)
    presentation = choose_presentation(rng) if config.anti_cheat else identity_presentation()
    shown = show(trial.maze, presentation)
    env = bench_env(VARIANT_ENVS[config.variant], shown.grid, shown.start, shown.goal, visibility=config.visibility)
    episode = ToolsEpisode(MazeTools(env, config.variant), budgets, max(shown.grid.shape))
    return presentation, shown, env, episode


def tools_record(config: BenchConfig, trial: Trial, presentation: Any, shown: ShownMaze, episode: ToolsEpisode,
                 replies: list[Reply], meter: Meter | None = None) -> dict[str, Any]:
    """Return the record body of a played ``tools`` trial (``replies``: the model's replies, priced by ``meter``;
    none: unpriced)."""
    path = episode.tools.path
    verdict = grade_path(shown.grid, shown.start, shown.goal, path, shown.shortest_path, allow_revisits=True)
    usage = RunStats()
    for reply in replies:
        usage.add(reply, meter.config)
    usage.local_server |= bool(meter and meter.stats.local_server)
    return {
        "presentation": presentation.to_dict(),
        "variant": config.variant,
        "parsed_path": [list(c) for c in path],
        "published_path": [list(c) for c in presentation.original_path(path, trial.maze.shape)],
        "validation": verdict.to_dict(),
        "success": episode.tools.reached,
        "outcome": episode.stopped_by,
        "scores": score(verdict, path, shown.shortest_path, config.scoring).to_dict(),
        **episode.counters(len(shown.shortest_path) - 1),
        "actions": episode.log,
        "usage": usage.to_dict(),
        "latency_s": round(sum(r.latency for r in replies), 4),
        "local_server": usage.local_server,
    }


def tools_trial(meter: Meter, config: BenchConfig, trial: Trial, budgets: Budgets) -> Asking[dict[str, Any]]:
    """Return the steps of a ``tools`` trial: they yield each ``Ask`` (the conversation, and ``params`` with the
    function definitions under ``tools``), are sent the model's ``Reply`` and return the record body
    (``tools_record``; ``meter`` prices the replies)."""
    presentation, shown, env, episode = tools_setup(config, trial, budgets)
    replies: list[Reply] = []
    try:
        messages = tools_prompt(shown, config.variant, budgets, episode.reset(trial.seed))
        params = {"temperature": config.temperature, "max_tokens": config.max_tokens,
                  "tools": tool_definitions(config.variant, episode.max_steps)}
        while not episode.over:
            reply = yield Ask([dict(m) for m in messages], dict(params))
            replies.append(reply)
            messages.append(reply.message())
            messages += episode.answer(reply)
    finally:
        env.close()
    return tools_record(config, trial, presentation, shown, episode, replies, meter)
