"""Maze grid geometry in pixels: auto-detection from a solution image, and alignment of generated images.

Detection needs no metadata. Posts (block ``(even, even)``) are always walls and cells (``(odd, odd)``)
always free, so on a dark/light mask of the solution image:

1. the outer wall's bounding box gives the maze's extent;
2. runs of wall pixels leaving each border give the wall thickness (their shortest common length:
   every run through a cell row is exactly one wall thick);
3. runs of free pixels between walls give the cell size (their shortest common length: every run
   inside a wall strip is exactly one cell wide);
4. rows x cols follow, the pitch is refitted to the extent, and the grid is accepted only if
   sampled posts are dark and sampled cells light (else neighbouring counts are tried).

This works for thin line walls and thick block walls (``wall_px == cell_px``), any resolution, from
3x3 to well beyond 21x21. Alignment maps a generated image or frame of another size or aspect
(stretched, letterboxed, padded) onto the solution's pixels by trying candidate similarity transforms
and keeping the one whose dark (wall) mask agrees best with the solution's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import cv2
import numpy as np

from maze_envs.core.render import PixelGeometry

from .colours import dark_mask
from .errors import GridDetectionError

MIN_VERIFY_SCORE = 0.9


@dataclass(frozen=True)
class GridGeometry:
    """Where a maze's blocks lie in an image, in float pixels.

    The outer wall's top-left corner is ``(x0, y0)``; wall strip ``k`` spans
    ``[x0 + k*pitch_x, x0 + k*pitch_x + wall_x)`` and cell column ``c`` the rest of pitch ``c``.
    """

    rows: int
    cols: int
    x0: float
    y0: float
    pitch_x: float
    pitch_y: float
    wall_x: float
    wall_y: float

    @classmethod
    def from_pixel_geometry(cls, geometry: PixelGeometry, scale_x: float = 1.0, scale_y: float = 1.0) -> "GridGeometry":
        """Return the geometry of a core render (optionally resized by ``scale_x``, ``scale_y``)."""
        return cls(geometry.rows, geometry.cols, geometry.margin * scale_x, geometry.margin * scale_y,
                   geometry.pitch * scale_x, geometry.pitch * scale_y,
                   geometry.wall_px * scale_x, geometry.wall_px * scale_y)

    @property
    def cell_px(self) -> float:
        """Return the smaller side of a cell's interior in pixels."""
        return min(self.pitch_x - self.wall_x, self.pitch_y - self.wall_y)

    @property
    def wall_px(self) -> float:
        """Return the wall thickness in pixels (the smaller of the two axes)."""
        return min(self.wall_x, self.wall_y)

    def block_edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the ``2*rows+2`` y and ``2*cols+2`` x pixel edges of the block grid."""
        ys = (self.y0 + np.repeat(np.arange(self.rows + 1) * self.pitch_y, 2)
              + np.tile([0.0, self.wall_y], self.rows + 1))
        xs = (self.x0 + np.repeat(np.arange(self.cols + 1) * self.pitch_x, 2)
              + np.tile([0.0, self.wall_x], self.cols + 1))
        return ys, xs

    def cell_boxes(self) -> np.ndarray:
        """Return int ``(rows, cols, 4)`` boxes ``(x0, y0, x1, y1)`` (exclusive ends) of the cell interiors."""
        ys, xs = self.block_edges()
        y0, y1 = np.round(ys[1:-1:2]).astype(int), np.round(ys[2::2]).astype(int)
        x0, x1 = np.round(xs[1:-1:2]).astype(int), np.round(xs[2::2]).astype(int)
        boxes = np.empty((self.rows, self.cols, 4), dtype=int)
        boxes[..., 0], boxes[..., 2] = x0[None, :], x1[None, :]
        boxes[..., 1], boxes[..., 3] = y0[:, None], y1[:, None]
        return boxes

    def cell_of_point(self, x: float, y: float) -> tuple[int, int] | None:
        """Return the cell whose interior holds pixel ``(x, y)``, or None on a wall strip or outside."""
        fx, fy = (x - self.x0) / self.pitch_x, (y - self.y0) / self.pitch_y
        col, row = int(np.floor(fx)), int(np.floor(fy))
        inside_x = (fx - col) * self.pitch_x >= self.wall_x
        inside_y = (fy - row) * self.pitch_y >= self.wall_y
        if 0 <= row < self.rows and 0 <= col < self.cols and inside_x and inside_y:
            return (row, col)
        return None

    def to_dict(self) -> dict:
        """Return the JSON-ready fields."""
        return asdict(self)


def block_means(integral: np.ndarray, geometry: GridGeometry, shrink: float = 0.25) -> np.ndarray:
    """Return the ``(2*rows+1, 2*cols+1)`` mean of a 0/1 mask over each block's centre (edges shrunk by ``shrink``).

    ``integral`` is the mask's ``cv2.integral`` (one pixel larger on each axis).
    """
    ys, xs = geometry.block_edges()
    shape = (integral.shape[0] - 1, integral.shape[1] - 1)

    def inner(edges: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = edges[:-1], edges[1:]
        pad = (hi - lo) * shrink
        a = np.clip(np.floor(lo + pad + 0.5), 0, limit).astype(int)
        b = np.clip(np.floor(hi - pad + 0.5), 0, limit).astype(int)
        return a, np.maximum(b, np.minimum(a + 1, limit))

    y0, y1 = inner(ys, shape[0])
    x0, x1 = inner(xs, shape[1])
    total = (integral[y1][:, x1] - integral[y0][:, x1] - integral[y1][:, x0] + integral[y0][:, x0]).astype(float)
    area = np.maximum((y1 - y0)[:, None] * (x1 - x0)[None, :], 1)
    return total / area


def _runs(mask: np.ndarray, touching_edges: bool = False) -> np.ndarray:
    """Return lengths of True runs along axis 1; runs touching either end are dropped unless asked for."""
    padded = np.pad(mask.astype(np.int8), ((0, 0), (1, 1)))
    step = np.diff(padded, axis=1)
    _, starts = np.nonzero(step == 1)
    _, ends = np.nonzero(step == -1)
    lengths = ends - starts
    if touching_edges:
        return lengths
    return lengths[(starts > 0) & (ends < mask.shape[1])]


def _smallest_cluster(values: np.ndarray, share: float = 0.15, weighted: bool = False) -> float:
    """Return the median of the shortest cluster of run lengths (within 25% + 1 px) holding ``share`` of them.

    With ``weighted`` each run counts by its length, so that many 1-2 px runs of anti-aliasing
    noise cannot outvote the real ones.
    """
    values = np.sort(values[values > 0])
    if values.size == 0:
        return 0.0
    weights = values if weighted else np.ones_like(values)
    cumulative = np.concatenate([[0], np.cumsum(weights)])
    for v in np.unique(values):
        hi = np.searchsorted(values, 1.25 * v + 1, side="right")
        lo = np.searchsorted(values, v, side="left")
        if cumulative[hi] - cumulative[lo] >= share * cumulative[-1]:
            return float(np.median(values[lo:hi]))
    return float(np.median(values))


def _border_runs(dark: np.ndarray) -> np.ndarray:
    """Return the lengths of wall runs starting at the left and right edges of each row of ``dark``."""
    left = np.argmin(dark, axis=1).astype(np.int64)
    left[dark.all(axis=1)] = 0
    right = np.argmin(dark[:, ::-1], axis=1).astype(np.int64)
    right[dark.all(axis=1)] = 0
    return np.concatenate([left, right])


def _extent(profile: np.ndarray) -> tuple[int, int]:
    """Return the first and last index whose wall count is at least half the maximum."""
    idx = np.flatnonzero(profile >= 0.5 * profile.max())
    return int(idx[0]), int(idx[-1])


def _axis_measure(dark_box: np.ndarray, max_lines: int = 96) -> tuple[float, float, list[float]]:
    """Return ``(extent_px, wall_px, cell_px estimates)`` along axis 1 of the maze's bounding box.

    The cell size is estimated from free runs counted once and weighted by length, each measured on
    at most ``max_lines`` evenly spaced lines.
    """
    extent = float(dark_box.shape[1])
    wall = _smallest_cluster(_border_runs(dark_box))
    step = max(1, dark_box.shape[0] // max_lines)
    free_runs = _runs(~dark_box[::step])
    cells = [_smallest_cluster(free_runs), _smallest_cluster(free_runs, weighted=True)]
    return extent, wall, [c for c in cells if c >= 1]


def _counts(extent: float, wall: float, cells: list[float]) -> list[int]:
    """Return the cell counts consistent with ``wall`` and each cell size give or take 1.5 px, those
    nearest an estimate's own count first."""
    scores: dict[int, tuple[float, int]] = {}
    for rank, cell in enumerate(cells):
        guess = (extent - wall) / (cell + wall)
        low = max(1, int(np.floor((extent - wall) / (cell + wall + 1.5))))
        high = max(low, int(np.ceil((extent - wall) / max(cell + wall - 1.5, 1.0))))
        for n in range(low, high + 1):
            scores[n] = min(scores.get(n, (np.inf, rank)), (abs(n - guess), rank))
    return sorted(scores, key=scores.get)


