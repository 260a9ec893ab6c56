"""One page per registered env family, generated from the registry, the env classes' sectioned docstrings and
the envs themselves: every id with its spaces, step limit and default arguments, and a picture of each id
rendered from a freshly reset env (an animation of the oracle for the grid families)."""

from __future__ import annotations

import inspect
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from PIL import Image

import maze_envs
from maze_envs.core.codes import NUM_CODES, PALETTE
from maze_envs.envs.grid.base import MazeEnvBase
from maze_envs.envs.grid.maze import MazeEnv
from maze_envs.envs.grid.partial import PartialObsMazeEnv
from maze_envs.envs.nav.env import PoiGoalNavEnv, PointGoalNavEnv
from maze_envs.envs.openings.env import OpeningsEnv

from .files import write_if_changed

# What the build passes to envs that would otherwise render large views: the pictures stay small and quick.
PICTURE_KWARGS = {PointGoalNavEnv: {"view_width": 96, "view_height": 96, "scenes": 1}}
ANIMATED = {MazeEnv: {"rows": 5, "cols": 5}, PartialObsMazeEnv: {"rows": 8, "cols": 8, "visibility": 2}}


@dataclass(frozen=True)
class Family:
    """A page: its file name, title, the env class whose docstring it shows, and its introduction."""

    slug: str
    title: str
    env_class: type
    intro: str
    also: tuple[type, ...] = ()


FAMILIES = (
    Family("grid", "Grid mazes, full view", MazeEnv,
           "Walk a perfect grid maze to its goal, seeing the whole block grid."),
    Family("partial", "Grid mazes, partial view", PartialObsMazeEnv,
           "Find the goal of a grid maze through a line-of-sight window around the agent (the LLM maze benchmark's "
           "partial-observe sandbox)."),
    Family("openings", "Labelled openings", OpeningsEnv,
           "Answer which labelled openings of a maze's outer wall are connected, from the puzzle image."),
    Family("nav", "GaussianNav", PointGoalNavEnv,
           "Navigate through Gaussian-splat scenes from three camera views, point-goal and POI-goal.",
           (PoiGoalNavEnv,)),
)


def maze_env_ids() -> list[str]:
    """Return every id maze-envs registers, in registration order."""
    return [env_id for env_id, spec in gym.registry.items()
            if isinstance(spec.entry_point, str) and spec.entry_point.startswith("maze_envs.")]


def family_of(env: gym.Env) -> Family:
    """Return the family of a made env (by the class of its unwrapped env)."""
    for family in FAMILIES:
        if isinstance(env.unwrapped, (family.env_class, *family.also)):
            return family
    raise LookupError(f"{type(env.unwrapped).__name__} belongs to no documented env family")


def docstring_markdown(cls: type) -> str:
    """Return ``cls``'s sectioned docstring as Markdown, its ``##`` sections one level down."""
    doc = inspect.getdoc(cls) or ""
    lines = []
    for line in doc.splitlines():
        lines.append("#" + line if line.startswith("## ") else line)
    return "\n".join(lines)


def _picture_kwargs(env_id: str) -> dict[str, Any]:
    """Return the small-picture arguments of ``env_id``'s family (the navigation ids' names start GaussianNav-)."""
    return dict(PICTURE_KWARGS[PointGoalNavEnv]) if env_id.startswith("GaussianNav-") else {}


PICTURE_NOTE = (
    "Each picture is the id made with its registered arguments and reset with `seed=0`: on the left its "
    "`render()` (for a partial view the whole maze, dimmed where the agent has not looked, its window framed in "
    "blue and the passages in its line of sight yellow), on the right the observation the agent is given: an "
    "image at its own size, a grid of observation codes in the envs' palette, numbers as grey pixels "
    "(lowest black, highest white; a long vector wrapped into a square), text left out."
)
GAP = 8  # white pixels between the render and the observation's tiles, and between tiles


