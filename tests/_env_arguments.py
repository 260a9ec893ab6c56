"""Hostile constructor arguments for every registered env id, and a runner that tries them in a forked child under
a time guard, so that a hang or a blow-up becomes a result instead of a stuck test.

Shared by ``test_envs_argument_budget.py`` and ``benchmarks/fuzz_readers.py --envs``. A job that is only made
(``make_only``) is watched while it runs: the peak of the memory Python and numpy allocated (``tracemalloc``) and
the calls into the code that does an env's work (``WORK``: the maze generators, the batch DFS, the nav scene
builder), so that "refused before any work" is shown by what was done, not by how long it took. The time guard is a
hang guard only. The arguments of each id are
read from its constructors' signatures (every int/float parameter, the nav protocol's numeric settings), so a new
argument is probed without editing this file. Each argument has a kind:

- ``size``: what it sets costs memory or work (a size, a count, a resolution); every hostile value must be refused
  with a typed error that names the argument.
- ``limit``: a bound, seed or reward that costs nothing up front; a hostile value is refused with a typed error or
  the env makes, resets and steps normally.
- ``path``: a file or directory; a huge path is refused with a typed error that names the argument.
"""

from __future__ import annotations

import inspect
import math
import multiprocessing
import os
import random
import resource
import sys
import traceback
import tracemalloc
from dataclasses import dataclass, field, fields
from typing import Any, Callable

import gymnasium as gym
import numpy as np

import maze_envs  # noqa: F401  (registers the ids)
from maze_envs.core.errors import InvalidActionError, MazeConfigError, MazeEnvsError, brief_repr
from maze_envs.envs.grid.base import MazeEnvBase
from maze_envs.envs.grid.partial import PartialObsMazeEnv
from maze_envs.envs.nav.config import EvalConfig, PoiGoalEvalConfig
from maze_envs.envs.nav.env import GaussianNavEnv
from maze_envs.envs.openings.env import OpeningsEnv
from maze_envs.envs.registration import ENV_ENTRIES, VARIANT_ENTRIES
from maze_envs.envs.variants import image_maze

# Where an env's work starts: a maze drawn, a batch of mazes carved, a nav scene laid out.
WORK_MODULES = ("maze_envs.core.generators", "maze_envs.core.batch_dfs", "maze_envs.nav.procedural")
WORK_FUNCTIONS = frozenset({"generate", "dfs", "wilson", "prim", "kruskal", "dfs_trees", "batch_dfs", "layout_maze",
                            "build_scene", "scene_gaussians"})

HOSTILE_NUMBERS: tuple[Any, ...] = (10**6, 10**9, 10**30, 10**400, 1e308, math.nan, math.inf, -1)
HUGE_PATHS: tuple[str, ...] = ("m" * 5000, "/".join(["d" * 200] * 40), "\x00nul")
CHILD_START_SECONDS = 30.0  # time a forked child may take to start on a loaded machine (not part of any guard)
CHILD_MEMORY_BYTES = 8 << 30  # address-space cap of a probe child: a blow-up becomes a MemoryError, not an OOM kill

# Arguments that bound, seed or reward rather than size anything; every other numeric argument is a size.
LIMITS = frozenset({
    "max_steps", "start_level", "num_levels", "max_no_exploration_steps", "goal_reward", "step_reward",
    "wall_reward", "scene_seed", "progress_reward", "success_reward", "collision_penalty", "step_penalty",
    "arrive_threshold", "collision_threshold", "render_max_retries", "render_retry_backoff", "render_timeout",
    "occ_dark_threshold", "max_episode_steps",
})
PATHS = ("maze", "mazes_dir", "data_dir", "map_dir")
# Nav protocol settings that a nav env takes as keyword arguments but that have no effect here: the JPEG dump and
# the debug drawings of the evaluator are switched off by the env, and the render server is not used.
NAV_UNUSED = frozenset({"save_render_images", "enable_visualization"})
# Small settings under which a probed ``limit`` or ``path`` argument is made, reset and stepped quickly.
SMALL = {"grid": {"rows": 4, "cols": 4}, "openings": {"rows": 8, "cols": 8},
         "nav": {"scenes": 1, "maze_size": (3, 3), "view_width": 32, "view_height": 32}}
