"""Score a generated maze-solution video (a green marker moving from start to goal) against the solution image.

Frames (``num_frames``, default 192; 360 for model names containing "sora" unless set otherwise) are
decoded with OpenCV and sampled evenly; the first is aligned to the solution's pixels, each frame's
alignment is corrected for camera drift and zoom (``drift``), and frames are checked for layout in a
thread pool (the minimum layout score over frames is reported). In each frame the marker is its head:
the green pixels nearly as green as the greenest, so a paler or other-hued trail behind it is left
out. The marker path is extracted by green-marker tracking (the union of the marker's pixels over all
frames, joined frame to frame) or by frame differencing (marker pixels new since the last frame that
added a marker's worth).
Wall crossing compares the raw path with the solution's walls eroded by ``wall_erosion`` (a quarter of
the cell size by default) and flags ratios above 5%; path match, reflection (revisited cells in the
marker's order), the overall score and the gates follow the spec.

Run ``python -m maze_envs.evaluators.pixel.video --help`` (same flags as ``maze-envs eval-video``).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import cv2
import numpy as np

from maze_envs.core.datafiles import check_data_file, read_failure
from maze_envs.core.paths import utf8_path
from maze_envs.core.render import PixelGeometry
from maze_envs.core.validate import choice

from .. import metrics
from ..colours import ColourThresholds, to_hsv
from ..drift import DriftTracker, corner_shift
from ..errors import MediaReadError
from ..gates import gates
from ..grid import Alignment, GridGeometry, align
from ..image import as_reference, assess_path
from ..levels import calibrate_generation, levels_info
from ..reference import SolutionReference
from ..results import VideoResult
from ..visualize import Panels, save_visualization

DEFAULT_FRAMES = 192
SORA_FRAMES = 360
# Width of the line joining consecutive marker positions: wide enough that a jump across a wall between
# sampled frames covers at least ``metrics.MIN_CUT_PIXELS`` of the wall's centre line.
JOIN_PX = 3
# The marker's head: green pixels at least this share as green as the frame's greenest (a trail fades).
HEAD_STRENGTH = 0.85


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
    try:
        check_data_file(path)
    except OSError as exc:
        raise MediaReadError(read_failure(exc), source=path) from None
    with utf8_path(path) as name:  # OpenCV takes the name as UTF-8 (it crashes on other bytes)
        capture = cv2.VideoCapture(name)
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
        choice(self.extraction_method, EXTRACTION_METHODS, parameter="extraction_method")


@dataclass
class FrameCheck:
    """What one frame shows: wall IoU, and in solution pixels the marker's head (box mask) and centroid and the
    red centroid; ``alignment`` is the frame's own (the first frame's, corrected for camera drift)."""

    structure_iou: float
    marker: tuple[int, int, np.ndarray] | None
    marker_centroid: tuple[float, float] | None
    red_centroid: tuple[float, float] | None
    alignment: Alignment


def wall_erosion_px(ref: SolutionReference, wall_erosion: int | None) -> int:
    """Return the wall erosion kernel: ``wall_erosion`` or a quarter of the cell size (of the wall
    thickness when walls are thinner than cells, so thin walls keep a core)."""
    if wall_erosion:
        return int(wall_erosion)
    return max(1, int(round(min(ref.geometry.cell_px, ref.geometry.wall_px) / 4)))


def min_marker_px(ref: SolutionReference, alignment: Alignment | None = None) -> float:
    """Return the fewest pixels a marker covers: 5% of a cell, at least 4 (in frame pixels when ``alignment``
    is given, else in solution pixels)."""
    scale = abs(alignment.sx * alignment.sy) if alignment is not None else 1.0
    return max(4.0, 0.05 * ref.geometry.cell_px ** 2 * scale)


@dataclass
class FrameReference:
    """The solution's wall masks mapped into the frames' pixels, so frames are checked unwarped."""

    walls: np.ndarray
    care: np.ndarray
    wall_count: int
    alignment: Alignment

    @classmethod
    def build(cls, ref: SolutionReference, alignment: Alignment, frame_shape: tuple[int, ...]) -> "FrameReference":
        """Return the solution's (care-masked) walls and care mask in frame pixels (0 outside the maze)."""
        h, w = frame_shape[:2]

        def forward(mask: np.ndarray) -> np.ndarray:
            return cv2.warpAffine(mask.astype(np.uint8) * 255, alignment.matrix, (w, h), flags=cv2.INTER_NEAREST,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=0)

        care = forward(ref.wall_care)
        walls = cv2.bitwise_and(forward(ref.walls), care)
        return cls(walls, care, cv2.countNonZero(walls), alignment)