def _verify(integral: np.ndarray, geometry: GridGeometry) -> float:
    """Return how well ``geometry`` fits: the smaller of the shares of dark posts and of light cells."""
    means = block_means(integral, geometry)
    return float(min((means[::2, ::2] >= 0.6).mean(), (means[1::2, 1::2] <= 0.1).mean()))


def detect_grid(bgr: np.ndarray, *, source: str | None = None, max_tries: int = 12) -> GridGeometry:
    """Return the grid geometry of a maze image (a solution or puzzle render); raise ``GridDetectionError``."""
    dark = dark_mask(bgr)
    if dark.sum() < 16 or (~dark).sum() < 16:
        raise GridDetectionError("image has no wall/free contrast", source=source)
    top, bottom = _extent(np.count_nonzero(dark, axis=1))
    left, right = _extent(np.count_nonzero(dark, axis=0))
    box = dark[top:bottom + 1, left:right + 1]
    if min(box.shape) < 5:
        raise GridDetectionError("no maze outline found", source=source)
    integral = cv2.integral(dark.astype(np.uint8))
    extent_x, wall_x, cells_x = _axis_measure(box)
    extent_y, wall_y, cells_y = _axis_measure(box.T)
    if min(wall_x, wall_y) < 1 or not cells_x + cells_y:
        raise GridDetectionError("no wall or cell runs found", source=source)
    # Each axis also tries the other's cell size: cells are usually square, and a maze with long
    # corridors along one axis shows few single-cell runs on it.
    cols_options = _counts(extent_x, wall_x, cells_x + cells_y)
    rows_options = _counts(extent_y, wall_y, cells_y + cells_x)
    best, best_score, best_key = None, -1.0, None
    for rows in rows_options[:max_tries]:
        for cols in cols_options[:max_tries]:
            geometry = GridGeometry(rows, cols, float(left), float(top), (extent_x - wall_x) / cols,
                                    (extent_y - wall_y) / rows, wall_x, wall_y)
            if geometry.cell_px < 1:
                continue
            # Some mazes fit more than one grid (a comb of corridors fits any count along them);
            # equal fits go to squarer cells, then to more cells (a coarser grid can pass by luck
            # where its cells' centres miss the walls inside them).
            score = _verify(integral, geometry)
            key = (round(score, 3), -round(abs(np.log(geometry.pitch_x / geometry.pitch_y)), 2), rows * cols)
            if best_key is None or key > best_key:
                best, best_score, best_key = geometry, score, key
    if best is None or best_score < MIN_VERIFY_SCORE:
        raise GridDetectionError(f"no consistent maze grid (best fit {best_score:.2f} < {MIN_VERIFY_SCORE})",
                                 source=source)
    return best


