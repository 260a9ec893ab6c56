"""Labelled-openings datasets: settings, variants, and the image and annotation record of each sample.

Each record holds exactly the spec's fields (``image``, ``rows``, ``cols``, ``cell_size``,
``wall_width``, ``margin``, ``num_openings``, ``openings``, ``connected_pair``, ``answer``,
``path_length``, ``difficulty``) and, unless ``extras`` is off, the optional ones:
``vertical_walls``, ``horizontal_walls`` (0/1), ``opening_pixels`` (gap and label boxes),
``path`` (BFS path cells) and ``decoy_cells`` (each decoy's region, by label).

Sample ``i`` draws everything from its own seed (``SeedSequence(seed)``, position ``i``), so a
run stopped half-way and resumed writes the same dataset. ``maze_envs.datasets.write_openings_dataset``
writes the dataset (``images/maze_00000.png ...``, ``annotations.jsonl``, ``errors.jsonl``, ``config.json``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Sequence

import numpy as np

from maze_envs.core.errors import MazeConfigError, MazeFormatError, brief_repr
from maze_envs.core.maze import Maze, Opening
from maze_envs.core.validate import choice, integer, positive_int

from .puzzle import OpeningsPuzzle, check_request, generate_openings
from .render import OpeningsRendering, OpeningsStyle, check_style, render_openings

# Each variant of the spec sets some fields of ``OpeningsDatasetConfig``; pairs in VARIANT_GROUPS exclude each other.
VARIANTS: dict[str, dict[str, Any]] = {
    "small-grids": {"rows": (8, 12), "cols": (8, 12)},
    "large-grids": {"rows": (14, 20), "cols": (14, 20)},
    "few-openings": {"openings": (3, 4)},
    "many-openings": {"openings": (5, 6)},
    "opposite-sides": {"opposite_sides": True},
    "any-sides": {"opposite_sides": False},
    "fixed-size": {"fixed_size": True},
    "variable-size": {"fixed_size": False},
    "thick-walls": {"wall_width": 8},
    "thin-walls": {"wall_width": 2},
}
VARIANT_GROUPS: tuple[tuple[str, str], ...] = (
    ("small-grids", "large-grids"), ("few-openings", "many-openings"), ("opposite-sides", "any-sides"),
    ("fixed-size", "variable-size"), ("thick-walls", "thin-walls"),
)


@dataclass(frozen=True)
class OpeningsDatasetConfig:
    """Settings of a dataset: ranges are inclusive ``(low, high)``; ``fixed_size`` draws one size for every sample.

    ``balance`` keeps the connected pair's position from giving the answer away (``generate_openings``).
    """

    count: int
    rows: tuple[int, int] = (8, 20)
    cols: tuple[int, int] = (8, 20)
    openings: tuple[int, int] = (3, 6)
    seed: int = 0
    opposite_sides: bool = False
    fixed_size: bool = False
    balance: bool = True
    style: OpeningsStyle = field(default_factory=OpeningsStyle)
    extras: bool = True

    def __post_init__(self) -> None:
        positive_int(self.count, parameter="count")
        for name in ("rows", "cols", "openings"):
            low, high = getattr(self, name)
            if low > high:
                raise MazeConfigError(f"low {brief_repr(low)} is above high {brief_repr(high)}", parameter=name)
        for name in ("rows", "cols"):
            integer(getattr(self, name)[0], 3, parameter=name)
        for count in self.openings:
            integer(count, 2, 26, parameter="openings")
        check_style(self.style, self.openings[1])
        check_request(self.rows[1], self.cols[1], self.openings[0])  # even the largest grid cannot hold them

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON-ready settings."""
        out = asdict(self)
        for name in ("rows", "cols", "openings"):
            out[name] = list(out[name])
        return out


def apply_variants(config: OpeningsDatasetConfig, variants: Sequence[str], **explicit: Any) -> OpeningsDatasetConfig:
    """Return ``config`` with each named variant applied, then the ``explicit`` (non-None) settings on top."""
    for name in variants:
        choice(name, VARIANTS, parameter="variants")
    for a, b in VARIANT_GROUPS:
        if a in variants and b in variants:
            raise MazeConfigError(f"{a} and {b} exclude each other", parameter="variants")
    fields: dict[str, Any] = {}
    style: dict[str, Any] = {}
    for name in variants:
        for key, value in VARIANTS[name].items():
            (style if key in OpeningsStyle.__dataclass_fields__ else fields)[key] = value
    for key, value in explicit.items():
        if value is not None:
            (style if key in OpeningsStyle.__dataclass_fields__ else fields)[key] = value
    return replace(config, style=replace(config.style, **style), **fields)