# Settings a probed argument needs to take effect (``cell_px`` sizes only the rendered frame).
NEEDS = {"cell_px": {"render_mode": "rgb_array"}, "history_resize_ratio": {"provide_history": True},
         "max_history_frames": {"provide_history": True}}


@dataclass(frozen=True)
class Probe:
    """One argument of one env id, with the hostile values to try and the settings they are tried under."""

    env_id: str
    argument: str
    kind: str  # size, limit or path
    values: tuple[Any, ...]
    base: dict[str, Any] = field(default_factory=dict)
    vector: bool = False

    @property
    def name(self) -> str:
        """Return ``env_id:argument`` (``+vector`` for the native vector env)."""
        return f"{self.env_id}{'+vector' if self.vector else ''}:{self.argument}"

    def kwargs(self, value: Any) -> dict[str, Any]:
        """Return the keyword arguments that try ``value``."""
        return {**self.base, self.argument: value}


@dataclass(frozen=True)
class Outcome:
    """What one value did: ``typed`` (refused with a MazeEnvsError), ``accepted`` (made, reset and stepped),
    ``untyped`` (any other exception), ``hang`` (no answer within the guard) or ``died`` (the child was killed)."""

    value: Any
    status: str
    detail: str = ""
    length: int = 0  # characters of the whole error message
    peak_bytes: int = 0  # the most memory Python and numpy held at once while it was made (make-only jobs)
    work_calls: int = 0  # calls into ``WORK_FUNCTIONS`` while it was made (make-only jobs)

    def handled(self, probe: Probe) -> bool:
        """Return whether this outcome is what ``probe``'s kind allows (a refusal naming the argument, or for a
        ``limit`` also a normal episode start)."""
        if self.status == "accepted":
            return probe.kind == "limit"
        return self.status == "typed" and (probe.kind == "limit" or probe.argument in self.detail)


def _family(entry_point: str) -> str:
    return "nav" if ".nav." in entry_point or "poi_goal" in entry_point else (
        "openings" if "openings" in entry_point else "grid")


def _numeric_parameters(call: Callable) -> list[str]:
    """Return the parameters of ``call`` whose default is an int or float (not a bool) or None with a numeric
    annotation, and every parameter annotated as a path."""
    names = []
    for parameter in inspect.signature(call).parameters.values():
        default, note = parameter.default, str(parameter.annotation)
        numbers = default if isinstance(default, tuple) else (default,)
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in numbers) or (
            default is None and ("int" in note or "float" in note))
        if numeric or parameter.name in PATHS:
            names.append(parameter.name)
    return names


def _family_arguments(family: str, entry_point: str) -> list[str]:
    if family == "grid":
        names = _numeric_parameters(MazeEnvBase.__init__) + ["max_no_exploration_steps"]
        if "partial" in entry_point.lower():
            names += _numeric_parameters(PartialObsMazeEnv.__init__)
        if "image" in entry_point:
            names += _numeric_parameters(image_maze)
        return names
    if family == "openings":
        return _numeric_parameters(OpeningsEnv.__init__)
    config = PoiGoalEvalConfig if "PoiGoal" in entry_point or "poi_goal" in entry_point else EvalConfig
    settings = [f.name for f in fields(config) if f.type in ("int", "float") and f.name not in NAV_UNUSED]
    return _numeric_parameters(GaussianNavEnv.__init__) + settings


def _values(kind: str, argument: str) -> tuple[Any, ...]:
    if kind == "path":
        return HUGE_PATHS
    if argument == "maze_size":
        return tuple((v, 4) for v in HOSTILE_NUMBERS) + tuple((4, v) for v in HOSTILE_NUMBERS)
    return HOSTILE_NUMBERS


