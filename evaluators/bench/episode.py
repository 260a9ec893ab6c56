"""One episode of an agent on a benchmark maze, played move by move: the ai (``Maze-v0``, full map) and
partial-observe (``Maze-PartialObs-v0``) modes of MazeBench (https://github.com/Aileen-90/MazeBench).

The env plays the grid as shown (benchmark ``(row, col)``, no outer ring), so positions are benchmark cells.
Three budgets stop an episode, each counted apart: ``max_calls`` API calls (MazeBench's ``sandbox.max_steps``;
the LLM agent enforces it, agents without a model make none), ``max_moves`` cells moved, and ``max_no_exploration``
decisions in a row that reach no new cell. A decision is one API call of a model agent (with every move it leads to) or
one action of an agent without a model. As in MazeBench, a decision that reaches a new cell resets the no-exploration
counter, any other adds 1, and one that only hit a wall adds 1 in the ai mode and 2 in the partial-observe mode (where
the empty walk counts as well); the counter is checked when the agent makes its next decision, whose action is then
discarded. A reply the LLM agent rejects (a path into a wall or off the grid, a jump, an invalid output) is a decision
that moved nothing; walls and the grid's edge count as wall collisions, whether the agent's path check or the env found
them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from maze_envs.core.benchmark_frame import BenchmarkFrame
from maze_envs.core.codes import draw_codes
from maze_envs.core.maze import MOVE_NAMES, MOVES, Cell, Grid
from maze_envs.envs.agent import AgentStopped
from maze_envs.envs.grid.rules import idle_after_visit
from maze_envs.llm import Asking, answer

MODE_ENVS = {"ai": "Maze-v0", "partial-observe": "Maze-PartialObs-v0"}


@dataclass(frozen=True)
class Budgets:
    """What ends an episode besides the goal: ``max_calls`` API calls, ``max_moves`` cells moved and
    ``max_no_exploration`` decisions in a row without a new cell."""

    max_calls: int = 50
    max_moves: int = 1000
    max_no_exploration: int = 20


@dataclass(frozen=True)
class Turn:
    """One action of the episode: the ``view`` the agent saw (text rows), the ``calls`` the agent made to choose
    it (indices into ``agent.calls``; none for agents without a model or when it played on from an earlier
    reply), the ``action`` (``up`` or ``up 3``), the env's ``feedback``, the ``position`` after it and the
    cells ``moved``."""

    view: str
    calls: tuple[int, ...]
    action: str
    feedback: str
    position: Cell
    moved: int

    def to_dict(self) -> dict[str, Any]:
        """Return the turn as a JSON-ready dict."""
        return {"view": self.view, "calls": list(self.calls), "action": self.action, "feedback": self.feedback,
                "position": list(self.position), "moved": self.moved}


@dataclass
class Episode:
    """A played episode: the ``path`` walked (every cell in order, revisits included, start first), its
    ``turns``, why it stopped, the counters the benchmark reports and the ``mazebench`` rewards' sum."""

    path: list[Cell]
    turns: list[Turn] = field(default_factory=list)
    stopped_by: str = ""
    reached_goal: bool = False
    exploration_failed: bool = False
    api_calls: int = 0
    decisions: int = 0
    cell_moves: int = 0
    wall_collisions: int = 0
    invalid_outputs: int = 0
    invalid_jumps: int = 0
    exploration_rate: float = 0.0
    total_reward: float = 0.0

    @property
    def success(self) -> bool:
        """Return whether the goal was reached without failing the exploration rule (MazeBench's success)."""
        return self.reached_goal and not self.exploration_failed


