"""The protocol registry: one table of named protocols, each a ``Protocol`` holding the parts that differ.

A *protocol* is a set of rules that a run follows: this project's own (``default``) or a public project's that we
reproduce (``mazebench`` after MazeBench, ``abot`` after ABot-Navigation). It is one package under
``maze_envs.protocols`` that builds a ``Protocol`` and calls ``register_protocol`` on import. Everything that
depends on the protocol asks the registry for its part, never compares names:

- ``grid`` (``GridRules``): the grid envs' rewards and counting rules (``Maze-v0``, ``Maze-PartialObs-v0``);
- ``text_mazes`` (``TextMazes``): how ``generate text`` draws and writes a benchmark maze file;
- ``reading_rule``: the name of the reply-reading rule (``maze_envs.core.replies``) its bench trials use;
- ``bench`` (``BenchRules``): the LLM maze benchmark's trial, the protocol's own summary and its averaging, the
  report section and the lines the CLI prints;
- ``sandbox`` (``SandboxRules``): the sandbox HTTP app, the terminal game and the watched model loop;
- ``nav`` (``NavRules``): the navigation strategies (camera, distances, motion, collision sampling, ground height,
  records, summaries, agent settings) and the names of its render request, saved renders and history filter.

A part left ``None`` means the protocol does not speak to that consumer; ``protocol_names(part)`` lists the
protocols that have a part, which is what each CLI offers as ``--protocol`` choices (read when the parser is
built, so a protocol registered later shows up too).

Layers: this package sits just above ``maze_envs.core`` and imports nothing else of ours. Parts that live in
higher layers (the bench's trial runner, summary, report section and sandbox app in ``evaluators``) are given
as entry-point strings ``"package.module:attribute"`` and imported by ``load`` when first used, as Gymnasium's
registry does with ``entry_point``; a callable or a strategy object may stand in for a string (a test's own protocol
does that).

Names: each protocol has one canonical name and may have ``aliases`` (old spellings, such as the bench's
``strict`` for ``default``); ``protocol(name)`` accepts either and returns the protocol, whose ``name`` is the
canonical one.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Union

from maze_envs.core.errors import MazeConfigError, brief_repr

DEFAULT = "default"
EntryPoint = Union[str, Callable[..., Any], Any]


@dataclass(frozen=True)
class GridRules:
    """The defaults and counting rules a protocol gives the grid envs.

    ``wall_reward`` None pays a wall bump like any step. ``exploration`` is ``revealed`` (a step resets the
    no-exploration counter when it shows a block not seen before) or ``visited`` (when it enters a block not
    visited before; a move that fails without moving counts twice, as MazeBench's failed calls do).
    ``max_no_exploration_steps`` is the full-map env's default (the partial env's is 20 under every protocol).
    ``partial_action_mode`` is the partial env's default ``action_mode``: ``single`` (``Discrete(4)``, what
    stock RL code expects) or ``multi`` (a move of several cells in one action).
    """

    goal_reward: float
    step_reward: float
    wall_reward: float | None
    max_no_exploration_steps: int | None
    exploration: str
    steps_in_cells: bool
    stop_after_goal: bool
    partial_action_mode: str = "single"

    @property
    def plain(self) -> bool:
        """Return whether steps count as in any Gymnasium env (no wall rule, ``revealed`` exploration, steps as
        actions, play on after the goal): the rules the native vector envs implement."""
        return (self.wall_reward is None and self.exploration == "revealed" and not self.steps_in_cells
                and not self.stop_after_goal)


@dataclass(frozen=True)
class TextMazes:
    """How ``generate text`` writes a protocol's benchmark mazes.

    ``make(out, payload, *, algorithm, placement) -> (record, files)`` writes the maze of ``payload``
    (``height``, ``width``, ``index``, ``seed``) under ``out`` (a picklable module-level function: process
    backends ship it to workers). ``check(algorithm, placement)`` raises ``MazeConfigError`` for settings the
    protocol cannot draw (None: every generator and placement of ``maze_envs.core.generators``). ``about``: its line
    in ``generate text --help`` (every part has one; empty: the protocol's ``description``)."""

    make: Callable[..., tuple[dict, list[str]]]
    check: Callable[[str, str], None] | None = None
    about: str = ""


@dataclass(frozen=True)
class BenchRules:
    """A protocol's parts of the LLM maze benchmark (entry points, see the module docstring).

    ``trial(meter, config, trial, players)``: the steps of one trial, a generator that yields each question
    (``maze_envs.llm.Ask``), is sent each ``Reply`` and returns the body of the trial's record (``meter`` prices
    the replies). ``summary(mode, records)
    -> dict``: the protocol's own figures, stored as ``summary.json[<protocol name>]`` (None: none).
    ``section(summary) -> str``: the report's HTML section of those figures (None: none). ``headline(summary)
    -> list[str]``: extra lines ``maze-envs bench`` prints (None: none). ``own_scores``: trials are scored by
    the protocol's own rules (the report says so above its table). ``stored_paths``: a maze file's
    ``shortest_path`` is used as stored, unchecked, and a missing one is empty (else a missing one is computed and a
    given one must be a shortest path). ``modes``: the benchmark modes its trial plays."""

    trial: EntryPoint
    summary: EntryPoint | None = None
    section: EntryPoint | None = None
    headline: EntryPoint | None = None
    own_scores: bool = False
    stored_paths: bool = False
    about: str = ""
    modes: tuple[str, ...] = ("text2d", "image2d", "ai", "partial-observe")


@dataclass(frozen=True)
class SandboxRules:
    """A protocol's sandboxes (entry points): ``app(mazes_dir) -> Starlette`` serves the sandbox HTTP API;
    ``terminal(maze, commands, out, *, visibility) -> dict`` plays one maze from text commands; ``watch(maze,
    settings, players, open_client, out) -> int`` plays ``maze-envs sandbox ai|partial-observe`` (a
    ``WatchSettings``; ``open_client()`` opens the chat model's client) and returns its exit status."""

    app: EntryPoint
    terminal: EntryPoint
    watch: EntryPoint
    about: str = ""


NAV = "maze_envs.envs.nav.strategies"
NAV_EVAL = "maze_envs.evaluators.nav.strategies"


@dataclass(frozen=True)
class NavRules:
    """A protocol's navigation rules (point-goal and POI-goal evaluation, ``GaussianNav-*`` envs): strategies that
    the session, the evaluator's loop and the metrics call, each an entry point (see the module docstring), plus
    the default ``waypoint_frame`` of the agent's waypoints and the names of registered render strategies.

    ``camera(width, height, extrinsic_height, fx, fy) -> CameraConfig``: the camera of views of a size.
    ``distance``: a ``Measure`` (goal point, pose-to-goal distance, path length, heading).
    ``motion``: a ``Motion`` (waypoints read, poses built from them, how a step ends the task).
    ``collision``: a ``CollisionSampling`` (segment test, collision length, the POI test's pixel mapping).
    ``ground(episode, x, y) -> float``: the ground height under a point.
    ``record``: a ``RecordWriter`` (a task's ``result.json`` record, its JSON encoding, the run fields it gets).
    ``summary``: a ``SummaryReducer`` (distances read back, means and sums, scenes left out, a POI run summary's
    tasks). ``agent_settings(from_yaml, injected) -> dict``: the agent's keyword arguments.
    ``render_request``: how the render client writes view extrinsics (``maze_envs.nav.client.REQUEST_FORMATS``).
    ``saved_renders``: how ``render_images/`` files are written (``maze_envs.nav.client.SAVED_RENDERS``).
    ``history_resample``: the filter that shrinks history views (``maze_envs.envs.nav.memory.RESAMPLE``).
    The strategies themselves live beside what calls them (``maze_envs.envs.nav.strategies``,
    ``maze_envs.evaluators.nav.strategies``), one instance per protocol."""

    waypoint_frame: str = "front_left"
    camera: EntryPoint = f"{NAV}:scaled_camera"
    distance: EntryPoint = f"{NAV}:PLANAR"
    motion: EntryPoint = f"{NAV}:MOTION"
    collision: EntryPoint = f"{NAV}:SAMPLING"
    ground: EntryPoint = f"{NAV}:ground_height"
    record: EntryPoint = f"{NAV}:RECORDS"
    summary: EntryPoint = f"{NAV_EVAL}:SUMMARY"
    agent_settings: EntryPoint = f"{NAV_EVAL}:fill_gaps"
    render_request: str = "default"
    saved_renders: str = "served"
    history_resample: str = "bilinear"
    about: str = ""


PARTS = ("grid", "text_mazes", "bench", "sandbox", "nav")


@dataclass(frozen=True)
class Protocol:
    """One registered protocol: its canonical ``name``, a one-line ``description`` (for ``--help``), old
    spellings in ``aliases`` and its parts (``PARTS``; None where it has none). ``reading_rule`` names the
    reply-reading rule of its bench trials. ``stamp``: the records and settings it writes name it (the
    default protocol's do not, so files written before protocols had names read the same)."""

    name: str
    description: str
    aliases: tuple[str, ...] = ()
    stamp: bool = True
    reading_rule: str = "strict"
    grid: GridRules | None = None
    text_mazes: TextMazes | None = None
    bench: BenchRules | None = None
    sandbox: SandboxRules | None = None
    nav: NavRules | None = None


_PROTOCOLS: dict[str, Protocol] = {}
_ALIASES: dict[str, str] = {}


def register_protocol(spec: Protocol, *, replace: bool = False) -> Protocol:
    """Add ``spec`` to the registry under its name and aliases and return it; raises ``MazeConfigError`` when a
    name or alias is empty or already taken (unless ``replace``, which swaps a protocol of the same name)."""
    names = (spec.name, *spec.aliases)
    if not all(isinstance(n, str) and n for n in names):
        raise MazeConfigError(f"protocol names must be non-empty strings, got {brief_repr(names)}",
                              parameter="protocol")
    if replace and spec.name in _PROTOCOLS:
        unregister_protocol(spec.name)
    for name in names:
        if name in _PROTOCOLS or name in _ALIASES:
            raise MazeConfigError(f"{name!r} is already registered", parameter="protocol")
    _PROTOCOLS[spec.name] = spec
    _ALIASES.update({alias: spec.name for alias in spec.aliases})
    return spec


def unregister_protocol(name: str) -> Protocol:
    """Remove the protocol called ``name`` (or one of its aliases) and its aliases; return it."""
    spec = protocol(name)
    del _PROTOCOLS[spec.name]
    for alias in spec.aliases:
        _ALIASES.pop(alias, None)
    return spec


def canonical_name(name: Any) -> str:
    """Return the canonical name of the protocol called ``name`` (an alias or the name itself); raises
    ``MazeConfigError`` naming ``protocol`` and the known names."""
    if isinstance(name, str) and name in _PROTOCOLS:
        return name
    if isinstance(name, str) and name in _ALIASES:
        return _ALIASES[name]
    raise MazeConfigError(f"must be one of {', '.join(_PROTOCOLS)}, got {brief_repr(name)}", parameter="protocol")


def protocol(name: Any, part: str | None = None) -> Protocol:
    """Return the protocol called ``name`` (or an alias of it); with ``part`` (one of ``PARTS``) it must have
    that part. Raises ``MazeConfigError`` naming ``protocol`` and the protocols that would do."""
    if part is not None and part not in PARTS:
        raise ValueError(f"part must be one of {', '.join(PARTS)}, got {part!r}")
    try:
        spec = _PROTOCOLS[canonical_name(name)]
    except MazeConfigError:
        raise MazeConfigError(f"must be one of {', '.join(protocol_names(part))}, got {brief_repr(name)}",
                              parameter="protocol") from None
    if part is not None and getattr(spec, part) is None:
        raise MazeConfigError(f"{spec.name!r} has no {part} rules; one of {', '.join(protocol_names(part))}",
                              parameter="protocol")
    return spec


def protocol_names(part: str | None = None) -> tuple[str, ...]:
    """Return the canonical names of the registered protocols, ``default`` first, then in registration order
    (with ``part``: those that have it)."""
    names = sorted(_PROTOCOLS, key=lambda n: n != DEFAULT)
    return tuple(n for n in names if part is None or getattr(_PROTOCOLS[n], part) is not None)


def protocol_aliases() -> dict[str, str]:
    """Return every alias and the canonical name it stands for."""
    return dict(_ALIASES)


def about(name: str, part: str) -> str:
    """Return the line that says what protocol ``name`` does for ``part`` (its part's ``about``, else its
    ``description``)."""
    spec = protocol(name, part)
    return getattr(spec, part).about or spec.description


def load(entry: EntryPoint) -> Any:
    """Return what an entry point names: ``"package.module:attribute"`` is imported now; a callable or a strategy
    object (a ``NavRules`` strategy given directly, as a test's own protocol does) is returned as is. Raises
    ``MazeConfigError`` for a malformed or missing entry point."""
    if entry is not None and not isinstance(entry, (str, bytes, int, float)):
        return entry
    if not isinstance(entry, str) or entry.count(":") != 1:
        raise MazeConfigError(f"an entry point is 'module:attribute', got {brief_repr(entry)}", parameter="protocol")
    module, attribute = entry.split(":")
    try:
        found = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as exc:
        raise MazeConfigError(f"cannot load entry point {entry!r}: {exc}", parameter="protocol") from None
    return found