def sample_seeds(seed: int, count: int) -> list[int]:
    """Return one seed per sample, derived from ``seed`` (the same list prefix for any ``count``)."""
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(count + 1, dtype=np.uint32)[1:]]


def sample_sizes(config: OpeningsDatasetConfig, rng: np.random.Generator) -> tuple[int, int, int]:
    """Return ``(rows, cols, openings)`` of one sample; with ``fixed_size`` the size comes from the dataset seed."""
    size_rng = np.random.default_rng(config.seed) if config.fixed_size else rng
    rows = int(size_rng.integers(config.rows[0], config.rows[1] + 1))
    cols = int(size_rng.integers(config.cols[0], config.cols[1] + 1))
    return rows, cols, int(rng.integers(config.openings[0], config.openings[1] + 1))


def build_sample(config: OpeningsDatasetConfig, seed: int) -> tuple[OpeningsPuzzle, OpeningsRendering]:
    """Return the puzzle and its rendering for one sample seed."""
    rng = np.random.default_rng(seed)
    rows, cols, n = sample_sizes(config, rng)
    puzzle = generate_openings(rows, cols, n, rng, opposite_sides=config.opposite_sides, balance=config.balance)
    return puzzle, render_openings(puzzle, config.style)


def openings_record(puzzle: OpeningsPuzzle, rendering: OpeningsRendering, image: str, style: OpeningsStyle,
                    extras: bool = True) -> dict[str, Any]:
    """Return the annotation record of a sample (the spec's fields, then the optional extras)."""
    maze = puzzle.maze
    record: dict[str, Any] = {
        "image": image,
        "rows": maze.rows,
        "cols": maze.cols,
        "cell_size": style.cell_size,
        "wall_width": style.wall_width,
        "margin": style.margin,
        "num_openings": puzzle.num_openings,
        "openings": [{"label": lo.label, "side": lo.opening.side, "index": lo.opening.index,
                      "is_connected": lo.is_connected} for lo in puzzle.labels],
        "connected_pair": list(puzzle.connected_pair),
        "answer": puzzle.answer,
        "path_length": puzzle.path_length,
        "difficulty": puzzle.difficulty,
    }
    if extras:
        walls = puzzle_input(puzzle)
        record["vertical_walls"] = walls["vertical_walls"]
        record["horizontal_walls"] = walls["horizontal_walls"]
        record["opening_pixels"] = [p.to_dict() for p in rendering.labels]
        record["path"] = [list(c) for c in puzzle.path]
        record["decoy_cells"] = {label: [list(c) for c in cells] for label, cells in puzzle.decoys.items()}
    return record


def image_name(index: int) -> str:
    """Return the relative image path of sample ``index``: ``images/maze_00000.png``."""
    return f"images/maze_{index:05d}.png"


def puzzle_input(puzzle: OpeningsPuzzle) -> dict[str, Any]:
    """Return what a solver needs of ``puzzle`` and not the answer: ``rows``, ``cols``, the 0/1 wall arrays and
    the ``openings`` (``label``, ``side``, ``index``); ``maze_from_record`` reads it back."""
    maze = puzzle.maze
    return {"rows": maze.rows, "cols": maze.cols,
            "vertical_walls": maze.vertical_walls.astype(int).tolist(),
            "horizontal_walls": maze.horizontal_walls.astype(int).tolist(),
            "openings": [{"label": lo.label, "side": lo.opening.side, "index": lo.opening.index}
                         for lo in puzzle.labels]}


def maze_from_record(record: dict[str, Any], source: str | None = None) -> tuple[Maze, dict[str, Opening]]:
    """Return the maze of an annotation record (walls and openings) and its openings by label.

    Needs ``rows``, ``cols``, ``vertical_walls``, ``horizontal_walls`` and ``openings``
    (``label``, ``side``, ``index``); raises ``MazeFormatError`` naming the field otherwise.
    """
    for key in ("rows", "cols", "vertical_walls", "horizontal_walls", "openings"):
        if key not in record:
            raise MazeFormatError("missing (the dataset was written without extras)" if "walls" in key else "missing",
                                  source=source, field=key)
    try:
        openings = {str(o["label"]): Opening(o["side"], int(o["index"])) for o in record["openings"]}
        maze = Maze(int(record["rows"]), int(record["cols"]), np.asarray(record["vertical_walls"]),
                    np.asarray(record["horizontal_walls"]), openings=tuple(openings.values()))
    except MazeFormatError as exc:
        raise MazeFormatError(str(exc), source=source) from exc
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise MazeFormatError(f"malformed walls or openings: {brief_repr(exc)}", source=source) from None
    return maze, openings
