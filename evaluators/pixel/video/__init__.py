"""Score a generated maze-solution video (a green marker moving from start to goal) against the solution image.

Frames (``num_frames``, default 192; 360 for model names containing "sora" unless set otherwise) are
decoded with OpenCV and sampled evenly; each is aligned to the solution's pixels and checked for
layout in a thread pool (the minimum layout score over frames is reported). The marker path is
extracted by green-marker tracking (the union of the marker's pixels over all frames, joined frame
to frame) or by frame differencing (green pixels new since the last frame that added a marker's worth).
Wall crossing compares the raw path with the solution's walls eroded by ``wall_erosion`` (a quarter of
the cell size by default) and flags ratios above 5%; path match, reflection (revisited cells in the
marker's order), the overall score and the gates follow the spec.

Run ``python -m evaluators.pixel.video --help`` (same flags as ``maze-envs eval-video``).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Iterable, Iterator
from pathlib import Path

import cv2
import numpy as np

from maze_envs.core.errors import MazeConfigError, brief_repr
from maze_envs.core.render import PixelGeometry

from .. import metrics
from ..colours import ColourThresholds, to_hsv
from ..errors import MediaReadError
from ..gates import gates
from ..grid import Alignment, GridGeometry, align
from ..image import as_reference, assess_path
from ..reference import SolutionReference
from ..results import VideoResult
from ..visualize import Panels, save_visualization

DEFAULT_FRAMES = 192
SORA_FRAMES = 360
# Width of the line joining consecutive marker positions: wide enough that a jump across a wall between
# sampled frames covers at least ``metrics.MIN_CUT_PIXELS`` of the wall's centre line.
JOIN_PX = 3


def frames_for_model(model_name: str, num_frames: int = DEFAULT_FRAMES) -> int:
    """Return the frames to extract: 360 for "sora" models when ``num_frames`` is left at the default 192."""
    if "sora" in model_name.lower() and num_frames == DEFAULT_FRAMES:
        return SORA_FRAMES
    return num_frames


def iter_frames(path: str | os.PathLike, num_frames: int = DEFAULT_FRAMES) -> Iterator[np.ndarray]:
    """Yield up to ``num_frames`` BGR frames sampled evenly over the video as they are decoded.

    Raises ``MediaReadError`` when the file is missing, cannot be opened or yields no frame.
    """
    path = Path(path)
    if not path.is_file():
        raise MediaReadError("file not found", source=path)
    capture = cv2.VideoCapture(str(path))
    if not capture.isOpened():
        raise MediaReadError("unreadable video (cannot open)", source=path)
    try:
        count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
        if count <= 0:
            frames = []
            while True:
                ok, frame = capture.read()
                if not ok:
                    break
                frames.append(frame)
            keep = np.linspace(0, len(frames) - 1, min(num_frames, len(frames))).round().astype(int) if frames else []
            wanted_list = [frames[i] for i in keep]
            if not wanted_list:
                raise MediaReadError("no decodable frames (empty or truncated video)", source=path)
            yield from wanted_list
            return
        wanted = set(np.linspace(0, count - 1, num_frames).round().astype(int).tolist()) if count > num_frames else None
        index = produced = 0
        while capture.grab():
            if wanted is None or index in wanted:
                ok, frame = capture.retrieve()
                if ok and frame is not None:
                    produced += 1
                    yield frame
            index += 1
        if produced == 0:
            raise MediaReadError("no decodable frames (empty or truncated video)", source=path)
    finally:
        capture.release()


def read_frames(path: str | os.PathLike, num_frames: int = DEFAULT_FRAMES) -> list[np.ndarray]:
    """Return up to ``num_frames`` BGR frames sampled evenly over the video; raise ``MediaReadError``."""
    return list(iter_frames(path, num_frames))


@dataclass(frozen=True)
class VideoParams:
    """Tuning parameters of video evaluation (spec defaults)."""

    num_frames: int = DEFAULT_FRAMES
    min_crossing_ratio: float = 0.05
    position_tolerance: float = 50.0
    wall_erosion: int | None = None
    dilation_size: int | None = None
    extraction_method: str = "green_marker_tracking"
    colours: ColourThresholds = ColourThresholds()
    frame_workers: int = 4

    def __post_init__(self) -> None:
        if self.extraction_method not in EXTRACTION_METHODS:
            raise MazeConfigError(f"unknown method {brief_repr(self.extraction_method)}; "
                                  f"choose from {', '.join(EXTRACTION_METHODS)}", parameter="extraction_method")


@dataclass
class FrameCheck:
    """What one frame shows, in the frame's own pixels: wall IoU, the marker's box mask and centroid, the red centroid."""

    structure_iou: float
    marker: tuple[int, int, np.ndarray] | None
    marker_centroid: tuple[float, float] | None
    red_centroid: tuple[float, float] | None


def wall_erosion_px(ref: SolutionReference, wall_erosion: int | None) -> int:
    """Return the wall erosion kernel: ``wall_erosion`` or a quarter of the cell size (of the wall
    thickness when walls are thinner than cells, so thin walls keep a core)."""
    if wall_erosion:
        return int(wall_erosion)
    return max(1, int(round(min(ref.geometry.cell_px, ref.geometry.wall_px) / 4)))


@dataclass
class FrameReference:
    """The solution's wall masks mapped once into the frames' pixels, so frames are checked unwarped."""

    walls: np.ndarray
    care: np.ndarray
    wall_count: int
    min_marker: float

    @classmethod
    def build(cls, ref: SolutionReference, alignment: Alignment, frame_shape: tuple[int, ...]) -> "FrameReference":
        """Return the solution's (care-masked) walls and care mask in frame pixels (0 outside the maze)."""
        h, w = frame_shape[:2]

        def forward(mask: np.ndarray) -> np.ndarray:
            return cv2.warpAffine(mask.astype(np.uint8) * 255, alignment.matrix, (w, h), flags=cv2.INTER_NEAREST,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=0)

        care = forward(ref.wall_care)
        walls = cv2.bitwise_and(forward(ref.walls), care)
        marker_scale = abs(alignment.sx * alignment.sy)
        return cls(walls, care, cv2.countNonZero(walls), max(4.0, 0.05 * ref.geometry.cell_px ** 2 * marker_scale))


