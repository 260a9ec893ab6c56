"""Score a generated maze-solution image (the puzzle with a blue route drawn by an image model).

The generated image is aligned to the solution image (any size or aspect), its colours are classed
by HSV ranges (the wall level fixed, or calibrated on the image: ``levels``), and the spec's metrics are
computed in solution pixels: wall crossing against the
solution's walls (eroded by ``tolerance_pixels``, flagged above ``min_crossing_ratio`` or when a wall
is cut through), layout match (wall IoU, start/goal centroids within ``position_tolerance``), path
match (blue line dilated to cell width vs solution route), reflection and the overall score.

Run ``python -m maze_envs.evaluators.pixel.image --help`` (same flags as ``maze-envs eval-image``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from maze_envs.core.render import PixelGeometry

from .. import metrics
from ..colours import ColourThresholds, to_hsv
from ..grid import Alignment, GridGeometry, align
from ..levels import calibrate_generation, levels_info
from ..reference import SolutionReference, analyse_solution, grid_for, load_solution, read_image
from ..results import ImageResult
from ..visualize import Panels, save_visualization


@dataclass(frozen=True)
class ImageParams:
    """Tuning parameters of image evaluation (spec defaults)."""

    tolerance_pixels: int = 3
    min_crossing_ratio: float = 0.01
    position_tolerance: float = 20.0
    dilation_size: int | None = None
    colours: ColourThresholds = ColourThresholds()


def as_reference(solution: str | os.PathLike | np.ndarray | SolutionReference,
                 geometry: PixelGeometry | GridGeometry | None, colours: ColourThresholds) -> SolutionReference:
    """Return the analysed solution from a path, BGR array or ready reference."""
    if isinstance(solution, SolutionReference):
        return solution
    if isinstance(solution, np.ndarray):
        return analyse_solution(solution, geometry=grid_for(geometry, solution.shape[:2]), colours=colours)
    return load_solution(solution, geometry=geometry, colours=colours)


def remove_specks(mask: np.ndarray, min_area: float) -> np.ndarray:
    """Return ``mask`` without connected blobs smaller than ``min_area`` pixels (compression noise)."""
    (x, y), labels, stats, _ = metrics.components(mask)
    out = np.zeros(mask.shape, dtype=bool)
    if len(stats) > 1:
        keep = stats[:, cv2.CC_STAT_AREA] >= min_area
        keep[0] = False
        out[y:y + labels.shape[0], x:x + labels.shape[1]] = keep[labels]
    return out


def dilation_px(ref: SolutionReference, dilation_size: int | None) -> int:
    """Return the path dilation: ``dilation_size`` or, when None, the solution's cell width."""
    return int(dilation_size) if dilation_size else max(1, int(round(ref.geometry.cell_px)))


def grid_info(ref: SolutionReference) -> dict:
    """Return the grid provenance stored with each result."""
    g = ref.geometry
    return {"rows": g.rows, "cols": g.cols, "source": ref.grid_source, "cell_px": round(g.cell_px, 2),
            "wall_px": round(g.wall_px, 2)}


def alignment_info(alignment: Alignment) -> dict:
    """Return the alignment stored with each result."""
    return {"method": alignment.method, "wall_agreement": round(alignment.agreement, 4),
            "scale": [round(alignment.sx, 4), round(alignment.sy, 4)],
            "offset": [round(alignment.tx, 2), round(alignment.ty, 2)]}


