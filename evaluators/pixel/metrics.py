"""The spec's metrics on boolean masks in solution pixels: wall crossing, layout match, path match,
reflection/exploration and the overall score (the video gates are in ``gates``).

All functions are vectorised (OpenCV/numpy); none loops over pixels in Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from skimage.morphology import skeletonize

from .grid import GridGeometry, block_means

REFLECTION_LENGTH_RATIO = 1.3
WALL_PENALTY = 0.3
MIN_TOUCH_FRACTION = 0.02
MIN_CUT_PIXELS = 2


def skeleton_scale(cell_px: float, target_px: float = 8.0) -> float:
    """Return the shrink factor that brings a cell to about ``target_px`` pixels (never enlarges)."""
    return min(1.0, target_px / max(cell_px, 1.0))


def components(mask: np.ndarray) -> tuple[tuple[int, int], np.ndarray, np.ndarray, np.ndarray]:
    """Return ``((x0, y0), labels, stats, centroids)`` of ``mask``'s 8-connected blobs within its bounding box.

    Labelling only the bounding box keeps small blobs (markers) cheap on large images.
    """
    mask8 = mask.astype(np.uint8)
    x, y, w, h = cv2.boundingRect(mask8)
    if w == 0 or h == 0:
        return (0, 0), np.zeros((0, 0), np.int32), np.zeros((1, 5), np.int32), np.zeros((1, 2))
    _, labels, stats, centres = cv2.connectedComponentsWithStats(mask8[y:y + h, x:x + w], connectivity=8)
    return (x, y), labels, stats, centres


def centroid(mask: np.ndarray) -> tuple[float, float] | None:
    """Return the ``(x, y)`` centroid of the largest connected blob of ``mask``, or None when empty."""
    (x, y), _, stats, centres = components(mask)
    if len(stats) <= 1:
        return None
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return float(centres[largest][0] + x), float(centres[largest][1] + y)


def iou(a: np.ndarray, b: np.ndarray, care: np.ndarray | None = None) -> float:
    """Return the intersection over union of two boolean masks over the ``care`` pixels (1.0 when both are empty)."""
    inter, union = a & b, a | b
    if care is not None:
        inter, union = inter & care, union & care
    total = np.count_nonzero(union)
    return float(np.count_nonzero(inter) / total) if total else 1.0


@dataclass
class WallCrossing:
    """Wall-crossing metric: ``ratio`` = crossing pixels / path pixels; ``crossed_segments`` counts
    closed wall segments whose centre line the path covers (a cut through the wall's full thickness)."""

    detected: bool
    pixels: int
    ratio: float
    crossed_segments: int
    crossing: np.ndarray
    touching: np.ndarray


def wall_crossing(path: np.ndarray, walls: np.ndarray, segment_labels: np.ndarray, *, erosion_px: int,
                  min_ratio: float) -> WallCrossing:
    """Return the wall-crossing metric of ``path`` against the solution's ``walls``.

    Walls are eroded by ``erosion_px`` (the kernel size; tolerates anti-aliasing and edge touches);
    a crossing is flagged when its ratio exceeds ``min_ratio`` or a wall segment is cut through.
    """
    core = cv2.erode(walls.astype(np.uint8), np.ones((erosion_px, erosion_px), np.uint8)).astype(bool) \
        if erosion_px > 1 else walls
    crossing = path & core
    touching = path & walls & ~core
    pixels = int(np.count_nonzero(crossing))
    total = int(np.count_nonzero(path))
    ratio = pixels / total if total else 0.0
    hits = np.bincount(segment_labels[path], minlength=1)[1:]
    cut = int(np.count_nonzero(hits >= MIN_CUT_PIXELS))
    return WallCrossing(bool(ratio > min_ratio or cut > 0), pixels, float(ratio), cut, crossing, touching)


@dataclass
class LayoutMatch:
    """Layout metric: wall IoU and start (green) / goal (red) centroid distances against tolerances."""

    score: float
    structure_iou: float
    green_match: bool
    red_match: bool
    green_distance: float | None
    red_distance: float | None


def position_match(found: tuple[float, float] | None, expected: tuple[float, float] | None,
                   tolerance: float) -> tuple[bool, float | None]:
    """Return (within ``tolerance``, distance in pixels) of two centroids; (False, None) when either is missing."""
    if found is None or expected is None:
        return False, None
    distance = float(np.hypot(found[0] - expected[0], found[1] - expected[1]))
    return distance <= tolerance, distance


def layout_score(structure_iou: float, green_match: bool, red_match: bool) -> float:
    """Return the combined layout score ``0.5 * wall IoU + 0.25 * green match + 0.25 * red match``."""
    return 0.5 * structure_iou + 0.25 * green_match + 0.25 * red_match


def layout_match(gen_walls: np.ndarray, sol_walls: np.ndarray, care: np.ndarray, gen_green: tuple | None,
                 sol_green: tuple | None, gen_red: tuple | None, sol_red: tuple | None,
                 tolerance: float) -> LayoutMatch:
    """Return the layout match of a generated image: wall IoU over ``care`` pixels and start/goal
    centroids within ``tolerance``."""
    structure = iou(gen_walls, sol_walls, care)
    green_ok, green_d = position_match(gen_green, sol_green, tolerance)
    red_ok, red_d = position_match(gen_red, sol_red, tolerance)
    return LayoutMatch(layout_score(structure, green_ok, red_ok), structure, green_ok, red_ok, green_d, red_d)


@dataclass
class PathMatch:
    """Path metric: IoU, precision, recall of the dilated path vs the solution route; cell-level target achievement."""

    iou: float
    precision: float
    recall: float
    target_achievement: float
    dilated: np.ndarray


def touched_blocks(path: np.ndarray, geometry: GridGeometry) -> np.ndarray:
    """Return the ``(2*rows+1, 2*cols+1)`` bool map of blocks holding at least 2% path pixels."""
    integral = cv2.integral(path.astype(np.uint8))
    return block_means(integral, geometry, shrink=0.0) >= MIN_TOUCH_FRACTION


def path_match(path: np.ndarray, route: np.ndarray, free: np.ndarray, route_cells: np.ndarray,
               touched: np.ndarray, dilation_px: int) -> PathMatch:
    """Return the path match of a thin ``path`` mask, dilated to ``dilation_px`` width within ``free`` space,
    against the solution ``route`` mask; ``route_cells`` and ``touched`` are ``(rows, cols)`` bool maps."""
    distance = cv2.distanceTransform(np.where(path, 0, 255).astype(np.uint8), cv2.DIST_L2, 3)
    dilated = (distance <= dilation_px / 2) & free
    inter = np.count_nonzero(dilated & route)
    gen, sol = np.count_nonzero(dilated), np.count_nonzero(route)
    union = gen + sol - inter
    needed = np.count_nonzero(route_cells)
    achieved = np.count_nonzero(route_cells & touched)
    return PathMatch(inter / union if union else 0.0, inter / gen if gen else 0.0, inter / sol if sol else 0.0,
                     achieved / needed if needed else 0.0, dilated)


@dataclass
class Reflection:
    """Reflection/exploration metric: loops, skeleton length ratio, combined exploration score."""

    has_reflection: bool
    loop_count: int
    path_length_ratio: float
    exploration_score: float


def skeleton_length(mask: np.ndarray, scale: float = 1.0) -> float:
    """Return the centre-line length in pixels of ``mask``: its skeleton's pixel count.

    With ``scale < 1`` the mask is first shrunk (any coverage counts) and the length scaled back,
    which keeps skeletonisation cheap on large images; lines stay connected when the scale keeps a
    cell at least a few pixels wide.
    """
    if not mask.any():
        return 0.0
    if scale < 1.0:
        h, w = mask.shape
        size = (max(1, int(round(w * scale))), max(1, int(round(h * scale))))
        mask = cv2.resize(mask.astype(np.uint8) * 255, size, interpolation=cv2.INTER_AREA) > 0
        return float(np.count_nonzero(skeletonize(mask))) / scale
    return float(np.count_nonzero(skeletonize(mask)))


def graph_loops(touched: np.ndarray) -> int:
    """Return loops of a path drawn without order: cycles plus extra dead-end branches of its cell graph.

    ``touched`` is the block map of :func:`touched_blocks`; two touched cells are linked when the
    block between them is touched too.
    """
    cells = touched[1::2, 1::2]
    rows, cols = cells.shape
    index = np.arange(rows * cols).reshape(rows, cols)
    right = cells[:, :-1] & cells[:, 1:] & touched[1::2, 2:-1:2]
    down = cells[:-1, :] & cells[1:, :] & touched[2:-1:2, 1::2]
    a = np.concatenate([index[:, :-1][right], index[:-1, :][down]])
    b = np.concatenate([index[:, 1:][right], index[1:, :][down]])
    nodes = np.flatnonzero(cells.ravel())
    if nodes.size == 0:
        return 0
    graph = coo_matrix((np.ones(a.size), (a, b)), shape=(rows * cols, rows * cols)).tocsr()
    n_comp, labels = connected_components(graph, directed=False)
    components = np.unique(labels[nodes]).size
    degree = np.bincount(np.concatenate([a, b]), minlength=rows * cols)[nodes]
    cycles = a.size - nodes.size + components
    dead_ends = max(0, int(np.count_nonzero(degree == 1)) - 2 * components)
    return int(cycles + dead_ends)


def sequence_loops(cells: Sequence[tuple[int, int]]) -> int:
    """Return revisits in an ordered cell sequence: how often it re-enters a cell it had left."""
    seen: set[tuple[int, int]] = set()
    previous = None
    revisits = 0
    for cell in cells:
        if cell == previous:
            continue
        if cell in seen:
            revisits += 1
        seen.add(cell)
        previous = cell
    return revisits


def reflection(loop_count: int, path_length: float, solution_length: float) -> Reflection:
    """Return the reflection metric: reflection when loops exist or the path is > 1.3x the solution's length.

    ``exploration_score = 0.5 * min(1, loops / 5) + 0.5 * min(1, max(0, ratio - 1) / 0.6)``.
    """
    ratio = path_length / solution_length if solution_length else 0.0
    score = 0.5 * min(1.0, loop_count / 5) + 0.5 * min(1.0, max(0.0, ratio - 1.0) / 0.6)
    return Reflection(bool(loop_count > 0 or ratio > REFLECTION_LENGTH_RATIO), int(loop_count), float(ratio),
                      float(score))


def overall_score(layout_score: float, path_iou: float, wall_crossing_detected: bool) -> float:
    """Return ``layout_score * 0.2 + path_iou * 0.5 - (0.3 if wall crossing else 0)``."""
    return layout_score * 0.2 + path_iou * 0.5 - (WALL_PENALTY if wall_crossing_detected else 0.0)