def check_frame(frame: np.ndarray, fref: FrameReference, colours: ColourThresholds, want_red: bool) -> FrameCheck:
    """Return the layout and marker findings of one frame (its own pixels)."""
    hsv = to_hsv(frame)
    walls = cv2.bitwise_and(colours.wall(hsv), fref.care)
    inter = cv2.countNonZero(cv2.bitwise_and(walls, fref.walls))
    union = cv2.countNonZero(walls) + fref.wall_count - inter
    (x, y), labels, stats, centres = metrics.components(colours.green(hsv))
    marker, centre = None, None
    if len(stats) > 1:
        largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        if stats[largest, cv2.CC_STAT_AREA] >= fref.min_marker:
            marker = (x, y, labels == largest)
            centre = (float(centres[largest][0] + x), float(centres[largest][1] + y))
    red = metrics.centroid(colours.red(hsv) > 0) if want_red else None
    return FrameCheck(inter / union if union else 1.0, marker, centre, red)


def check_frames(frames: Iterator[np.ndarray], first: np.ndarray, fref: FrameReference, colours: ColourThresholds,
                 workers: int) -> list[FrameCheck]:
    """Return the check of ``first`` and every further frame, in order.

    Frames are checked in a thread pool as they arrive (OpenCV releases the GIL), so decoding and
    checking overlap. The goal's red centroid is looked for until it is first seen.
    """
    checks = [check_frame(first, fref, colours, want_red=True)]
    want_red = checks[0].red_centroid is None
    if workers <= 1:
        for frame in frames:
            checks.append(check_frame(frame, fref, colours, want_red))
            want_red = want_red and checks[-1].red_centroid is None
        return checks
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(check_frame, frame, fref, colours, want_red) for frame in frames]
        checks += [future.result() for future in futures]
    return checks


def _join(path: np.ndarray, points: list[tuple[float, float]]) -> np.ndarray:
    """Return ``path`` with a ``JOIN_PX``-wide polyline through consecutive marker positions (so fast moves stay
    connected and a jump across a wall between sampled frames still cuts it)."""
    if len(points) < 2:
        return path
    canvas = path.astype(np.uint8)
    pts = np.round(np.array(points) * 16).astype(np.int32)
    cv2.polylines(canvas, [pts], False, 1, JOIN_PX, cv2.LINE_8, shift=4)
    return canvas.astype(bool)


def _track(checks: list[FrameCheck], shape: tuple[int, int], min_marker: float) -> tuple[np.ndarray, list]:
    """Return the union of the marker's pixels over all frames and its centroid in each frame that shows it."""
    path = np.zeros(shape, dtype=bool)
    points = []
    for check in checks:
        if check.marker is not None:
            x, y, box = check.marker
            path[y:y + box.shape[0], x:x + box.shape[1]] |= box
            points.append(check.marker_centroid)
    return path, points


def _difference(checks: list[FrameCheck], shape: tuple[int, int], min_marker: float) -> tuple[np.ndarray, list]:
    """Return the marker pixels new since the last frame that added ``min_marker`` of them, and the centroid of
    each such addition (a slow marker's slivers add up until they count)."""
    path = np.zeros(shape, dtype=bool)
    previous = np.zeros(shape, dtype=bool)
    points = []
    for check in checks:
        if check.marker is None:
            continue
        # New pixels lie within the marker's own box, so only that box is compared.
        x, y, box = check.marker
        window = (slice(y, y + box.shape[0]), slice(x, x + box.shape[1]))
        new = box & ~previous[window]
        if np.count_nonzero(new) >= min_marker:
            path[window] |= new
            ys, xs = np.nonzero(new)
            points.append((float(xs.mean() + x), float(ys.mean() + y)))
            previous[:] = False
            previous[window] = box
    return path, points