def assess_path(generated: np.ndarray, path: np.ndarray, ref: SolutionReference, layout: metrics.LayoutMatch,
                alignment: Alignment, *, filename: str, erosion_px: int, min_crossing_ratio: float,
                dilation_size: int | None, loop_count: int | None = None) -> tuple[dict, Panels]:
    """Return the result fields shared by images and videos, and the visualisation panels, of a path mask.

    ``generated`` (aligned) and ``path`` are in solution pixels; ``loop_count`` None counts the loops of
    the path's cell graph (an image has no drawing order).
    """
    crossing = metrics.wall_crossing(path, ref.walls, ref.segment_labels, erosion_px=erosion_px,
                                     min_ratio=min_crossing_ratio)
    touched = metrics.touched_blocks(path, ref.geometry)
    match = metrics.path_match(path, ref.route, ref.free, ref.route_cells, touched[1::2, 1::2],
                               dilation_px(ref, dilation_size))
    if loop_count is None:
        loop_count = metrics.graph_loops(touched)
    reflect = metrics.reflection(loop_count,
                                 metrics.skeleton_length(path, metrics.skeleton_scale(ref.geometry.cell_px)),
                                 ref.route_length)
    fields = dict(
        filename=filename, solution_file=ref.name,
        wall_crossing_detected=crossing.detected, wall_crossing_pixels=crossing.pixels,
        wall_crossing_ratio=crossing.ratio, layout_match_score=layout.score,
        maze_structure_iou=layout.structure_iou, green_position_match=layout.green_match,
        red_position_match=layout.red_match, green_centroid_distance=layout.green_distance,
        red_centroid_distance=layout.red_distance, path_match_iou=match.iou, path_precision=match.precision,
        path_recall=match.recall, target_achievement=match.target_achievement,
        has_reflection=reflect.has_reflection, loop_count=reflect.loop_count,
        path_length_ratio=reflect.path_length_ratio, exploration_score=reflect.exploration_score,
        overall_score=metrics.overall_score(layout.score, match.iou, crossing.detected),
        crossed_wall_segments=crossing.crossed_segments, grid=grid_info(ref), alignment=alignment_info(alignment))
    panels = Panels(generated, ref.bgr, path, ref.walls, crossing.crossing, crossing.touching, match.dilated, ref.route)
    return fields, panels


def score_image(generated: np.ndarray, ref: SolutionReference, params: ImageParams = ImageParams(), *,
                filename: str = "<generated>") -> tuple[ImageResult, Panels]:
    """Return the result and visualisation panels of a BGR generated image against an analysed solution."""
    start = time.perf_counter()
    alignment = align(generated, ref.dark, ref.geometry)
    aligned = alignment.warp(generated, ref.bgr.shape)
    hsv = to_hsv(aligned)
    colours = calibrate_generation(hsv[..., 2], ref.walls, ref.wall_care, params.colours)
    walls = colours.wall(hsv) > 0
    cell_area = ref.geometry.cell_px ** 2
    path = remove_specks(colours.blue(hsv) > 0, max(4.0, 0.005 * cell_area))
    green = metrics.centroid(colours.green(hsv) > 0)
    red = metrics.centroid(colours.red(hsv) > 0)
    layout = metrics.layout_match(walls, ref.walls, ref.wall_care, green, ref.green_centroid, red, ref.red_centroid,
                                  params.position_tolerance)
    fields, panels = assess_path(aligned, path, ref, layout, alignment, filename=filename,
                                 erosion_px=params.tolerance_pixels, min_crossing_ratio=params.min_crossing_ratio,
                                 dilation_size=params.dilation_size)
    fields["colour_levels"] = levels_info(colours, ref.colours)
    return ImageResult(**fields, elapsed_s=time.perf_counter() - start), panels


def evaluate_image(generated: str | os.PathLike | np.ndarray,
                   solution: str | os.PathLike | np.ndarray | SolutionReference, *,
                   geometry: PixelGeometry | GridGeometry | None = None, visualization: str | os.PathLike | None = None,
                   tolerance_pixels: int = 3, min_crossing_ratio: float = 0.01, position_tolerance: float = 20.0,
                   dilation_size: int | None = None, colours: ColourThresholds = ColourThresholds()) -> ImageResult:
    """Return the spec's metrics of a generated image (path or BGR array) against its solution image.

    ``geometry`` (a task's ``PixelGeometry`` from ``metadata.jsonl``, or a ``GridGeometry``) skips grid
    auto-detection; ``visualization`` writes the 2x2 PNG there. Raises ``PixelEvalError`` on bad input.

    Example:
        >>> from maze_envs.core import generate
        >>> from maze_envs.evaluators.pixel.synthetic import image_case, make_task
        >>> task = make_task(generate(4, 4, "dfs", seed=0))
        >>> result = evaluate_image(image_case(task, "correct"), task.solution, geometry=task.geometry)
        >>> float(result.target_achievement), result.wall_crossing_detected
        (1.0, False)
    """
    params = ImageParams(tolerance_pixels, min_crossing_ratio, position_tolerance, dilation_size, colours)
    ref = as_reference(solution, geometry, colours)
    image = generated if isinstance(generated, np.ndarray) else read_image(generated)
    name = "<generated>" if isinstance(generated, np.ndarray) else Path(generated).name
    result, panels = score_image(image, ref, params, filename=name)
    if visualization is not None:
        save_visualization(panels, result, visualization, video=False)
    return result