def bench_env(mode: str, grid: np.ndarray, start: Cell, goal: Cell, *, visibility: int = 3) -> gym.Env:
    """Return the env of ``mode`` (ai: ``Maze-v0``; partial-observe: ``Maze-PartialObs-v0`` seeing ``visibility``
    cells) on the benchmark ``grid`` (0 free, 1 wall) from ``start`` to ``goal`` under the ``mazebench``
    protocol (its rewards), with no truncation of its own (the episode's budgets end it). The layout records
    that its blocks are benchmark cells (no ring)."""
    blocks = np.asarray(grid, dtype=np.uint8)
    layout = Grid(blocks, tuple(start), tuple(goal), meta=BenchmarkFrame((0, 0), blocks.shape).to_meta())
    options: dict[str, Any] = {"maze": layout, "protocol": "mazebench", "max_no_exploration_steps": None,
                               "max_steps": 2 ** 31 - 1, "max_episode_steps": None}
    if mode == "partial-observe":
        options["visibility"] = visibility
    return gym.make(MODE_ENVS[mode], **options)


def decode_action(action: Any, action_space: spaces.Space) -> tuple[int, int]:
    """Return ``(direction index, cells asked)`` of an env action (``Discrete(4)`` or ``MultiDiscrete([4, k])``)."""
    if isinstance(action_space, spaces.Discrete):
        return int(action), 1
    return int(action[0]), int(action[1]) + 1


def _feedback(direction: str, asked: int, moved: int, blocked: bool, outside: bool, reached: bool) -> str:
    """Return MazeBench's sandbox feedback for one action."""
    if reached:
        return "Goal reached!"
    if blocked:
        what = "out of bounds" if outside else "hit wall"
        return f"Wall collision after {moved} steps: {what}" if asked > 1 and moved else f"Wall collision: {what}"
    return f"Moved {direction}" + (f" {moved}" if asked > 1 else "")


def _view(observation: Any) -> str:
    codes = observation["view"] if isinstance(observation, dict) else observation
    return draw_codes(np.asarray(codes))


class _NoExploration:
    """MazeBench's no-exploration counter, updated once per decision by the envs' ``visited`` rule
    (``maze_envs.envs.grid.rules.idle_after_visit``): 0 after a decision that reached a new cell, else one more, and
    one more again in partial-observe for a decision that only hit a wall (its empty walk counts as well); an
    invalid output changes nothing. The env counts per action, a decision may play several, so the bench env's
    own counter is off and this one folds each decision's actions."""

    def __init__(self, partial: bool) -> None:
        self.partial = partial
        self.count = 0
        self._open()

    def _open(self) -> None:
        self.new_cell, self.moved, self.blocked, self.invalid = False, 0, False, False

    def close_decision(self) -> None:
        """Fold the decision that just ended into the counter."""
        if not self.invalid:
            failed = self.partial and self.blocked and not self.moved
            self.count = idle_after_visit(self.count, self.new_cell, failed)
        self._open()


REJECTED = {"wall_collision": "wall", "out_of_bounds": "wall", "invalid_jump": "jump", "invalid_output": "output"}


def play_episode(env: gym.Env, agent: Any, budgets: Budgets = Budgets(), *, seed: int | None = None,
                 record_views: bool = False) -> Episode:
    """Return the episode of ``agent`` in ``env`` (``episode_steps``), a model agent's questions answered by its
    own ``client``."""
    return answer(episode_steps(env, agent, budgets, seed=seed, record_views=record_views),
                  getattr(agent, "client", None))


def decision(agent: Any, observation: Any, info: dict[str, Any]) -> Asking[Any]:
    """Return the steps of the agent's next action: its ``decide`` steps (a model agent's questions), else its
    ``act``."""
    decide = getattr(agent, "decide", None)
    if decide is None:
        return agent.act(observation, info)
    return (yield from decide(observation, info))