EXTRACTORS = {"green_marker_tracking": _track, "frame_differencing": _difference}
EXTRACTION_METHODS = tuple(EXTRACTORS)


def extract_path(checks: list[FrameCheck], method: str, frame_shape: tuple[int, ...],
                 min_marker: float) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """Return the accumulated path mask and ordered marker positions, in frame pixels, by ``method``
    (one of ``EXTRACTION_METHODS``)."""
    return EXTRACTORS[method](checks, frame_shape[:2], min_marker)


def _to_solution(point: tuple[float, float], alignment: Alignment) -> tuple[float, float]:
    """Return a frame pixel position in solution pixels."""
    x, y = alignment.to_solution(*point)
    return float(x), float(y)


def _first_seen(points: list[tuple[float, float] | None], alignment: Alignment) -> tuple[float, float] | None:
    """Return the first of per-frame positions that was found, in solution pixels; None when none was."""
    found = next((p for p in points if p is not None), None)
    return None if found is None else _to_solution(found, alignment)


def score_video(frames: Iterable[np.ndarray], ref: SolutionReference, params: VideoParams = VideoParams(), *,
                filename: str = "<generated>") -> tuple[VideoResult, Panels]:
    """Return the result and visualisation panels of BGR ``frames`` (a list, or an iterator that decodes
    them) against an analysed solution; the first frame sets the alignment."""
    start = time.perf_counter()
    frames = iter(frames)
    first = next(frames, None)
    if first is None:
        raise MediaReadError("no frames", source=filename)
    alignment = align(first, ref.dark, ref.geometry)
    fref = FrameReference.build(ref, alignment, first.shape)
    checks = check_frames(frames, first, fref, params.colours, params.frame_workers)
    frame_path, frame_points = extract_path(checks, params.extraction_method, first.shape, fref.min_marker)
    points = [_to_solution(p, alignment) for p in frame_points]
    path = _join(alignment.warp(frame_path.astype(np.uint8), ref.shape, nearest=True, border=0).astype(bool), points)

    first_marker = _first_seen([c.marker_centroid for c in checks], alignment)
    first_red = _first_seen([c.red_centroid for c in checks], alignment)
    green_ok, green_d = metrics.position_match(first_marker, ref.green_centroid, params.position_tolerance)
    red_ok, red_d = metrics.position_match(first_red, ref.red_centroid, params.position_tolerance)
    scores = np.array([metrics.layout_score(c.structure_iou, green_ok, red_ok) for c in checks])
    worst = int(np.argmin(scores))
    layout = metrics.LayoutMatch(float(scores[worst]), checks[worst].structure_iou, green_ok, red_ok, green_d, red_d)

    cells = [ref.geometry.cell_of_point(x, y) for x, y in points]
    fields, panels = assess_path(alignment.warp(first, ref.bgr.shape), path, ref, layout, alignment, filename=filename,
                                 erosion_px=wall_erosion_px(ref, params.wall_erosion),
                                 min_crossing_ratio=params.min_crossing_ratio, dilation_size=params.dilation_size,
                                 loop_count=metrics.sequence_loops([c for c in cells if c is not None]))
    gate = gates(layout.structure_iou, fields["target_achievement"], fields["wall_crossing_detected"])
    result = VideoResult(
        **fields, total_frames=len(checks), frames_with_marker=sum(c.marker is not None for c in checks),
        path_extraction_method=params.extraction_method, worst_layout_frame=worst,
        layout_match_score_gated=gate.layout_match_score_gated, target_achievement_gated=gate.target_achievement_gated,
        overall_score_gated=gate.overall_score_gated, elapsed_s=time.perf_counter() - start)
    return result, panels


def evaluate_video(generated: str | os.PathLike, solution: str | os.PathLike | np.ndarray | SolutionReference, *,
                   geometry: PixelGeometry | GridGeometry | None = None, visualization: str | os.PathLike | None = None,
                   num_frames: int = DEFAULT_FRAMES, extraction_method: str = "green_marker_tracking",
                   min_crossing_ratio: float = 0.05, position_tolerance: float = 50.0, wall_erosion: int | None = None,
                   dilation_size: int | None = None, colours: ColourThresholds = ColourThresholds(),
                   frame_workers: int = 4) -> VideoResult:
    """Return the spec's metrics of a generated MP4 against its solution image.

    ``geometry`` skips grid auto-detection; ``visualization`` writes the 2x2 PNG there; ``frame_workers``
    threads check frames. Raises ``PixelEvalError`` on bad input (unreadable, truncated, zero frames).
    """
    params = VideoParams(num_frames, min_crossing_ratio, position_tolerance, wall_erosion, dilation_size,
                         extraction_method, colours, frame_workers)
    ref = as_reference(solution, geometry, colours)
    result, panels = score_video(iter_frames(generated, num_frames), ref, params, filename=Path(generated).name)
    if visualization is not None:
        save_visualization(panels, result, visualization, video=True)
    return result