@dataclass
class FrameContext:
    """What every frame of one video is checked against: the solution, its first-frame wall masks, the drift
    tracker and the colour classes."""

    ref: SolutionReference
    first: FrameReference
    drift: DriftTracker
    colours: ColourThresholds
    min_marker: float

    def reference_for(self, hsv: np.ndarray) -> FrameReference:
        """Return the wall masks in the pixels of a frame (its HSV): the first frame's unless the camera moved."""
        alignment = self.drift.correct(cv2.extractChannel(hsv, 2))
        if alignment is self.first.alignment:
            return self.first
        return FrameReference.build(self.ref, alignment, hsv.shape)


def marker_head(frame: np.ndarray, green: np.ndarray, min_area: float) -> tuple[int, int, np.ndarray] | None:
    """Return the marker itself, ``(x, y, box mask)`` in frame pixels: the largest blob of green pixels at least
    ``HEAD_STRENGTH`` as green as the frame's greenest (a fading trail is paler, or of another hue), or None
    when it covers fewer than ``min_area`` pixels.

    Greenness is ``G - max(B, R)``; its peak is taken after a 3x3 box blur so that one noisy pixel cannot set it.
    """
    x, y, w, h = cv2.boundingRect(green)
    if w == 0 or h == 0:
        return None
    box = frame[y:y + h, x:x + w].astype(np.int16)
    greenness = np.where(green[y:y + h, x:x + w] > 0, box[..., 1] - np.maximum(box[..., 0], box[..., 2]), 0)
    peak = cv2.blur(greenness.astype(np.float32), (3, 3)).max()
    (hx, hy), labels, stats, _ = metrics.components(greenness >= max(1.0, HEAD_STRENGTH * peak))
    if len(stats) <= 1:
        return None
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[largest, cv2.CC_STAT_AREA] < min_area:
        return None
    return x + hx, y + hy, labels == largest


def to_solution_box(marker: tuple[int, int, np.ndarray], alignment: Alignment,
                    shape: tuple[int, int]) -> tuple[int, int, np.ndarray] | None:
    """Return a box mask ``(x, y, mask)`` in frame pixels resampled into solution pixels (clipped to ``shape``),
    or None when it falls outside."""
    x, y, mask = marker
    x0, y0 = alignment.to_solution(x, y)
    w, h = max(1, int(round(mask.shape[1] / alignment.sx))), max(1, int(round(mask.shape[0] / alignment.sy)))
    resized = cv2.resize(mask.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST).astype(bool)
    ix, iy = int(round(float(x0))), int(round(float(y0)))
    cx0, cy0 = max(0, ix), max(0, iy)
    cx1, cy1 = min(shape[1], ix + w), min(shape[0], iy + h)
    if cx1 <= cx0 or cy1 <= cy0:
        return None
    return cx0, cy0, resized[cy0 - iy:cy1 - iy, cx0 - ix:cx1 - ix]


def _box_centroid(box: tuple[int, int, np.ndarray]) -> tuple[float, float] | None:
    x, y, mask = box
    ys, xs = np.nonzero(mask)
    return (float(xs.mean() + x), float(ys.mean() + y)) if xs.size else None


def check_frame(frame: np.ndarray, context: FrameContext, want_red: bool) -> FrameCheck:
    """Return the layout and marker findings of one frame (layout in its own pixels, positions in the solution's)."""
    hsv = to_hsv(frame)
    fref = context.reference_for(hsv)
    walls = cv2.bitwise_and(context.colours.wall(hsv), fref.care)
    inter = cv2.countNonZero(cv2.bitwise_and(walls, fref.walls))
    union = cv2.countNonZero(walls) + fref.wall_count - inter
    head = marker_head(frame, context.colours.green(hsv), context.min_marker)
    marker = None if head is None else to_solution_box(head, fref.alignment, context.ref.shape)
    centre = None if marker is None else _box_centroid(marker)
    red = metrics.centroid(context.colours.red(hsv) > 0) if want_red else None
    if red is not None:
        red = tuple(float(v) for v in fref.alignment.to_solution(*red))
    return FrameCheck(inter / union if union else 1.0, marker if centre is not None else None, centre, red,
                      fref.alignment)