@dataclass(frozen=True)
class Alignment:
    """An axis-aligned map from solution pixels to generated pixels: ``x_gen = sx * x_sol + tx``."""

    sx: float
    sy: float
    tx: float
    ty: float
    method: str
    agreement: float

    @property
    def matrix(self) -> np.ndarray:
        """Return the 2x3 affine matrix (solution -> generated) for ``cv2.warpAffine`` with WARP_INVERSE_MAP."""
        return np.array([[self.sx, 0.0, self.tx], [0.0, self.sy, self.ty]])

    def is_identity(self, shape: tuple[int, ...], solution_shape: tuple[int, ...]) -> bool:
        """Return True when the map is the identity between images of equal size."""
        return (shape[:2] == solution_shape[:2] and abs(self.sx - 1) < 1e-9 and abs(self.sy - 1) < 1e-9
                and abs(self.tx) < 1e-9 and abs(self.ty) < 1e-9)

    def warp(self, image: np.ndarray, solution_shape: tuple[int, ...], *, nearest: bool = False,
             border: int | tuple[int, int, int] = (255, 255, 255)) -> np.ndarray:
        """Return ``image`` (generated pixels) resampled onto the solution's pixel grid."""
        if self.is_identity(image.shape, solution_shape):
            return image
        h, w = solution_shape[:2]
        if abs(self.tx) < 1e-9 and abs(self.ty) < 1e-9 and abs(self.sx * w - image.shape[1]) < 1e-6 \
                and abs(self.sy * h - image.shape[0]) < 1e-6:
            return cv2.resize(image, (w, h), interpolation=cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR)
        flags = (cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR) | cv2.WARP_INVERSE_MAP
        return cv2.warpAffine(image, self.matrix, (w, h), flags=flags, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=border)

    def to_solution(self, x: np.ndarray | float, y: np.ndarray | float) -> tuple:
        """Return generated pixel coordinates mapped into solution pixels."""
        return (np.asarray(x) - self.tx) / self.sx, (np.asarray(y) - self.ty) / self.sy


