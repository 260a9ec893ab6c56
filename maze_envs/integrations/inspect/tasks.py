"""The Inspect tasks, solver and scorer of the LLM maze benchmark (see the package docstring)."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from typing import Any

import anyio
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ContentImage,
    ContentText,
    GenerateConfig,
    get_model,
)
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from maze_envs.agents.players import PLAYERS
from maze_envs.core.errors import MazeConfigError, brief_repr
from maze_envs.evaluators.bench.config import BenchConfig
from maze_envs.evaluators.bench.mazes import prepare_mazes
from maze_envs.evaluators.bench.trials import Ask, BenchTrial, bench_trials, start

MODEL_NAME = "inspect"  # the model name trials carry (Inspect's model answers them)
RECORD = "maze_envs_record"


def inspect_messages(messages: list[dict[str, Any]]) -> list[ChatMessage]:
    """Return chat messages (OpenAI format, images as ``image_url`` parts) as Inspect's chat messages."""
    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    out: list[ChatMessage] = []
    for message in messages:
        content = message["content"]
        if not isinstance(content, str):
            content = [ContentText(text=p["text"]) if p["type"] == "text" else ContentImage(image=p["image_url"]["url"])
                       for p in content]
        out.append(kinds[message.get("role", "user")](content=content))
    return out


def _generate_config(ask: Ask) -> GenerateConfig:
    return GenerateConfig(**{k: v for k, v in ask.params.items() if k in ("temperature", "max_tokens")})


def config_for(mode: str, *, protocol: str, sizes: str | list[str], count: int, seed: int, trials: int,
               mazes_dir: str | None, scoring: str, anti_cheat: bool) -> BenchConfig:
    """Return the bench settings of a task (a generated maze set of ``count`` per size unless ``mazes_dir``).
    Raises ``MazeConfigError`` about ``sizes`` unless it is text (``"5x5,9x9"``) or a list of texts: Inspect reads
    ``-T`` values as YAML, which takes ``0x0`` for a hexadecimal number."""
    if isinstance(sizes, str):
        size_list = tuple(s.strip() for s in sizes.split(","))
    elif isinstance(sizes, (list, tuple)) and all(isinstance(s, str) for s in sizes):
        size_list = tuple(sizes)
    else:
        raise MazeConfigError(f"must be sizes HxW such as '5x5,9x9', got {brief_repr(sizes)} (YAML reads a "
                              "value such as 0x0 as a hexadecimal number: quote it, -T sizes='\"9x9\"')",
                              parameter="sizes")
    return BenchConfig(mode=mode, protocol=protocol, models=(MODEL_NAME,), sizes=size_list, trials=trials,
                       seed=seed, scoring=scoring, anti_cheat=anti_cheat, mazes_dir=mazes_dir or "",
                       generate_mazes=mazes_dir is None, maze_count=count).validated()


def task_trials(config: BenchConfig) -> list[BenchTrial]:
    """Return the trials of ``config``, generating its maze set in a temporary folder when it names none."""
    if not config.generate_mazes:
        return bench_trials(config)
    with tempfile.TemporaryDirectory(prefix="maze-envs-inspect-") as folder:
        return bench_trials(config, prepare_mazes(replace(config, mazes_dir=folder)))


@solver
def bench_solver(trials: dict[str, BenchTrial]) -> Solver:
    """Return the solver that plays each sample's trial through the trial API with the model under evaluation:
    every question of the trial is one ``generate`` call; the record goes to the sample's store."""
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        session = start(trials[str(state.sample_id)], PLAYERS)
        try:
            step = session.ask if session.ask is not None else session.outcome
            while isinstance(step, Ask):
                messages = inspect_messages(step.messages)
                output = await model.generate(messages, config=_generate_config(step))
                state.messages.extend([*messages[-1:], output.message])
                state.output = output
                step = await anyio.to_thread.run_sync(session.observe, output.completion)
        finally:
            session.close()
        state.store.set(RECORD, step.record)
        return state
    return solve


