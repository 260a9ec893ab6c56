"""Benchmark settings and where they come from: flags > environment > ``config/local.yaml`` >
``config/config.yaml``, MazeBench's precedence (https://github.com/Aileen-90/MazeBench).

The YAML files use MazeBench's keys (``model``/``models``, ``temperature``, ``OPENAI_API_BASE``, ``PROVIDER``,
``mode``, ``output_dir``, ``mazes_path``, ``generate_mazes``, ``maze_output_dir``, ``maze_count``,
``max_workers``, ``text2d``/``image2d`` {size, seed, start_goal, algorithm, cell_px} and ``sandbox``
{max_steps, memory, visibility, max_no_exploration_steps, mazes_path}; MazeBench's ``sandbox.max_steps`` is the
API-call budget, read as ``max_calls``) plus this benchmark's ``sizes``, ``trials``, ``scoring``, ``anti_cheat``,
``protocol``, ``max_calls``, ``max_moves`` and ``explored_map`` (top level or in ``sandbox``). Old spellings are
read with a one-line warning: ``max_steps`` as a top-level key or a flag (now ``max_calls``); ``protocol: strict``
is the old name of ``default`` (``maze_envs.protocols`` aliases).
``local.yaml`` is merged key by key into nested blocks (a ``sandbox:`` block in it changes only the keys it names), an
environment variable overrides both files even where they hold ``null``, and API keys are never read from a file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Mapping

from maze_envs import protocols
from maze_envs.core.errors import MazeConfigError, warn_deprecated
from maze_envs.core.generators import GENERATORS
from maze_envs.core.validate import choice, integer, number, positive_int
from maze_envs.core.validate import size as check_size
from maze_envs.core.yamlfiles import deep_merge, read_yaml
from maze_envs.llm.environment import model_settings

from .scores import SCORINGS

MODES = ("text2d", "image2d", "ai", "partial-observe", "tools")
VARIANTS = ("full", "partial")  # of the tools mode (maze_envs.core.maze_tools)
START_GOAL = ("corner", "random")
# MazeBench keys this benchmark has no use for; they are accepted and ignored.
IGNORED_KEYS = {"enable_thinking", "run_evaluation", "log_level", "log_file", "OPENAI_API_KEY", "AZURE_OPENAI_API_KEY",
                "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_VERSION", "AZURE_OPENAI_DEPLOYMENT", "ARK_API_KEY",
                "ARK_API_BASE"}
SECRET_KEYS = {"OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "ARK_API_KEY"}


@dataclass(frozen=True)
class BenchConfig:
    """Everything one benchmark run needs besides the model endpoint's own settings.

    ``max_calls`` is the API-call budget of ai/partial-observe trials and ``max_moves`` their budget of cells
    moved (None: 4 x the grid's cell count), counted apart; ``max_no_exploration_steps`` ends a trial after
    that many decisions in a row without a new cell; ``memory`` is how many past actions the agent is reminded
    of (0 none, -1 all), ``explored_map`` whether partial-observe prompts also show the map explored so far,
    ``visibility`` the partial-observe radius k (and the ``tools`` mode's in its ``partial`` variant). ``variant``
    is the ``tools`` mode's: ``full`` (the maze drawn once) or ``partial`` (line-of-sight windows); there
    ``max_calls`` counts function calls (``evaluators.bench.tools``). ``protocol`` names a registered protocol with
    bench rules (``maze_envs.protocols``): ``default`` reads, grades and summarises by this benchmark's rules;
    ``mazebench`` by MazeBench's (``evaluators.bench.mazebench``), with the strict verdict beside each. Maze generation
    (``generate_mazes``) writes ``maze_count`` mazes per size into ``maze_output_dir`` (default: the mazes
    directory) with ``algorithm``, ``start_goal`` and seeds ``seed + i``.
    """

    mode: str = "text2d"
    protocol: str = protocols.DEFAULT
    models: tuple[str, ...] = ()
    sizes: tuple[str, ...] = ()
    trials: int = 1
    workers: int = 4
    mazes_dir: str = "mazes"
    output_dir: str = "outputs"
    scoring: str = "v2"
    anti_cheat: bool = True
    temperature: float = 0.1
    max_tokens: int = 1000
    base_url: str | None = None
    provider: str | None = None
    generate_mazes: bool = False
    maze_output_dir: str | None = None
    maze_count: int = 5
    seed: int = 42
    algorithm: str = "dfs"
    start_goal: str = "corner"
    cell_px: int = 24
    max_calls: int = 50
    max_moves: int | None = None
    memory: int = 5
    explored_map: bool = False
    visibility: int = 3
    max_no_exploration_steps: int = 20
    variant: str = "full"

    def validated(self) -> "BenchConfig":
        """Return the settings after checking every field, with ``protocol`` under its canonical name; raises
        ``MazeConfigError`` naming the bad field."""
        choice(self.mode, MODES, parameter="mode")
        spec = protocols.protocol(self.protocol, "bench")
        if self.mode not in spec.bench.modes:
            raise MazeConfigError(f"the {spec.name} protocol plays the modes {', '.join(spec.bench.modes)}, not "
                                  f"{self.mode}", parameter="mode")
        choice(self.variant, VARIANTS, parameter="variant")
        choice(self.scoring, SCORINGS, parameter="scoring")
        choice(self.algorithm, GENERATORS, parameter="algorithm")
        choice(self.start_goal, START_GOAL, parameter="start_goal")
        if not self.models:
            raise MazeConfigError("give at least one model (or 'model'/'models' in the config, or MAZE_ENVS_MODEL)",
                                  parameter="models")
        if not self.sizes:
            raise MazeConfigError("give at least one size such as 9x9 (or 'sizes' or text2d.size in the config)",
                                  parameter="sizes")
        for size in self.sizes:
            check_size(size, parameter="sizes")
        for name, low in (("trials", 1), ("workers", 1), ("maze_count", 1), ("max_calls", 1), ("max_tokens", 1),
                          ("cell_px", 2), ("visibility", 1), ("max_no_exploration_steps", 1)):
            integer(getattr(self, name), low, parameter=name)
        positive_int(self.max_moves, optional=True, parameter="max_moves")
        if self.memory < -1:
            raise MazeConfigError(f"must be -1 (all), 0 (none) or a positive count, got {self.memory}",
                                  parameter="memory")
        return replace(self, protocol=spec.name)

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as a JSON-ready dict."""
        return {f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v for f in fields(self)}


def read_config_file(path: Path) -> dict[str, Any]:
    """Return the mapping in the benchmark config YAML at ``path`` ({} for an empty file); raises
    ``MazeConfigError`` naming the file when it cannot be read (``maze_envs.core.yamlfiles.read_yaml``) or holds an
    API key."""
    doc = read_yaml(path)
    for key in SECRET_KEYS:
        if doc.get(key):
            raise MazeConfigError(f"{path}: {key} must not be in a file; set the environment variable instead")
    return doc


def config_files(config: str | os.PathLike | None) -> list[Path]:
    """Return the YAML files to read, lowest precedence first: ``config`` (else ``config/config.yaml`` when
    it exists) and the ``local.yaml`` beside it when that exists. A named file that is missing raises."""
    if config is not None:
        main = Path(config)
        if not main.is_file():
            raise MazeConfigError(f"{main}: file not found", parameter="config")
    else:
        main = Path("config") / "config.yaml"
    local = main.parent / "local.yaml"
    return [p for p in (main, local) if p.is_file()]


def from_yaml(doc: Mapping[str, Any], source: str) -> dict[str, Any]:
    """Return the ``BenchConfig`` fields that MazeBench's config keys in ``doc`` set (``source`` names the
    files in errors)."""
    doc = dict(doc)
    sandbox = deep_merge({}, doc.pop("sandbox", None) or {}, source=source, key="sandbox")
    generation = {}
    for block in ("text2d", "image2d"):
        generation = deep_merge(generation, doc.pop(block, None) or {}, source=source, key=block)
    out: dict[str, Any] = {}
    renames = {"max_workers": "workers", "mazes_path": "mazes_dir", "OPENAI_API_BASE": "base_url",
               "PROVIDER": "provider"}
    known = {f.name for f in fields(BenchConfig)} | {"max_steps"}  # the old name, read by _renamed
    for key, value in doc.items():
        if key in IGNORED_KEYS:
            continue
        if key == "model":
            out.setdefault("models", (value,) if value else ())
        elif key == "models":
            out["models"] = tuple(value or ())
        elif key == "sizes":
            out["sizes"] = tuple(value or ())
        elif renames.get(key, key) in known:
            out[renames.get(key, key)] = value
        else:
            raise MazeConfigError(f"{source}: unknown key {key!r}")
    if "size" in generation:
        out.setdefault("sizes", (str(generation.pop("size")),))
    for key, value in generation.items():
        if key not in ("seed", "start_goal", "algorithm", "cell_px"):
            raise MazeConfigError(f"{source}: unknown key text2d/image2d.{key}")
        out[key] = value
    for key, value in sandbox.items():
        if key == "mazes_path":
            out.setdefault("mazes_dir", value)
        elif key == "max_steps":  # MazeBench's name of the API-call budget
            out["max_calls"] = value
        elif key in ("max_calls", "max_moves", "memory", "explored_map", "visibility", "max_no_exploration_steps"):
            if not (key == "visibility" and value is not None and value <= 0):  # -1/0 mean "full" in MazeBench
                out[key] = value
        elif key not in ("enabled", "symbols"):
            raise MazeConfigError(f"{source}: unknown key sandbox.{key}")
    return _renamed({k: v for k, v in out.items() if v is not None})


def _renamed(values: dict[str, Any]) -> dict[str, Any]:
    """Return ``values`` with the deprecated ``max_steps`` (the API-call budget) read as ``max_calls``, warning
    once; a ``max_calls`` beside it wins."""
    if "max_steps" not in values:
        return values
    warn_deprecated("bench setting max_steps (--max-steps) is deprecated: it is the API-call budget, now max_calls "
                    "(--max-calls)")
    old = values.pop("max_steps")
    return {"max_calls": old, **values}


def from_environment(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Return the settings the model variables of ``maze_envs.llm.environment`` give in ``environ`` (default
    ``os.environ``): ``models`` (``MAZE_ENVS_MODEL``, comma-separated), ``base_url`` and ``provider``."""
    found = model_settings(environ)
    out: dict[str, Any] = {k: found[k] for k in ("base_url", "provider") if k in found}
    if "model" in found:
        out["models"] = tuple(found["model"].split(","))
    return out


def resolve_config(flags: Mapping[str, Any], *, config: str | os.PathLike | None = None,
                   environ: Mapping[str, str] | None = None) -> BenchConfig:
    """Return the validated settings: ``flags`` (None values are unset) over the environment over the config
    files (see ``config_files``) over the defaults."""
    files = config_files(config)
    doc: dict[str, Any] = {}
    for path in files:
        doc = deep_merge(doc, read_config_file(path), source=path)
    values = from_yaml(doc, " + ".join(str(p) for p in files) or "config")
    values.update(from_environment(environ))
    values.update(_renamed({k: v for k, v in flags.items() if v is not None}))
    values = {k: tuple(str(x) for x in v) if isinstance(v, (list, tuple)) else v for k, v in values.items()}
    defaults = BenchConfig()
    for name, value in values.items():
        if not hasattr(defaults, name):
            raise MazeConfigError(f"unknown benchmark setting {name!r}")
        expected = type(getattr(defaults, name))
        if expected in (int, float):
            number(value, parameter=name)
        if expected is bool and not isinstance(value, bool):
            raise MazeConfigError(f"must be true or false, got {value!r}", parameter=name)
    return replace(defaults, **values).validated()