def check_frames(frames: Iterator[np.ndarray], first: np.ndarray, context: FrameContext,
                 workers: int) -> list[FrameCheck]:
    """Return the check of ``first`` and every further frame, in order.

    Frames are checked in a thread pool as they arrive (OpenCV releases the GIL), so decoding and
    checking overlap. The goal's red centroid is looked for until it is first seen.
    """
    checks = [check_frame(first, context, want_red=True)]
    want_red = checks[0].red_centroid is None
    if workers <= 1:
        for frame in frames:
            checks.append(check_frame(frame, context, want_red))
            want_red = want_red and checks[-1].red_centroid is None
        return checks
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(check_frame, frame, context, want_red) for frame in frames]
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


def extract_path(checks: list[FrameCheck], method: str, shape: tuple[int, int],
                 min_marker: float) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """Return the accumulated path mask (of ``shape``) and ordered marker positions, in solution pixels, by
    ``method`` (one of ``EXTRACTION_METHODS``)."""
    return EXTRACTORS[method](checks, shape, min_marker)


def _first_seen(points: list[tuple[float, float] | None]) -> tuple[float, float] | None:
    """Return the first of per-frame positions that was found; None when none was."""
    return next((p for p in points if p is not None), None)


def drift_info(checks: list[FrameCheck], geometry: GridGeometry) -> dict:
    """Return the camera drift measured: the largest move of a maze corner from the first frame (generated
    pixels) and the frame where it happened."""
    moves = [corner_shift(c.alignment, checks[0].alignment, geometry) for c in checks]
    worst = int(np.argmax(moves))
    return {"max_drift_px": round(moves[worst], 2), "max_drift_frame": worst}


def score_video(frames: Iterable[np.ndarray], ref: SolutionReference, params: VideoParams = VideoParams(), *,
                filename: str = "<generated>") -> tuple[VideoResult, Panels]:
    """Return the result and visualisation panels of BGR ``frames`` (a list, or an iterator that decodes
    them) against an analysed solution; the first frame sets the alignment (corrected per frame for drift)
    and, when calibrated, the wall level."""
    start = time.perf_counter()
    frames = iter(frames)
    first = next(frames, None)
    if first is None:
        raise MediaReadError("no frames", source=filename)
    alignment = align(first, ref.dark, ref.geometry)
    first_ref = FrameReference.build(ref, alignment, first.shape)
    colours = calibrate_generation(cv2.extractChannel(to_hsv(first), 2), first_ref.walls, first_ref.care,
                                   params.colours)
    context = FrameContext(ref, first_ref, DriftTracker.build(ref.dark, alignment, ref.geometry, first.shape),
                           colours, min_marker_px(ref, alignment))
    checks = check_frames(frames, first, context, params.frame_workers)
    marker_path, points = extract_path(checks, params.extraction_method, ref.shape, min_marker_px(ref))
    path = _join(marker_path, points)

    first_marker = _first_seen([c.marker_centroid for c in checks])
    first_red = _first_seen([c.red_centroid for c in checks])
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
    fields["alignment"].update(drift_info(checks, ref.geometry))
    fields["colour_levels"] = levels_info(colours, ref.colours)
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

    Example:
        >>> import os, tempfile
        >>> from maze_envs.core import generate
        >>> from maze_envs.evaluators.pixel.synthetic import make_task, solution_route, write_marker_video
        >>> task = make_task(generate(4, 4, "dfs", seed=0))
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     clip = os.path.join(folder, "clip.mp4")
        ...     _ = write_marker_video(clip, task, solution_route(task.maze), frames=24)
        ...     result = evaluate_video(clip, task.solution, geometry=task.geometry, num_frames=24)
        >>> float(result.target_achievement), result.wall_crossing_detected, result.overall_score_gated
        (1.0, False, 1)
    """
    params = VideoParams(num_frames, min_crossing_ratio, position_tolerance, wall_erosion, dilation_size,
                         extraction_method, colours, frame_workers)
    ref = as_reference(solution, geometry, colours)
    result, panels = score_video(iter_frames(generated, num_frames), ref, params, filename=Path(generated).name)
    if visualization is not None:
        save_visualization(panels, result, visualization, video=True)
    return result