@scorer(metrics={"*": [mean()]})
def bench_scorer():
    """Return the scorer that reports the protocol's scores of each trial (its numeric ``scores`` fields), its
    ``success`` and the strict ``strict_success`` (1 or 0), read from the record the solver stored."""
    async def score(state: TaskState, target: Target) -> Score:
        record = state.store.get(RECORD)
        strict = record.get("strict") if isinstance(record.get("strict"), dict) else record
        values = {key: float(value) for key, value in record["scores"].items()
                  if isinstance(value, (int, float)) and not isinstance(value, bool)}
        values.update(success=float(bool(record["success"])), strict_success=float(bool(strict["success"])))
        return Score(value=values, answer=str(record.get("parsed_path")), metadata={"trial": record})
    return score


def bench_task(mode: str, *, protocol: str = "default", sizes: str = "5x5", count: int = 2, seed: int = 42,
               trials: int = 1, mazes_dir: str | None = None, scoring: str = "v2", anti_cheat: bool = True) -> Task:
    """Return the Inspect task of one benchmark ``mode``: a sample per trial (id = the trial id), the trial-API
    solver and the protocol's scorer."""
    config = config_for(mode, protocol=protocol, sizes=sizes, count=count, seed=seed, trials=trials,
                        mazes_dir=mazes_dir, scoring=scoring, anti_cheat=anti_cheat)
    made = task_trials(config)
    samples = [Sample(id=t.id, input=f"{t.mode} trial {t.id}", metadata={"size": t.item.size, "maze": t.item.maze.name,
                                                                          "trial": t.item.trial, "seed": t.item.seed})
               for t in made]
    return Task(dataset=MemoryDataset(samples, name=f"maze-envs-{mode}"),
                solver=bench_solver({t.id: t for t in made}), scorer=bench_scorer())


@task
def text2d(protocol: str = "default", sizes: str = "5x5", count: int = 2, seed: int = 42, trials: int = 1,
           mazes_dir: str | None = None, scoring: str = "v2", anti_cheat: bool = True) -> Task:
    """The text2d mode: the maze as text rows, one reply with the path."""
    return bench_task("text2d", protocol=protocol, sizes=sizes, count=count, seed=seed, trials=trials,
                      mazes_dir=mazes_dir, scoring=scoring, anti_cheat=anti_cheat)


@task
def image2d(protocol: str = "default", sizes: str = "5x5", count: int = 2, seed: int = 42, trials: int = 1,
            mazes_dir: str | None = None, scoring: str = "v2", anti_cheat: bool = True) -> Task:
    """The image2d mode: the maze as a picture, one reply with the path."""
    return bench_task("image2d", protocol=protocol, sizes=sizes, count=count, seed=seed, trials=trials,
                      mazes_dir=mazes_dir, scoring=scoring, anti_cheat=anti_cheat)


@task
def ai(protocol: str = "default", sizes: str = "5x5", count: int = 2, seed: int = 42, trials: int = 1,
       mazes_dir: str | None = None, scoring: str = "v2", anti_cheat: bool = True) -> Task:
    """The ai mode: the full map each turn, one reply per decision."""
    return bench_task("ai", protocol=protocol, sizes=sizes, count=count, seed=seed, trials=trials,
                      mazes_dir=mazes_dir, scoring=scoring, anti_cheat=anti_cheat)


@task(name="partial-observe")
def partial_observe(protocol: str = "default", sizes: str = "5x5", count: int = 2, seed: int = 42, trials: int = 1,
                    mazes_dir: str | None = None, scoring: str = "v2", anti_cheat: bool = True) -> Task:
    """The partial-observe mode: a local view each turn, one reply per decision."""
    return bench_task("partial-observe", protocol=protocol, sizes=sizes, count=count, seed=seed, trials=trials,
                      mazes_dir=mazes_dir, scoring=scoring, anti_cheat=anti_cheat)
