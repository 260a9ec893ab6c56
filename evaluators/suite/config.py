"""What a suite runs: the settings (``SuiteConfig``), the modalities, and who plays them (``Player``).

A player is named on the command line: ``oracle`` (the reference of every modality), ``random`` and
``explorer`` (baseline agents), ``policy`` (a trained policy file), ``local:POLICY`` (a chat model served by
the local model server with that policy: ``oracle``, ``text-only``, ``module:callable``) or any other name
(a chat model on the configured endpoint). A folder of the generations directory is a player too (its
generations are scored); a folder named like a ``--models`` entry adds the generation modalities to it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.generators import GENERATORS
from maze_envs.core.validate import choice, integer
from maze_envs.core.validate import size as check_size


@dataclass(frozen=True)
class Modality:
    """One way of posing a maze: its ``name``, its ``family`` (one-shot, interactive, grid, 3d, generation) and
    what it ``means`` (shown in the report)."""

    name: str
    family: str
    means: str


MODALITIES: dict[str, Modality] = {m.name: m for m in (
    Modality("text2d", "one-shot", "the maze as text rows, one reply with the whole path (benchmark text2d)"),
    Modality("image2d", "one-shot", "the maze as a picture, one reply with the whole path (benchmark image2d)"),
    Modality("ai-text", "interactive", "full map as text, played move by move (benchmark ai, LLMAgent)"),
    Modality("ai-image", "interactive", "full map as a picture, played move by move (benchmark ai, VLMAgent)"),
    Modality("partial-text", "interactive", "partial view as text, played move by move (benchmark partial-observe)"),
    Modality("tools-full", "interactive", "the maze drawn once, moved by function calls (benchmark tools, full)"),
    Modality("tools-partial", "interactive", "line-of-sight windows, moved by function calls (benchmark tools, "
                                             "partial)"),
    Modality("grid", "grid", "an agent on the grid env of the maze, full map (Maze-v0)"),
    Modality("grid-partial", "grid", "an agent on the grid env of the maze, partial view (Maze-PartialObs-v0)"),
    Modality("nav3d", "3d", "the layout as a procedural Gaussian-splat scene, start to goal through nav-eval"),
    Modality("gen-image", "generation", "a generated solution image, scored by the pixel evaluator (and judge)"),
    Modality("gen-video", "generation", "a generated solution video, scored by the pixel evaluator (and judge)"),
)}
CHAT_MODALITIES = ("text2d", "image2d", "ai-text", "ai-image", "partial-text", "tools-full", "tools-partial", "nav3d")
GENERATION_MODALITIES = ("gen-image", "gen-video")
BASELINES = {"random": ("grid", "grid-partial", "nav3d"), "explorer": ("grid-partial",),
             "policy": ("grid-partial",)}
LOCAL_PREFIX = "local:"
_CHAT = ("base_url", "provider", "temperature", "max_tokens")
_PLAY = ("scoring", "max_calls", "memory", "explored_map", "visibility", "max_no_exploration")
# the settings that can change a record's outcome, per modality family (resuming keeps records that share them)
PROTOCOL = {"one-shot": ("anti_cheat", "scoring", "cell_px", *_CHAT),
            "interactive": ("anti_cheat", "cell_px", *_PLAY, *_CHAT), "grid": (*_PLAY, "policy"),
            "3d": ("nav_view", "nav_max_steps", *_CHAT), "generation": ("generations", "judge_model", *_CHAT)}
DEFAULT_MODELS = ("oracle", "local:text-only", "random")


@dataclass(frozen=True)
class Player:
    """Who plays: its ``name``, ``kind`` (oracle, chat, baseline, policy, generation), the local server
    ``policy`` of a chat model served here (None: the configured endpoint), and whether it has generations."""

    name: str
    kind: str
    policy: str | None = None
    generations: bool = False

    def plays(self) -> tuple[str, ...]:
        """Return the modalities this player can play, in the order of ``MODALITIES``."""
        if self.kind == "oracle":
            return tuple(MODALITIES)
        own = {"chat": CHAT_MODALITIES, "generation": ()}.get(self.kind) or BASELINES.get(self.name, ())
        return tuple(m for m in MODALITIES if m in own or (self.generations and m in GENERATION_MODALITIES))

    @property
    def chat(self) -> bool:
        """Return whether the player answers prompts through a chat client (the oracle does, on the local server)."""
        return self.kind in ("oracle", "chat")


def parse_player(name: str, *, generations: bool = False) -> Player:
    """Return the player a ``--models`` entry names; raises ``MazeConfigError`` about ``models`` for an empty
    name or an empty local policy."""
    if not name.strip():
        raise MazeConfigError("a model name must not be empty", parameter="models")
    if name == "oracle":
        return Player(name, "oracle", "oracle", generations=True)
    if name in BASELINES:
        return Player(name, "policy" if name == "policy" else "baseline", generations=generations)
    if name.startswith(LOCAL_PREFIX):
        policy = name[len(LOCAL_PREFIX):]
        if not policy:
            raise MazeConfigError(f"{name!r}: name the local server's policy, e.g. local:oracle or local:text-only",
                                  parameter="models")
        return Player(name, "chat", policy, generations=generations)
    return Player(name, "chat", generations=generations)


@dataclass(frozen=True)
class SuiteConfig:
    """Every setting of a suite run besides how it executes.

    ``models`` name the players (see the module notes), ``sizes`` the benchmark grid sizes (``HxW``, walls
    included), ``count`` mazes per size (maze i seeded ``seed + i``), ``trials`` per player x maze x modality,
    ``modalities`` those to run (empty: all). ``generations`` is a folder of generated images/videos, one
    sub-folder per generation model, each file named as the pixel evaluator expects
    (``<task>_targeted_solution.png``, ``<task>.mp4``; the tasks are written to ``<output_dir>/tasks``);
    ``judge_model`` (a player-style name) judges them too. ``policy`` is the ``model.pt`` of the ``policy``
    player. Chat models other than ``local:`` ones use ``base_url``/``provider``/``api_key_env``/``timeout``, each
    None unless given, and then from the environment, the ``model_config`` YAML file or the default, in that order
    (``maze_envs.llm.factory``).
    ``max_calls`` is the API-call budget of an interactive trial, ``max_no_exploration`` its run of decisions
    without a new cell, ``memory`` the past turns recalled in each prompt, ``explored_map`` whether partial-view
    prompts also show the map explored so far, ``visibility`` the partial view's radius; ``nav_view`` the 3D
    views' side in pixels and ``nav_max_steps`` the 3D step budget (None: three times the shortest path in
    2 m steps, plus 10).
    """

    models: tuple[str, ...] = DEFAULT_MODELS
    sizes: tuple[str, ...] = ("5x5", "7x7")
    count: int = 2
    seed: int = 0
    output_dir: str = "maze-envs-suite"
    modalities: tuple[str, ...] = ()
    trials: int = 1
    generations: str | None = None
    judge_model: str | None = None
    policy: str | None = None
    algorithm: str = "dfs"
    anti_cheat: bool = True
    scoring: str = "v2"
    base_url: str | None = None
    provider: str | None = None
    api_key_env: str | None = None
    timeout: float | None = None
    model_config: str | None = None
    temperature: float = 0.0
    max_tokens: int = 1000
    cell_px: int = 16
    max_calls: int = 100
    memory: int = 5
    explored_map: bool = True
    visibility: int = 3
    max_no_exploration: int = 20
    nav_view: int = 48
    nav_max_steps: int | None = None

    def validated(self) -> "SuiteConfig":
        """Return ``self`` after checking every field; raises ``MazeConfigError`` naming the bad one."""
        if not self.models:
            raise MazeConfigError("give at least one model", parameter="models")
        if len(set(self.models)) != len(self.models):
            raise MazeConfigError("each model may be named once", parameter="models")
        players = [parse_player(m) for m in self.models]
        if any(p.kind == "policy" for p in players) and not self.policy:
            raise MazeConfigError("the 'policy' player needs a trained policy file", parameter="policy")
        if not self.sizes:
            raise MazeConfigError("give at least one size such as 7x7", parameter="sizes")
        for size in self.sizes:
            check_size(size, 3, parameter="sizes")
        for modality in self.modalities:
            choice(modality, MODALITIES, parameter="modalities")
        choice(self.algorithm, GENERATORS, parameter="algorithm")
        for name, low in (("count", 1), ("trials", 1), ("max_calls", 1), ("max_tokens", 1), ("cell_px", 4),
                          ("visibility", 1), ("max_no_exploration", 1), ("nav_view", 16), ("nav_max_steps", 1)):
            integer(getattr(self, name), low, optional=name == "nav_max_steps", parameter=name)
        return self

    @property
    def chosen(self) -> tuple[str, ...]:
        """Return the modalities to run, in the order of ``MODALITIES``."""
        return tuple(m for m in MODALITIES if not self.modalities or m in self.modalities)

    def protocol(self, modality: str) -> dict[str, Any]:
        """Return the settings a record of ``modality`` must share with the run to be kept on resume: those that
        can change its outcome (adding ``generations`` later keeps every other modality's records)."""
        return {name: getattr(self, name) for name in ("seed", "algorithm", *PROTOCOL[MODALITIES[modality].family])}

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as a JSON-ready dict."""
        return {f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v for f in fields(self)}