def probes() -> list[Probe]:
    """Return one probe per numeric or path argument of every registered id, and ``num_envs`` of the vector
    envs."""
    out = []
    for entry in ENV_ENTRIES + VARIANT_ENTRIES:
        family = _family(entry.entry_point)
        for argument in dict.fromkeys(_family_arguments(family, entry.entry_point)):
            kind = "path" if argument in PATHS else "limit" if argument in LIMITS else "size"
            base = {**(SMALL[family] if kind != "size" else {}), **NEEDS.get(argument, {})}
            out.append(Probe(entry.id, argument, kind, _values(kind, argument), base))
        if entry.vector_entry_point:
            out.append(Probe(entry.id, "num_envs", "size", HOSTILE_NUMBERS, {}, vector=True))
    return out


# Sizes that each pass on their own and together would not fit: the product must be refused, naming both.
PRODUCTS: tuple[tuple[str, dict[str, Any], bool], ...] = (
    ("Maze-v0", {"rows": 20_000, "cols": 20_000}, False),
    ("Maze-PartialObs-v0", {"rows": 400, "cols": 400, "visibility": 60}, False),
    ("Maze-PartialObs-v0", {"rows": 3_000, "cols": 3_000}, False),
    ("Maze-v0", {"num_envs": 100_000, "rows": 50, "cols": 50}, True),
    ("Maze-PartialObs-v0", {"num_envs": 50_000, "rows": 20, "cols": 20, "visibility": 20}, True),
    ("Maze-Image-v0", {"rows": 1_000, "cols": 1_000, "px": 16}, False),
    ("Maze-Openings-v0", {"rows": 60, "cols": 60, "cell_size": 400}, False),
    ("Maze-Openings-v0", {"margin": 10_000}, False),
    ("GaussianNav-PointGoal-v0", {"view_width": 8_000, "view_height": 8_000}, False),
    ("GaussianNav-PointGoal-v0", {"scenes": 500, "maze_size": (30, 30)}, False),
    ("GaussianNav-PoiGoal-v0", {"provide_history": True, "max_history_frames": 5_000, "history_resize_ratio": 1.0},
     False),
)
# Configurations the tests, benchmarks and README use: each must make, reset and step.
LEGITIMATE: tuple[tuple[str, dict[str, Any], bool], ...] = (
    ("Maze-v0", {"rows": 200, "cols": 200, "render_mode": "rgb_array", "cell_px": 4}, False),
    ("Maze-v0", {"rows": 1_000, "cols": 1_000}, False),
    ("Maze-PartialObs-v0", {"visibility": 40}, False),
    ("Maze-PartialObs-v0", {"rows": 100, "cols": 100, "visibility": 10}, False),
    ("Maze-v0", {"num_envs": 4096, "rows": 10, "cols": 10}, True),
    ("Maze-PartialObs-v0", {"num_envs": 4096, "rows": 10, "cols": 10, "visibility": 3}, True),
    ("Maze-PartialObs-v0", {"num_envs": 16_384, "rows": 10, "cols": 10, "visibility": 3}, True),  # peers_sps' largest
    ("Maze-Image-v0", {"rows": 20, "cols": 20}, False),
    ("Maze-Openings-v0", {"rows": 40, "cols": 40, "openings": 6}, False),
    ("Maze-Openings-v0", {}, False),
    ("GaussianNav-PointGoal-v0", {}, False),
    ("GaussianNav-PoiGoal-v0", {"view_width": 128, "view_height": 128, "provide_history": True,
                                "provide_occ_map": True}, False),
)


def make(env_id: str, kwargs: dict[str, Any], vector: bool = False) -> Any:
    """Return ``gym.make(env_id, **kwargs)``, or the native vector env when ``vector``."""
    if vector:
        return gym.make_vec(env_id, vectorization_mode="vector_entry_point", **kwargs)
    return gym.make(env_id, **kwargs)