def _tile(value: np.ndarray, height: int) -> np.ndarray | None:
    """Return an RGB picture of one observation array: an image at its own size; else, scaled by a whole factor
    to at most ``height`` pixels, a grid of observation codes in the envs' palette, numbers as grey pixels (lowest
    black, highest white), a long vector wrapped into a square; None for text."""
    if value.dtype.kind not in "biuf":
        return None
    if value.ndim == 3 and value.shape[-1] == 3 and value.dtype == np.uint8:
        return value  # an image observation at its own size
    if value.ndim == 2 and value.dtype.kind in "iu" and value.min() >= 0 and value.max() < NUM_CODES:
        rgb = PALETTE[value]
    else:
        flat = value.astype(np.float64).ravel()
        width = int(np.ceil(np.sqrt(flat.size))) if flat.size > 16 else flat.size
        grid = np.full(width * int(np.ceil(flat.size / width)), np.nan)
        grid[:flat.size] = flat
        low, high = np.nanmin(flat), np.nanmax(flat)
        grey = np.where(np.isnan(grid), 255.0, 40 + 215 * (grid - low) / (high - low) if high > low else 160.0)
        rgb = np.repeat(grey.reshape(-1, width)[..., None], 3, axis=-1).astype(np.uint8)
    scale = max(1, min(height // max(rgb.shape[:2]), 16))
    return np.repeat(np.repeat(rgb, scale, axis=0), scale, axis=1)


def _arrays(observation: Any) -> list[np.ndarray]:
    """Return the arrays of an observation, a ``Dict`` one's in its keys' order, nested ones flattened."""
    if isinstance(observation, dict):
        return [a for key in observation for a in _arrays(observation[key])]
    return [np.asarray(observation)]


def _side_by_side(pictures: list[np.ndarray]) -> np.ndarray:
    """Return ``pictures`` set left to right, top-aligned, ``GAP`` white pixels apart, on white."""
    height = max(p.shape[0] for p in pictures)
    width = sum(p.shape[1] for p in pictures) + GAP * (len(pictures) - 1)
    canvas = np.full((height, width, 3), 255, dtype=np.uint8)
    left = 0
    for p in pictures:
        canvas[:p.shape[0], left:left + p.shape[1]] = p[..., :3]
        left += p.shape[1] + GAP
    return canvas


def agent_picture(frame: np.ndarray, observation: Any) -> np.ndarray:
    """Return the env's render ``frame`` with, to its right, what the agent is given: each array of
    ``observation`` drawn by ``_tile`` (text left out)."""
    tiles = [t for t in (_tile(a, frame.shape[0]) for a in _arrays(observation)) if t is not None]
    return _side_by_side([np.asarray(frame, dtype=np.uint8), *tiles])


def _png(frame: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(np.asarray(frame, dtype=np.uint8)).save(out, format="PNG", optimize=True)
    return out.getvalue()


def _gif(frames: list[np.ndarray]) -> bytes:
    images = [Image.fromarray(np.asarray(f, dtype=np.uint8)).convert("P", palette=Image.Palette.ADAPTIVE)
              for f in frames]
    out = io.BytesIO()
    images[0].save(out, format="GIF", save_all=True, append_images=images[1:], duration=180, loop=0)
    return out.getvalue()


@dataclass
class IdFacts:
    """What the page says of one id."""

    env_id: str
    family: Family
    observation_space: str
    action_space: str
    step_limit: str
    kwargs: dict[str, Any]
    picture: bytes


def step_limit(env: gym.Env) -> str:
    """Return the step limit of a made env in numbers: its registered TimeLimit, else its own ``max_steps`` with
    the rule it comes from, and the no-exploration cutoff where there is one; one step for a single answer."""
    spec, base = env.spec, env.unwrapped
    if spec is not None and spec.max_episode_steps:
        return f"{spec.max_episode_steps} steps (TimeLimit)"
    if isinstance(base, OpeningsEnv):
        return "1 step (one answer)"
    limit = f"{base.max_steps} steps"
    if isinstance(base, MazeEnvBase):
        rows, cols = base.source.cell_shape
        limit += f" (4 x {rows} x {cols} cells)"
    idle = getattr(base, "max_no_exploration_steps", None)
    if idle:
        limit += f", or {idle} steps in a row that reveal nothing new"
    return limit


def id_facts(env_id: str) -> IdFacts:
    """Make ``env_id`` (with the build's small-picture arguments), reset it with seed 0 and return its facts."""
    kwargs = _picture_kwargs(env_id)
    env = gym.make(env_id, render_mode="rgb_array", disable_env_checker=True, **kwargs)
    try:
        observation, _ = env.reset(seed=0)
        spec = gym.spec(env_id)
        return IdFacts(env_id, family_of(env), str(env.observation_space), str(env.action_space),
                       step_limit(env), dict(spec.kwargs), _png(agent_picture(env.render(), observation)))
    finally:
        env.close()


def oracle_animation(env_class: type, kwargs: dict[str, Any]) -> bytes:
    """Return a GIF of the oracle agent solving one seeded maze of ``env_class``."""
    from maze_envs.agents.oracle import OracleAgent

    env_id = "Maze-v0" if env_class is MazeEnv else "Maze-PartialObs-v0"
    env = gym.make(env_id, render_mode="rgb_array", **kwargs)
    try:
        agent = OracleAgent(env)
        obs, info = env.reset(seed=3)
        agent.reset()
        frames = [env.render()]
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
            frames.append(env.render())
            done = terminated or truncated
        return _gif(frames)
    finally:
        env.close()


def _space_text(text: str) -> str:
    return text if len(text) <= 160 else text[:157] + "..."


def family_page(family: Family, ids: list[IdFacts]) -> str:
    """Return the Markdown page of ``family`` for its ``ids``."""
    lines = [f"# {family.title}", "", family.intro, ""]
    if family.env_class in ANIMATED:
        lines += [f"![The oracle solving one episode: {family.title}](img/{family.slug}-oracle.gif)", ""]
    lines += ["## Registered ids", "", "| id | observation space | action space | step limit | default arguments |",
              "| --- | --- | --- | --- | --- |"]
    for facts in ids:
        kwargs = ", ".join(f"`{k}={v!r}`" for k, v in facts.kwargs.items()) or "-"
        lines.append(f"| [`{facts.env_id}`](#{facts.env_id.lower()}) | `{_space_text(facts.observation_space)}` | "
                     f"`{_space_text(facts.action_space)}` | {facts.step_limit} | {kwargs} |")
    lines += ["", "```python", "import gymnasium as gym", "import maze_envs", "",
              f'env = gym.make("{ids[0].env_id}")', "obs, info = env.reset(seed=0)", "```", "",
              "## Reference", "", docstring_markdown(family.env_class), ""]
    for other in family.also:
        lines += [f"## {other.__name__}", "", docstring_markdown(other), ""]
    lines += ["## Each id", "", PICTURE_NOTE, ""]
    for facts in ids:
        lines += [f"### {facts.env_id}", "", f"![{facts.env_id} after reset(seed=0)](img/{facts.env_id}.png)", "",
                  f"- observation space: `{facts.observation_space}`", f"- action space: `{facts.action_space}`",
                  f"- step limit: {facts.step_limit}", ""]
    return "\n".join(lines)


def write_env_pages(out: Path) -> list[str]:
    """Write ``envs/<family>.md`` and their pictures under ``out``; return the ids documented."""
    facts = [id_facts(env_id) for env_id in maze_env_ids()]
    pages = []
    for family in FAMILIES:
        ids = [f for f in facts if f.family is family]
        if not ids:
            continue
        for f in ids:
            write_if_changed(out / "envs" / "img" / f"{f.env_id}.png", f.picture)
        if family.env_class in ANIMATED:
            write_if_changed(out / "envs" / "img" / f"{family.slug}-oracle.gif",
                             oracle_animation(family.env_class, ANIMATED[family.env_class]))
        write_if_changed(out / "envs" / f"{family.slug}.md", family_page(family, ids))
        pages.append(family.slug)
    index = ["# Environments", "", f"maze-envs {maze_envs.__version__} registers {len(facts)} ids in "
             f"{len(pages)} families; `import maze_envs` registers them all.", "", "```{toctree}", ":maxdepth: 1", "",
             *pages, "```", ""]
    write_if_changed(out / "envs" / "index.md", "\n".join(index))
    return [f.env_id for f in facts]