def _bbox(mask: np.ndarray, fraction: float) -> tuple[float, float, float, float] | None:
    """Return ``(x0, y0, x1, y1)`` (exclusive) of rows/cols whose mask fraction is >= ``fraction`` x their max."""
    cols, rows = np.count_nonzero(mask, axis=0), np.count_nonzero(mask, axis=1)
    if cols.max() <= 0:
        return None
    xs = np.flatnonzero(cols >= fraction * cols.max())
    ys = np.flatnonzero(rows >= fraction * rows.max())
    return float(xs[0]), float(ys[0]), float(xs[-1] + 1), float(ys[-1] + 1)


def _box_map(src: tuple, dst: tuple, method: str) -> tuple | None:
    """Return ``(sx, sy, tx, ty, method)`` mapping box ``src`` (solution) onto box ``dst`` (generated)."""
    if src is None or dst is None or src[2] <= src[0] or src[3] <= src[1]:
        return None
    sx = (dst[2] - dst[0]) / (src[2] - src[0])
    sy = (dst[3] - dst[1]) / (src[3] - src[1])
    if sx <= 0 or sy <= 0:
        return None
    return sx, sy, dst[0] - sx * src[0], dst[1] - sy * src[1], method


def align(generated: np.ndarray, sol_dark: np.ndarray, geometry: GridGeometry) -> Alignment:
    """Return the map from solution pixels to ``generated`` pixels that best overlays their walls.

    ``sol_dark`` is the solution's :func:`dark_mask`. Candidates: stretch to fill (the identity for
    equal sizes), fit with centred letterbox/pillarbox bars, and box maps of the maze's light interior
    and of its dark outline; scored by the IoU of the dark masks.
    """
    hs, ws = sol_dark.shape[:2]
    hg, wg = generated.shape[:2]
    gen_dark = dark_mask(generated)
    fit = min(wg / ws, hg / hs)
    candidates = [(wg / ws, hg / hs, 0.0, 0.0, "stretch"), (fit, fit, (wg - fit * ws) / 2, (hg - fit * hs) / 2, "fit")]
    outer = (geometry.x0, geometry.y0, geometry.x0 + geometry.cols * geometry.pitch_x + geometry.wall_x,
             geometry.y0 + geometry.rows * geometry.pitch_y + geometry.wall_y)
    inner = (outer[0] + geometry.wall_x, outer[1] + geometry.wall_y,
             outer[2] - geometry.wall_x, outer[3] - geometry.wall_y)
    candidates.append(_box_map(inner, _bbox(~gen_dark, 0.25), "interior"))
    candidates.append(_box_map(outer, _bbox(gen_dark, 0.5), "outline"))
    best = None
    for cand in candidates:
        if cand is None:
            continue
        trial = Alignment(*cand, agreement=0.0)
        warped = trial.warp(gen_dark.astype(np.uint8), sol_dark.shape, nearest=True, border=0).astype(bool)
        union = np.count_nonzero(warped | sol_dark)
        iou = np.count_nonzero(warped & sol_dark) / union if union else 0.0
        if best is None or iou > best.agreement + 1e-9:
            best = Alignment(*cand, agreement=float(iou))
    return best