def start(env_id: str, kwargs: dict[str, Any], vector: bool = False, make_only: bool = False) -> None:
    """Make the env, then (unless ``make_only``) reset it and take one sampled step; close it."""
    env = make(env_id, kwargs, vector)
    try:
        if not make_only:
            env.reset(seed=0)
            env.step(env.action_space.sample())
    finally:
        env.close()


def work_codes() -> frozenset[Any]:
    """Return the code objects of ``WORK_FUNCTIONS`` in ``WORK_MODULES`` (the calls a refusal must not make)."""
    import importlib

    codes = set()
    for name in WORK_MODULES:
        module = importlib.import_module(name)
        codes |= {getattr(module, f).__code__ for f in WORK_FUNCTIONS
                  if hasattr(getattr(module, f, None), "__code__")}
    return frozenset(codes)


class Watch:
    """Counts the calls into ``codes`` and the peak of traced memory while it is entered (a ``with`` block)."""

    def __init__(self, codes: frozenset[Any]):
        self.codes = codes
        self.calls = 0
        self.peak = 0

    def _profile(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in self.codes:
            self.calls += 1

    def __enter__(self) -> "Watch":
        tracemalloc.start()
        sys.setprofile(self._profile)
        return self

    def __exit__(self, *exc: Any) -> None:
        sys.setprofile(None)
        self.peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


def _child(jobs: list[tuple[dict[str, Any], bool]], env_id: str, vector: bool, conn) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY_BYTES, CHILD_MEMORY_BYTES))
    codes = work_codes()
    for index, (kwargs, make_only) in enumerate(jobs):
        conn.send(("start", index))
        watch = Watch(codes if make_only else frozenset())
        try:
            if make_only:
                with watch:
                    start(env_id, kwargs, vector, make_only)
            else:
                start(env_id, kwargs, vector, make_only)
            answer = ("accepted", "", 0)
        except MazeEnvsError as exc:
            answer = ("typed", f"{type(exc).__name__}: {exc}"[:300], len(str(exc)))
        except BaseException as exc:  # noqa: BLE001 - every other failure is what the probe reports
            where = traceback.extract_tb(exc.__traceback__)[-1]
            answer = ("untyped", f"{type(exc).__name__}: {str(exc)[:200]} "
                                 f"({os.path.basename(where.filename)}:{where.lineno})", 0)
        conn.send(("end", index, *answer, watch.peak, watch.calls))
    conn.close()


def run(env_id: str, jobs: list[tuple[dict[str, Any], bool]], *, vector: bool = False,
        guard: float = 20.0, watched: bool = False) -> list[tuple[Any, ...]]:
    """Return ``(status, detail, message length)`` of each job (``(kwargs, make_only)``) of ``env_id``, with
    ``watched`` followed by the peak bytes and the work calls of a make-only job (0 for the others), all tried in
    forked children: a job that gives no answer within ``guard`` seconds of its start is a ``hang`` (its child is
    killed and the rest go on in a new one); a child that dies is ``died``. A child gets ``CHILD_START_SECONDS`` to
    start."""
    context = multiprocessing.get_context("fork")
    results: list[tuple[Any, ...]] = []
    while len(results) < len(jobs):
        receive, send = context.Pipe(duplex=False)
        child = context.Process(target=_child, args=(jobs[len(results):], env_id, vector, send), daemon=True)
        child.start()
        send.close()
        wait_start = max(guard, CHILD_START_SECONDS)
        while len(results) < len(jobs):
            try:
                if not receive.poll(wait_start) or receive.recv()[0] != "start" or not receive.poll(guard):
                    results.append(("hang", f"no answer within {guard:g} s", 0, 0, 0))
                    break
                results.append(tuple(receive.recv()[2:]))
                wait_start = guard
            except EOFError:
                results.append(("died", f"child exit code {child.exitcode}", 0, 0, 0))
                break
        child.kill()
        child.join()
        receive.close()
    return results if watched else [result[:3] for result in results]


