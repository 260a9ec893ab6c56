"""The benchmark's ``tools`` mode as an Inspect task: the maze functions are Inspect tools, so Inspect's own agents
(``react``, ``basic_agent``) and any solver that calls tools play it.

Each sample is one ``tools`` trial of ``maze-envs bench`` (same trial ids and seeds). The task's setup solver opens
the trial's episode (``evaluators.bench.tools.ToolsEpisode`` on the trial's grid env) and puts the bench's first
prompt in the conversation; the tools ``move`` (and ``look`` in the ``partial`` variant) play their calls on that
episode under the bench's rules; the default solver is ``react`` with those tools and ``maze_continue``, which counts
each reply as the bench does (a reply without a call is an invalid call and gets the bench's error message) and
stops the agent when the episode is over. ``maze_scorer`` reports the bench record's fields, so for the same seeds
and replies a sample scores what ``maze-envs bench --mode tools`` records.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from inspect_ai import Task, task
from inspect_ai.agent import AgentState, react
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, tool
from inspect_ai.util import store

from maze_envs.core.maze_tools import LOOK, MOVE, ToolCall
from maze_envs.evaluators.bench.config import BenchConfig
from maze_envs.evaluators.bench.interactive import trial_budgets
from maze_envs.evaluators.bench.tools import ToolsEpisode, tools_prompt, tools_record, tools_setup
from maze_envs.evaluators.bench.trials import BenchTrial

from .tasks import MODEL_NAME, inspect_messages, task_trials

EPISODE_KEY = "maze_envs_episode"
# The bench record's fields a sample's score reports (numbers; success and ended_in_loop as 1 or 0).
SCORE_FIELDS = ("success", "api_calls", "function_calls", "invalid_calls", "cell_moves", "wall_collisions",
                "path_efficiency", "revisits", "revisits_per_cell", "max_cell_visits", "longest_revisit_run",
                "ended_in_loop")


@dataclass
class _Open:
    trial: BenchTrial
    presentation: Any
    shown: Any
    env: Any
    episode: ToolsEpisode
    calls_seen: int = 0  # the episode's calls when the last reply was counted


class Episodes:
    """The episodes a task's samples are playing, by the key each sample's store holds (``EPISODE_KEY``)."""

    def __init__(self, trials: dict[str, BenchTrial]) -> None:
        self.trials = trials
        self._open: dict[str, _Open] = {}

    def open(self, sample_id: str) -> tuple[str, list[dict[str, Any]]]:
        """Open the episode of the sample's trial; return its key and the bench's first messages."""
        trial = self.trials[sample_id]
        budgets = trial_budgets(trial.config, trial.item)
        presentation, shown, env, episode = tools_setup(trial.config, trial.item, budgets)
        key = uuid.uuid4().hex
        self._open[key] = _Open(trial, presentation, shown, env, episode)
        return key, tools_prompt(shown, trial.config.variant, budgets, episode.reset(trial.item.seed))

    def current(self) -> ToolsEpisode:
        """Return the episode of the sample being played (from its store)."""
        return self._open[store().get(EPISODE_KEY)].episode

    def count_reply(self, called: bool, text: str) -> str | None:
        """Count the sample's latest reply as the bench does (``called``: it called functions, already played by the
        tools; else ``text`` is an invalid call); return the error message a reply without a call gets, else
        None. A reply after the end is not counted."""
        opened = self._open[store().get(EPISODE_KEY)]
        episode = opened.episode
        message = None
        if episode.calls > opened.calls_seen:
            episode.replies += 1
        elif not called and not episode.over:
            episode.replies += 1
            message = episode.no_call(text)
        opened.calls_seen = episode.calls
        return message

    def close(self, key: str) -> dict[str, Any]:
        """Close the episode ``key``; return its bench record (the trial's fields, then what the bench measures)."""
        opened = self._open.pop(key)
        opened.env.close()
        item = opened.trial.item
        body = tools_record(opened.trial.config, item, opened.presentation, opened.shown, opened.episode, [])
        head = {"model": item.model, "size": item.size, "maze": item.maze.name, "trial": item.trial,
                "seed": item.seed}
        return {**head, **body}


def maze_tools(episodes: Episodes, variant: str) -> list[Tool]:
    """Return the Inspect tools of ``variant``: ``move`` (and ``look`` in ``partial``), playing on the sample's
    episode; each returns the bench's JSON result (an error result for bad arguments or after the end)."""

    @tool(name=MOVE, parallel=False)
    def move() -> Tool:
        async def execute(direction: str, steps: int = 1) -> str:
            """Walk up to `steps` cells in one direction; you stop early at a wall or on the goal. Returns your
            position, whether a wall blocked you, the free directions and the distance to the wall in each
            direction (and, in the partial variant, what you can see).

            Args:
                direction: which way to walk: up, right, down or left.
                steps: how many cells to walk (1 to the grid's longer side).
            """
            arguments = json.dumps({"direction": direction, "steps": steps})
            return episodes.current().call(ToolCall(uuid.uuid4().hex, MOVE, arguments))
        return execute

    @tool(name=LOOK, parallel=False)
    def look() -> Tool:
        async def execute() -> str:
            """Look around without moving: returns the same report as move, with the window of cells you can see."""
            return episodes.current().call(ToolCall(uuid.uuid4().hex, LOOK, "{}"))
        return execute

    return [move()] if variant == "full" else [move(), look()]


@solver
def maze_setup(episodes: Episodes) -> Solver:
    """Return the setup solver: it opens the sample's episode and puts the bench's first prompt in the
    conversation."""
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        key, messages = episodes.open(str(state.sample_id))
        state.store.set(EPISODE_KEY, key)
        state.messages = inspect_messages(messages)
        return state
    return solve


def maze_continue(episodes: Episodes):
    """Return ``react``'s ``on_continue`` hook: it counts each reply (one without a function call is an invalid call
    answered with the bench's error message) and stops the agent once the episode is over."""
    async def on_continue(state: AgentState) -> bool | str:
        message = episodes.count_reply(bool(state.output.message.tool_calls), state.output.completion)
        if episodes.current().over:
            return False
        return message if message is not None else True
    return on_continue


@scorer(metrics={"*": [mean()]})
def maze_scorer(episodes: Episodes):
    """Return the scorer that closes the sample's episode and reports the bench record's fields (``SCORE_FIELDS``
    and the scores' ``total``); the whole record is the score's metadata."""
    async def score(state: TaskState, target: Target) -> Score:
        record = episodes.close(state.store.get(EPISODE_KEY))
        values = {name: float(record[name]) for name in SCORE_FIELDS}
        values["total"] = float(record["scores"]["total"])
        return Score(value=values, answer=record["outcome"], metadata={"trial": record})
    return score


@task
def tools(variant: str = "full", sizes: str = "5x5", count: int = 2, seed: int = 42, trials: int = 1,
          mazes_dir: str | None = None, scoring: str = "v2", anti_cheat: bool = True, max_calls: int = 50,
          max_moves: int | None = None, visibility: int = 3) -> Task:
    """The tools mode: the model moves by calling ``move`` (and ``look`` in the ``partial`` variant)."""
    size_list = tuple(s.strip() for s in sizes.split(","))
    config = BenchConfig(mode="tools", variant=variant, models=(MODEL_NAME,), sizes=size_list, trials=trials,
                         seed=seed, scoring=scoring, anti_cheat=anti_cheat, mazes_dir=mazes_dir or "",
                         generate_mazes=mazes_dir is None, maze_count=count, max_calls=max_calls,
                         max_moves=max_moves, visibility=visibility).validated()
    made = task_trials(config)
    episodes = Episodes({t.id: t for t in made})
    samples = [Sample(id=t.id, input=f"tools trial {t.id}", metadata={"size": t.item.size, "maze": t.item.maze.name,
                                                                       "trial": t.item.trial, "seed": t.item.seed})
               for t in made]
    return Task(dataset=MemoryDataset(samples, name=f"maze-envs-tools-{variant}"), setup=maze_setup(episodes),
                solver=react(tools=maze_tools(episodes, variant), on_continue=maze_continue(episodes)),
                scorer=maze_scorer(episodes))
