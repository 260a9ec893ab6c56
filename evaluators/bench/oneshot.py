"""One trial of the one-shot modes: show the maze (text2d as text rows, image2d as a picture) under the
trial's presentation, ask once, read the path, grade it on the grid shown and map it back."""

from __future__ import annotations

import functools
import hashlib
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from maze_envs.core.maze import Grid
from maze_envs.core.render import benchmark_picture
from maze_envs.core.replies import ReadingRule, read_path
from maze_envs.llm import Asking, Meter, RunStats, ask
from maze_envs.llm.prompts import PromptTemplate

from .anticheat import Presentation
from .mazes import BenchMaze
from .prompts import PROMPTS_DIR
from .scores import score
from .validate import grade_path


@dataclass(frozen=True)
class ShownMaze:
    """The maze as one trial shows it: the transformed ``layout`` (a core ``Grid``) and ``shortest_path``."""

    layout: Grid
    shortest_path: list[tuple[int, int]]

    @property
    def grid(self) -> np.ndarray:
        """Return the shown grid's blocks (0 free, 1 wall)."""
        return self.layout.blocks

    @property
    def start(self) -> tuple[int, int]:
        """Return the shown start cell."""
        return self.layout.start

    @property
    def goal(self) -> tuple[int, int]:
        """Return the shown goal cell."""
        return self.layout.goal


def show(maze: BenchMaze, presentation: Presentation) -> ShownMaze:
    """Return ``maze`` as ``presentation`` shows it (the published shortest path moved along, so it stays exact)."""
    cell = lambda c: presentation.show_cell(c, maze.shape)  # noqa: E731
    return ShownMaze(Grid(presentation.show_grid(maze.grid), cell(maze.start), cell(maze.goal)),
                     [cell(c) for c in maze.shortest_path])


@functools.lru_cache(maxsize=None)
def template(mode: str) -> PromptTemplate:
    """Return the bundled prompt template of ``mode`` (text2d or image2d), read once."""
    return PromptTemplate.load(PROMPTS_DIR / f"{mode}.txt")


def prompt_for(mode: str, shown: ShownMaze, presentation: Presentation) -> str:
    """Return the filled prompt of ``mode`` for a shown maze."""
    height, width = shown.grid.shape
    values = {"height": height, "width": width, "nonce": presentation.nonce or "-",
              "start": f"({shown.start[0]}, {shown.start[1]})", "goal": f"({shown.goal[0]}, {shown.goal[1]})",
              "legend": presentation.legend(),
              "maze": presentation.draw(shown.layout)}
    return template(mode).fill(values)


def one_shot_trial(meter: Meter, maze: BenchMaze, presentation: Presentation, *, mode: str, scoring: str,
                   params: dict[str, Any], cell_px: int = 24,
                   reading_rule: str | ReadingRule = "strict") -> Asking[dict[str, Any]]:
    """Return the steps of one text2d/image2d trial: one question, then the record (``meter`` prices the reply):
    prompt hash, raw reply, the path ``reading_rule`` read (as shown and mapped back to the published frame) with
    how it was read, validation on the grid shown, scores and usage. Raise a failed call's error."""
    shown = show(maze, presentation)
    prompt = prompt_for(mode, shown, presentation)
    images = [benchmark_picture(shown.layout, cell_px)] if mode == "image2d" else []
    began = time.perf_counter()
    reply = yield ask(prompt, images=images, **params)
    latency = time.perf_counter() - began
    reading = read_path(reply.text, reading_rule)
    path = reading.cells
    verdict = grade_path(shown.grid, shown.start, shown.goal, path, shown.shortest_path)
    scores = score(verdict, path, shown.shortest_path, scoring)
    usage = RunStats()
    usage.add(reply, meter.config)
    return {
        "prompt_sha256": hashlib.sha256(prompt.encode("utf-8")).hexdigest(),
        "template_sha256": template(mode).sha256,
        "presentation": presentation.to_dict(),
        "raw_reply": reply.text,
        "parsed_path": [list(c) for c in path],
        "published_path": [list(c) for c in presentation.original_path(path, maze.shape)],
        "reading": {"rule": reading.rule, "form": reading.form, "ignored": reading.ignored, "choice": reading.choice},
        "validation": verdict.to_dict(),
        "success": verdict.valid,
        "scores": scores.to_dict(),
        "api_calls": 1,
        "invalid_outputs": 0 if path else 1,
        "usage": usage.to_dict(),
        "latency_s": round(latency, 4),
        "cached": reply.cached,
        "local_server": reply.local_server,
    }