def run_probe(probe: Probe, guard: float = 20.0, full: bool = False) -> list[Outcome]:
    """Return the outcome of each of ``probe``'s values. ``size`` and ``path`` probes are only made (a refusal must
    come from the constructor) unless ``full``, which resets and steps every env that was made."""
    make_only = probe.kind != "limit" and not full
    answers = run(probe.env_id, [(probe.kwargs(v), make_only) for v in probe.values], vector=probe.vector,
                  guard=guard, watched=True)
    return [Outcome(value, *answer) for value, answer in zip(probe.values, answers, strict=True)]


def warm_up() -> None:
    """Compile what the children would otherwise each compile (numba kernels of the grid and nav envs)."""
    for env_id, kwargs in (("Maze-PartialObs-v0", {"rows": 4, "cols": 4}),
                           ("GaussianNav-PointGoal-v0", SMALL["nav"])):
        start(env_id, kwargs)


HOSTILE_LEAVES: tuple[Any, ...] = (None, "x", b"\xff", math.nan, math.inf, -math.inf, 1e308, 10**30, -1, 2.5, True,
                                   [], {}, [[1, 2], [3]], object())


def hostile_action(space: gym.spaces.Space, rng: random.Random) -> Any:
    """Return a mutation of a sample of ``space``: a hostile leaf in place of the action or of one of its fields, a
    field dropped or added, or an array of another shape, dtype or with non-finite entries."""
    action = space.sample()
    choice = rng.randrange(6)
    if isinstance(action, dict) and choice < 4:
        action = dict(action)
        key = rng.choice(sorted(action))
        if choice == 0:
            del action[key]
        elif choice == 1:
            action[rng.choice(["extra", key.upper(), 0])] = rng.choice(HOSTILE_LEAVES)
        else:
            action[key] = hostile_action(space[key], rng)
        return action
    array = np.asarray(action)
    if choice == 4 and array.size and array.dtype.kind in "iuf":
        mutated = array.astype(float)
        mutated.flat[rng.randrange(mutated.size)] = rng.choice((math.nan, math.inf, 1e308, -1e9))
        return mutated
    if choice == 5:
        return np.zeros(tuple(rng.randint(0, 3) for _ in range(rng.randint(0, 3))), rng.choice((np.int64, np.float32)))
    return rng.choice(HOSTILE_LEAVES)


def fuzz_calls(env_id: str, rng: random.Random, actions: int) -> list[str]:
    """Step a small ``env_id`` with ``actions`` hostile actions and reset it with hostile options; return what was not
    handled (a step returns or raises ``InvalidActionError``; ``reset`` with options that are not a mapping raises
    ``MazeConfigError`` naming ``options``)."""
    family = "nav" if env_id.startswith("GaussianNav") else "openings" if "Openings" in env_id else "grid"
    env = gym.make(env_id, **SMALL[family])
    failures = []
    for options in HOSTILE_LEAVES:
        try:
            env.reset(seed=0, options=options)
            if options is not None and not isinstance(options, dict):
                failures.append(f"reset(options={options!r:.30}) was accepted")
        except MazeConfigError as exc:
            if not str(exc).startswith("options: "):
                failures.append(f"reset(options={options!r:.30}): {exc}")
        except Exception as exc:  # noqa: BLE001 - every other failure is what the fuzzer reports
            failures.append(f"reset(options={options!r:.30}): {type(exc).__name__}: {str(exc)[:150]}")
    env.reset(seed=0)
    for _ in range(actions):
        action = hostile_action(env.action_space, rng)
        try:
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
        except InvalidActionError:
            continue
        except Exception as exc:  # noqa: BLE001 - every other failure is what the fuzzer reports
            failures.append(f"step({brief_repr(action)}): {type(exc).__name__}: {str(exc)[:150]}")
    env.close()
    return failures