def episode_steps(env: gym.Env, agent: Any, budgets: Budgets = Budgets(), *, seed: int | None = None,
                  record_views: bool = False) -> Asking[Episode]:
    """Return the steps of the episode of ``agent`` in ``env`` (from ``bench_env``) within ``budgets``, yielding
    each question a model agent asks.

    ``agent`` has ``reset()`` and ``act(observation, info)``, or ``decide(observation, info)``, the steps of an
    action; a model agent (``agents.llm.LLMAgent``) keeps its API calls on ``agent.calls`` (one ``CallRecord``
    each, whose ``outcome`` says whether the reply was used) and enforces the API-call budget itself by raising
    ``AgentStopped``. ``record_views`` keeps each turn's view as text (for transcripts). The agent sees no hidden
    coordinates in the partial-observe mode (``position``/``goal``/``optimal_length`` are left out of its
    info)."""
    base = env.unwrapped
    partial = hasattr(base, "k")
    hide = ("position", "goal", "optimal_length") if partial else ()
    observation, info = env.reset(seed=seed)
    agent.reset()
    here: Cell = tuple(info["position"])
    free_cells = int((base.layout.blocks == 0).sum())
    episode = Episode(path=[here])
    visited = {here}
    tracker = _NoExploration(partial)
    calls = getattr(agent, "calls", None)

    def decide() -> bool:
        """Start a decision; return False when the exploration rule ends the episode first."""
        if episode.decisions:
            tracker.close_decision()
            if tracker.count >= budgets.max_no_exploration:
                episode.exploration_failed, episode.stopped_by = True, "exploration_failed"
                return False
        episode.decisions += 1
        return True

    while True:
        made_before = len(calls) if calls is not None else 0
        view = _view(observation) if record_views else ""
        stopped = None
        try:
            action = yield from decision(agent, observation, {k: v for k, v in info.items() if k not in hide})
        except AgentStopped as stop:
            stopped, action = stop.reason, None
        new = list(range(made_before, len(calls))) if calls is not None else []
        episode.api_calls = len(calls) if calls is not None else 0
        going = True
        for i in new if calls is not None else [None]:
            going = decide()
            if not going:
                break
            outcome = calls[i].outcome if i is not None else "ok"
            if i is not None and (i != new[-1] or action is None) and outcome in REJECTED:
                # a reply the agent could not use: nothing moved
                tracker.invalid = outcome == "invalid_output"
                tracker.blocked = True
                episode.invalid_outputs += outcome == "invalid_output"
                episode.invalid_jumps += outcome == "invalid_jump"
                episode.wall_collisions += REJECTED[outcome] == "wall"
        if not going:
            break
        if stopped is not None:
            episode.stopped_by = stopped
            break
        if new and calls[new[-1]].outcome == "invalid_output":
            episode.invalid_outputs += 1   # answered by the policy's default move
        direction, asked = decode_action(action, env.action_space)
        bumps = info["wall_bumps"]
        observation, reward, terminated, _, info = env.step(action)
        episode.total_reward += float(reward)
        now: Cell = tuple(info["position"])
        moved = abs(now[0] - here[0]) + abs(now[1] - here[1])
        dr, dc = MOVES[direction]
        cells = [(here[0] + dr * i, here[1] + dc * i) for i in range(1, moved + 1)]
        blocked = info["wall_bumps"] > bumps
        ahead = (now[0] + dr, now[1] + dc)
        outside = not (0 <= ahead[0] < base.shape[0] and 0 <= ahead[1] < base.shape[1])
        tracker.new_cell |= any(c not in visited for c in cells)
        tracker.moved += moved
        tracker.blocked |= blocked
        visited.update(cells)
        episode.path += cells
        episode.cell_moves += moved
        episode.wall_collisions += int(blocked)
        name = MOVE_NAMES[direction]
        episode.turns.append(Turn(view, tuple(new),
                                  name if isinstance(env.action_space, spaces.Discrete) else f"{name} {asked}",
                                  _feedback(name, asked, moved, blocked, outside, bool(terminated)), now, moved))
        here = now
        if terminated:
            episode.reached_goal, episode.stopped_by = True, "goal"
            break
        if episode.cell_moves >= budgets.max_moves:
            episode.stopped_by = "max_moves"
            break
    episode.exploration_rate = len(visited) / free_cells if free_cells else 0.0
    episode.total_reward = round(episode.total_reward, 4)
    return episode
