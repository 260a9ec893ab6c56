"""The LLM maze benchmark's trial API: what a framework (Inspect, your own loop) drives, and what ``maze-envs bench``
itself runs on.

A trial is one maze of a set, under one protocol and mode, for the ``index``-th time, with a seed that follows from
(the run's seed, size, maze, index) alone, so the same settings give the same trials, presentations and prompts
everywhere. The protocol's own trial rules (``BenchRules.trial``) play it; this module only hands its questions out
and takes the answers back:

- ``bench_trials(config, mazes)`` builds the trials of a maze set (``BenchTrial``), in the bench's order;
- ``present(trial)`` returns the chat messages (text and images) the bench would send first;
- ``grade(trial, reply)`` returns the ``Outcome`` of a one-shot trial (text2d, image2d) given the model's reply:
  the protocol's record and scores with this benchmark's strict verdict;
- ``start(trial, players)`` opens a ``Session``: its ``ask`` is the first question; ``observe(reply)`` gives the
  next ``Ask`` or the ``Outcome`` (multi-turn modes ask once per decision; one-shot modes once);
  ``fail(error)`` reports a model call that failed, which the protocol counts as its rules say;
- ``play(trial, client, players)`` answers the trial's questions with a chat client and returns the record the
  bench writes (``run_bench`` calls it for every trial).

A protocol's trial rules are a generator that yields each question (``Ask``) and is sent each reply
(``trial_steps``); a session drives that generator one reply at a time, and ``play`` is the loop that answers
each question with a chat client, so a trial played one reply at a time writes exactly the record that
``maze-envs bench`` writes for it.

Example::

    config = BenchConfig(mode="text2d", sizes=("5x5",), models=("my-model",), mazes_dir="mazes").validated()
    for trial in bench_trials(config):
        messages = present(trial)
        outcome = grade(trial, my_model(messages))
        print(trial.id, outcome.scores["total"], outcome.strict["success"])
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Union

from maze_envs import protocols
from maze_envs.core.errors import MazeConfigError
from maze_envs.llm import Ask, Asking, Meter, ModelConfig, Reply, RunStats, Tally, Usage, answer
from maze_envs.llm.client import Message

from .config import BenchConfig
from .mazes import BenchMaze, prepare_mazes
from .players import Players


@dataclass(frozen=True)
class Trial:
    """One work item's payload: which ``model`` plays which ``maze`` (of ``size``) for the ``trial``-th time,
    with ``seed`` (the same for every model, so models meet the same presentations)."""

    model: str
    size: str
    maze: BenchMaze
    trial: int
    seed: int

    @property
    def id(self) -> str:
        """Return the stable id of this trial."""
        return f"{self.model}|{self.size}|{self.maze.name}|{self.trial}"


def trial_seed(base: int, size: str, maze: str, trial: int) -> int:
    """Return the seed of a trial: a stable hash of the base seed, size, maze name and trial number."""
    digest = hashlib.sha256(f"{base}|{size}|{maze}|{trial}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


@dataclass(frozen=True)
class BenchTrial:
    """A trial with the settings it is played under (``config``, validated: mode, protocol, scoring, budgets)."""

    config: BenchConfig
    item: Trial

    @classmethod
    def make(cls, config: BenchConfig, size: str, maze: BenchMaze, index: int,
             model: str | None = None) -> "BenchTrial":
        """Return the ``index``-th trial of ``maze`` (of ``size``) under ``config`` for ``model`` (default: the
        config's first model), seeded by ``trial_seed(config.seed, size, maze.name, index)``."""
        config = config.validated()
        name = model or config.models[0]
        return cls(config, Trial(name, size, maze, index, trial_seed(config.seed, size, maze.name, index)))

    @property
    def id(self) -> str:
        """Return the stable id of this trial (``model|size|maze|index``), as in ``results.jsonl``."""
        return self.item.id

    @property
    def mode(self) -> str:
        """Return the benchmark mode the trial is played in."""
        return self.config.mode

    @property
    def multi_turn(self) -> bool:
        """Return whether the mode asks once per decision (ai, partial-observe) rather than once."""
        return self.config.mode in MULTI_TURN


MULTI_TURN = ("ai", "partial-observe", "tools")


def shared_settings(config: BenchConfig) -> dict[str, Any]:
    """Return the settings a trial's record must share with the run to be kept on resume: mode, scoring,
    anti-cheat, the protocol (unless it is one that does not stamp its records, ``Protocol.stamp``) and, in the
    ai/partial-observe modes, the budgets and the agent's memory (and the partial-observe visibility and explored
    map); in the tools mode the budgets, the variant and (partial variant) the visibility."""
    out: dict[str, Any] = {"mode": config.mode, "scoring": config.scoring, "anti_cheat": config.anti_cheat}
    if protocols.protocol(config.protocol).stamp:
        out["protocol"] = config.protocol
    if config.mode in MULTI_TURN:
        out["budgets"] = {"max_calls": config.max_calls, "max_moves": config.max_moves,
                          "max_no_exploration_steps": config.max_no_exploration_steps, "memory": config.memory}
        if config.mode == "partial-observe":
            out["budgets"].update(visibility=config.visibility, explored_map=config.explored_map)
        if config.mode == "tools":
            out["budgets"] = {"max_calls": config.max_calls, "max_moves": config.max_moves, "variant": config.variant,
                              **({"visibility": config.visibility} if config.variant == "partial" else {})}
    return out


def record_head(config: BenchConfig, trial: Trial) -> dict[str, Any]:
    """Return the fields every record of ``trial`` starts with: who, which maze, which trial, its seed and the
    shared settings."""
    return {"model": trial.model, "size": trial.size, "maze": trial.maze.name, "trial": trial.trial,
            "seed": trial.seed, **shared_settings(config)}


def bench_trials(config: BenchConfig, mazes: Mapping[str, list[BenchMaze]] | None = None) -> list[BenchTrial]:
    """Return every trial of ``config`` over ``mazes`` (default: the config's maze set, ``prepare_mazes``) in
    model, size, maze, trial order: the work items of ``maze-envs bench``."""
    config = config.validated()
    mazes = prepare_mazes(config) if mazes is None else mazes
    return [BenchTrial(config, Trial(model, size, maze, k, trial_seed(config.seed, size, maze.name, k)))
            for model in config.models for size in config.sizes for maze in mazes[size]
            for k in range(config.trials)]


@dataclass(frozen=True)
class Outcome:
    """How a trial ended: ``record``, its ``results.jsonl`` record under its protocol (``record_head``'s fields,
    then what the protocol's trial measured)."""

    record: dict[str, Any]

    @property
    def scores(self) -> dict[str, Any]:
        """Return the protocol's scores of the trial."""
        return self.record["scores"]

    @property
    def success(self) -> bool:
        """Return whether the trial succeeded by the protocol's rules."""
        return bool(self.record["success"])

    @property
    def strict(self) -> dict[str, Any]:
        """Return this benchmark's strict verdict (``success``, ``validation``, ``scores``): the record's own
        under the default protocol, the ``strict`` block beside a reference protocol's verdict."""
        block = self.record.get("strict")
        if isinstance(block, dict):
            return block
        return {key: self.record[key] for key in ("success", "validation", "scores")}


Step = Union[Ask, Outcome]


def trial_steps(trial: BenchTrial, players: Players | None, meter: Meter) -> Asking[dict[str, Any]]:
    """Return the steps of ``trial`` by its protocol's rules (``BenchRules.trial``), yielding each question; they
    return the trial's record (``record_head``'s fields, then what the protocol's trial measured)."""
    rules = protocols.load(protocols.protocol(trial.config.protocol, "bench").bench.trial)
    body = yield from rules(meter, trial.config, trial.item, players)
    return {**record_head(trial.config, trial.item), **body}


def trial_meter(trial: BenchTrial, model: ModelConfig | None, local_server: bool) -> Tally:
    """Return the meter of one trial's replies: priced by ``model`` (default: no prices), its totals starting
    from nothing but the ``local_server`` flag."""
    return Tally(model or ModelConfig(model=trial.item.model), RunStats(local_server=local_server))


class Session:
    """One trial being played a reply at a time (``start``): ``ask`` is the pending question (None once it ended
    or for an agent without a model), ``outcome`` the end (None while it runs). Each reply is counted by
    ``meter`` (the prices of ``model``), as the trial's usage and local-server flag read it."""

    def __init__(self, trial: BenchTrial, players: Players | None, model: ModelConfig | None,
                 local_server: bool = False):
        self.trial = trial
        self.ask: Ask | None = None
        self.outcome: Outcome | None = None
        self.meter = trial_meter(trial, model, local_server)
        self._steps = trial_steps(trial, players, self.meter)
        self._advance(lambda: next(self._steps))

    def _advance(self, resume: Callable[[], Ask]) -> Step:
        try:
            self.ask = resume()
            return self.ask
        except StopIteration as done:
            self.ask = None
            self.outcome = Outcome(done.value)
            return self.outcome
        except BaseException:
            self.ask = None
            raise

    def _pending(self) -> None:
        if self.ask is None:
            raise MazeConfigError(f"trial {self.trial.id} asks nothing now (it has ended)", parameter="reply")

    def observe(self, reply: str | Reply) -> Step:
        """Answer the pending question with the model's ``reply`` (its text, or a chat ``Reply`` with usage);
        return the next ``Ask`` or the ``Outcome``. Raises what the trial raises, and ``MazeConfigError`` when
        nothing is asked."""
        if isinstance(reply, str):
            reply = Reply(reply, Usage(), 0.0, {})
        if not isinstance(reply, Reply):
            raise MazeConfigError(f"a reply is a string or a Reply, got {type(reply).__name__}", parameter="reply")
        self._pending()
        self.meter.count(reply)
        return self._advance(lambda: self._steps.send(reply))

    def fail(self, error: Exception) -> Step:
        """Report that the model call for the pending question failed with ``error``; return the next step (the
        protocol's rules decide whether the trial ends as a failure or raises ``error``)."""
        self._pending()
        return self._advance(lambda: self._steps.throw(error))

    def close(self) -> None:
        """Abandon the trial if it is still asking."""
        self.ask = None
        self._steps.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def start(trial: BenchTrial, players: Players | None = None, *, model: ModelConfig | None = None,
          local_server: bool = False) -> Session:
    """Return a ``Session`` playing ``trial`` (its first question in ``session.ask``; an agent without a model
    plays it out at once, to ``session.outcome``). The ai and partial-observe modes need ``players``
    (``maze_envs.agents.players.PLAYERS``). ``model`` prices the usage of replies (default: no prices)."""
    return Session(trial, players, model, local_server)


def present(trial: BenchTrial, players: Players | None = None) -> list[Message]:
    """Return the chat messages the bench sends first for ``trial`` ([] for an agent without a model)."""
    with start(trial, players) as session:
        return session.ask.messages if session.ask is not None else []


def grade(trial: BenchTrial, reply: str | Reply) -> Outcome:
    """Return the ``Outcome`` of the one-shot ``trial`` (text2d, image2d) answered with ``reply``: the protocol's
    record and scores, with this benchmark's strict verdict (``Outcome.strict``). Raises ``MazeConfigError``
    for a multi-turn trial (use ``start`` and ``observe``)."""
    if trial.multi_turn:
        raise MazeConfigError(f"{trial.mode} asks once per decision: play it with start() and observe()",
                              parameter="mode")
    with start(trial) as session:
        step = session.observe(reply)
        if isinstance(step, Ask):
            raise MazeConfigError(f"trial {trial.id} asked again after its one reply", parameter="mode")
        return step


def play(trial: BenchTrial, client: Any, players: Players | None = None) -> dict[str, Any]:
    """Return the record of ``trial`` played against the chat ``client`` (a ``ChatClient``; None for a
    baseline's trial): each question is sent with ``client.chat`` (``maze_envs.llm.answer``); the protocol's
    rules decide what a failed call means. Raises what the protocol's trial raises."""
    model = client.config if client is not None else None
    meter = trial_meter(trial, model, bool(client is not None and client.stats.local_server))
    return answer(trial_steps(trial, players, meter), client, tally=meter)
