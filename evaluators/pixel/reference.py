"""The solution side of every comparison: masks, grid, route cells and wall segments of a solution image.

A solution is analysed once and cached, so a batch of generations per task pays for it once.
Its grid comes from the task's ``metadata.jsonl`` record when one is given, else from auto-detection.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from maze_envs.core.datafiles import read_data_bytes, read_failure
from maze_envs.core.errors import MazeFormatError, brief_repr
from maze_envs.core.jsonfiles import read_jsonl
from maze_envs.core.render import PixelGeometry
from maze_envs.core.validate import integer

from .colours import ColourThresholds, dark_mask, to_hsv
from .errors import MediaReadError, PixelEvalError
from .grid import GridGeometry, block_means, detect_grid
from .levels import calibrate_solution
from .metrics import centroid, skeleton_length, skeleton_scale

MAX_GEOMETRY_PX = 1 << 20  # no image side, cell or wall reaches a million pixels


@dataclass
class SolutionReference:
    """A solution image analysed: masks in its pixels, its grid, route cells and wall-segment centre lines.

    ``free`` is the walkable space: white (above the white threshold) or route-coloured pixels; ``colours``
    are the colour classes used, with any auto level calibrated on this image.
    """

    name: str
    bgr: np.ndarray
    dark: np.ndarray
    geometry: GridGeometry
    grid_source: str
    walls: np.ndarray
    wall_care: np.ndarray
    free: np.ndarray
    route: np.ndarray
    green_centroid: tuple[float, float] | None
    red_centroid: tuple[float, float] | None
    route_cells: np.ndarray
    segment_labels: np.ndarray
    route_length: float
    colours: ColourThresholds = ColourThresholds()

    @property
    def shape(self) -> tuple[int, int]:
        """Return ``(height, width)`` of the solution image."""
        return self.bgr.shape[:2]


def read_image(path: str | os.PathLike) -> np.ndarray:
    """Return the BGR uint8 pixels of an image file; raise ``MediaReadError`` naming it."""
    try:
        data = np.frombuffer(read_data_bytes(path), dtype=np.uint8)
    except OSError as exc:
        raise MediaReadError(read_failure(exc), source=path) from None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise MediaReadError("unreadable or truncated image", source=path)
    return image


def _block_index(edges: np.ndarray, size: int) -> np.ndarray:
    """Return, for each pixel centre ``0..size-1``, the block it lies in (-1 outside the grid)."""
    index = np.searchsorted(edges, np.arange(size) + 0.5, side="right") - 1
    return np.where((index >= 0) & (index < len(edges) - 1), index, -1)


def _segment_labels(shape: tuple[int, int], geometry: GridGeometry, wall_blocks: np.ndarray) -> np.ndarray:
    """Return an int32 image: the centre line of each closed wall segment (not posts) labelled 1, 2, ..."""
    h, w = shape
    ys, xs = geometry.block_edges()
    parity = np.add.outer(np.arange(wall_blocks.shape[0]), np.arange(wall_blocks.shape[1])) % 2 == 1
    segments = wall_blocks & parity
    ids = np.zeros((wall_blocks.shape[0] + 1, wall_blocks.shape[1] + 1), dtype=np.int32)
    ids[:-1, :-1][segments] = np.arange(1, np.count_nonzero(segments) + 1)
    row_of, col_of = _block_index(ys, h), _block_index(xs, w)
    labels = np.zeros(shape, dtype=np.int32)
    even_cols = np.arange(0, wall_blocks.shape[1], 2)
    centre_x = np.clip(((xs[even_cols] + xs[even_cols + 1]) / 2).astype(int), 0, w - 1)
    labels[:, centre_x] = ids[row_of[:, None], even_cols[None, :]]
    even_rows = np.arange(0, wall_blocks.shape[0], 2)
    centre_y = np.clip(((ys[even_rows] + ys[even_rows + 1]) / 2).astype(int), 0, h - 1)
    across = ids[even_rows[:, None], col_of[None, :]]
    labels[centre_y, :] = np.where(across > 0, across, labels[centre_y, :])
    return labels


def wall_care(walls: np.ndarray, band: int = 1) -> np.ndarray:
    """Return the pixels that count in the wall IoU: all but a ``band``-pixel strip on each side of wall edges,
    where resampling and compression of the generated image blur black into white."""
    kernel = np.ones((2 * band + 1, 2 * band + 1), np.uint8)
    walls8 = walls.astype(np.uint8)
    return ~(cv2.dilate(walls8, kernel).astype(bool) & ~cv2.erode(walls8, kernel).astype(bool))


def analyse_solution(bgr: np.ndarray, *, name: str = "<solution>", geometry: GridGeometry | None = None,
                     colours: ColourThresholds = ColourThresholds()) -> SolutionReference:
    """Return the analysed solution image; the grid is ``geometry`` or auto-detected (``GridDetectionError``)."""
    source = "metadata" if geometry is not None else "detected"
    geometry = geometry or detect_grid(bgr, source=name)
    hsv = to_hsv(bgr)
    colours = calibrate_solution(hsv, colours)
    walls = colours.wall(hsv) > 0
    green, red = colours.green(hsv) > 0, colours.red(hsv) > 0
    route = (colours.blue(hsv) > 0) | green | red
    wall_blocks = block_means(cv2.integral(walls.astype(np.uint8)), geometry) >= 0.5
    route_cells = block_means(cv2.integral(route.astype(np.uint8)), geometry)[1::2, 1::2] >= 0.5
    if not route_cells.any():
        raise PixelEvalError("solution image has no blue/green/red route cells", source=name)
    return SolutionReference(
        name=name, bgr=bgr, dark=dark_mask(bgr), geometry=geometry, grid_source=source, walls=walls,
        wall_care=wall_care(walls), free=((colours.free(hsv) > 0) | route) & ~walls, route=route,
        green_centroid=centroid(green), red_centroid=centroid(red), route_cells=route_cells,
        segment_labels=_segment_labels(walls.shape, geometry, wall_blocks),
        route_length=skeleton_length(route, skeleton_scale(geometry.cell_px)), colours=colours)


def grid_for(geometry: PixelGeometry | GridGeometry | None, shape: tuple[int, int]) -> GridGeometry | None:
    """Return the grid of an image of ``shape``: a render's ``PixelGeometry`` scaled to it (the solution may
    have been resized), a ``GridGeometry`` as given, or None (auto-detect)."""
    if isinstance(geometry, PixelGeometry):
        return GridGeometry.from_pixel_geometry(geometry, shape[1] / geometry.width, shape[0] / geometry.height)
    return geometry


@lru_cache(maxsize=64)
def _load_cached(path: str, mtime: float, geometry: PixelGeometry | GridGeometry | None,
                 colours: ColourThresholds) -> SolutionReference:
    bgr = read_image(path)
    return analyse_solution(bgr, name=Path(path).name, geometry=grid_for(geometry, bgr.shape[:2]), colours=colours)


def load_solution(path: str | os.PathLike, *, geometry: PixelGeometry | GridGeometry | None = None,
                  colours: ColourThresholds = ColourThresholds()) -> SolutionReference:
    """Return the analysed solution image at ``path`` (cached per file version); raise ``PixelEvalError``."""
    path = Path(path)
    if not path.is_file():
        raise MediaReadError("solution image not found", source=path)
    return _load_cached(str(path), path.stat().st_mtime, geometry, colours)


def _geometry(value: object, where: str, path: Path) -> PixelGeometry:
    """Return the ``PixelGeometry`` of a metadata record's ``geometry`` object; raises ``MazeFormatError`` naming
    the record and field when a field is missing, unknown or not a fitting integer."""
    names = [f.name for f in fields(PixelGeometry)]
    if not isinstance(value, dict) or set(value) != set(names):
        raise MazeFormatError(f"{where}: expected an object with {', '.join(names)}, got {brief_repr(value)}",
                              source=path, field="geometry")
    for name in names:
        low = 1 if name in ("rows", "cols", "cell_px", "width", "height") else 0
        integer(value[name], low, MAX_GEOMETRY_PX, error=lambda message, name=name: MazeFormatError(
            f"{where}: {message}", source=path, field=f"geometry.{name}"))
    return PixelGeometry(**value)


def metadata_geometries(path: str | os.PathLike) -> dict[str, PixelGeometry]:
    """Return ``{solution file name: PixelGeometry}`` from a task ``metadata.jsonl``; {} if it does not exist.

    Raises ``MazeFormatError`` naming the file and record when a record lacks a readable geometry.
    """
    path = Path(path)
    if not path.is_file():
        return {}
    found: dict[str, PixelGeometry] = {}
    for number, record in enumerate(read_jsonl(path), 1):
        solution, geometry = record.get("solution"), record.get("geometry")
        if not isinstance(solution, str) or not solution:
            raise MazeFormatError(f"record {number}: expected a file name, got {brief_repr(solution)}", source=path,
                                  field="solution")
        found[solution] = _geometry(geometry, f"record {number}", path)
    return found
