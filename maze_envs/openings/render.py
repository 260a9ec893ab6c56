"""PIL rendering of labelled-openings puzzles: black walls on white, border gaps, 16 pt labels outside each gap.

Layout from the image edge inwards: ``label_padding`` (where labels sit), ``margin``, the outer
wall. Cells are ``cell_size`` pixels, walls ``wall_width`` pixels (core ``PixelGeometry``, whose
``margin`` here is ``margin + label_padding``). Walls are block-exact, without anti-aliasing.
Each label's inner edge lies ``margin`` pixels outside its gap, centred on it.

The font is DejaVu Sans shipped in ``maze_envs/openings/fonts``; failing that the system's DejaVu
Sans or Arial; failing those Pillow's built-in font, with a warning.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from maze_envs.core.errors import MazeConfigError, MazeEnvsError, brief_repr
from maze_envs.core.maze import Maze
from maze_envs.core.render import ImageStyle, PixelGeometry, upscale

from .fonts import DEJAVU_SANS
from .puzzle import LABELS, OpeningsPuzzle

Box = tuple[int, int, int, int]

FONT_CANDIDATES: tuple[str, ...] = (
    str(DEJAVU_SANS),
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "DejaVuSans.ttf",
    "Arial.ttf",
    "arial.ttf",
)


class LabelLayoutError(MazeEnvsError):
    """Labels fall outside the image or overlap a wall or each other; the message lists each problem."""


@dataclass(frozen=True)
class OpeningsStyle:
    """Pixel sizes of an openings image. ``font`` names a TrueType file to use instead of the default search."""

    cell_size: int = 32
    wall_width: int = 5
    margin: int = 8
    label_padding: int = 20
    font_size: int = 16
    font: str | None = None

    def __post_init__(self) -> None:
        for name, low in (("cell_size", 1), ("wall_width", 1), ("font_size", 1), ("margin", 0), ("label_padding", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise MazeConfigError(f"{name} must be an integer >= {low}, got {brief_repr(value)}")

    def geometry(self, rows: int, cols: int) -> PixelGeometry:
        """Return the pixel geometry of a ``rows x cols`` puzzle in this style."""
        return ImageStyle(self.cell_size, self.wall_width, self.margin + self.label_padding).geometry(rows, cols)


@dataclass(frozen=True)
class LabelPlacement:
    """Where one opening and its label are drawn: ``gap`` and ``box`` are ``(x0, y0, x1, y1)``, ends exclusive."""

    label: str
    gap: Box
    box: Box

    def to_dict(self) -> dict:
        """Return the JSON-ready fields."""
        return {"label": self.label, "gap": list(self.gap), "label_box": list(self.box)}


@dataclass
class OpeningsRendering:
    """A rendered puzzle: the greyscale image, its cell geometry, label placements and the font used."""

    image: Image.Image
    geometry: PixelGeometry
    labels: tuple[LabelPlacement, ...]
    font: str

    def rgb(self) -> np.ndarray:
        """Return the image as an ``(H, W, 3)`` uint8 array."""
        return np.repeat(np.asarray(self.image)[..., None], 3, axis=2)


@lru_cache(maxsize=16)
def load_font(
    size: int = 16, path: str | None = None, candidates: tuple[str, ...] = FONT_CANDIDATES
) -> tuple[ImageFont.FreeTypeFont | ImageFont.ImageFont, str]:
    """Return ``(font, source)``: ``path`` if given, else the first loadable candidate, else Pillow's default font.

    An explicit ``path`` that cannot be loaded raises ``MazeConfigError``; falling back to
    Pillow's default font warns, since label sizes then differ from the spec's DejaVu Sans.
    """
    if path is not None:
        try:
            return ImageFont.truetype(path, size), path
        except OSError as exc:
            raise MazeConfigError(f"font {brief_repr(path)} cannot be loaded: {exc}") from exc
    for candidate in candidates:
        try:
            return ImageFont.truetype(candidate, size), candidate
        except OSError:
            continue
    warnings.warn(f"no TrueType font found among {', '.join(candidates)}; labels use Pillow's default font",
                  RuntimeWarning, stacklevel=2)
    return ImageFont.load_default(size), "pillow-default"


def _gap_box(geometry: PixelGeometry, side: str, index: int) -> Box:
    g = geometry
    if side in ("top", "bottom"):
        x0 = g.origin[0] + index * g.pitch
        y0 = g.margin if side == "top" else g.height - g.margin - g.wall_px
        return (x0, y0, x0 + g.cell_px, y0 + g.wall_px)
    y0 = g.origin[1] + index * g.pitch
    x0 = g.margin if side == "left" else g.width - g.margin - g.wall_px
    return (x0, y0, x0 + g.wall_px, y0 + g.cell_px)


def _label_box(gap: Box, side: str, size: tuple[int, int], clearance: int) -> Box:
    w, h = size
    cx, cy = (gap[0] + gap[2]) // 2, (gap[1] + gap[3]) // 2
    if side == "top":
        x0, y0 = cx - w // 2, gap[1] - clearance - h
    elif side == "bottom":
        x0, y0 = cx - w // 2, gap[3] + clearance
    elif side == "left":
        x0, y0 = gap[0] - clearance - w, cy - h // 2
    else:
        x0, y0 = gap[2] + clearance, cy - h // 2
    return (x0, y0, x0 + w, y0 + h)


def wall_image(maze: Maze, style: OpeningsStyle) -> np.ndarray:
    """Return the ``(H, W)`` uint8 image of the walls alone (0 black walls, 255 white), gaps at ``maze.openings``."""
    blocks = np.where(maze.to_blocks() == 1, np.uint8(0), np.uint8(255))[..., None]
    return upscale(blocks, style.cell_size, style.wall_width, style.margin + style.label_padding)[..., 0]


def label_problems(walls: np.ndarray, placements: tuple[LabelPlacement, ...]) -> list[str]:
    """Return one message per label outside the image, over a wall pixel, or overlapping another label."""
    height, width = walls.shape
    problems = []
    for p in placements:
        x0, y0, x1, y1 = p.box
        if x0 < 0 or y0 < 0 or x1 > width or y1 > height:
            problems.append(f"label {p.label} box {p.box} is outside the {width}x{height} image")
        elif (walls[y0:y1, x0:x1] == 0).any():
            problems.append(f"label {p.label} box {p.box} overlaps a wall")
    for i, a in enumerate(placements):
        for b in placements[i + 1:]:
            if a.box[0] < b.box[2] and b.box[0] < a.box[2] and a.box[1] < b.box[3] and b.box[1] < a.box[3]:
                problems.append(f"labels {a.label} and {b.label} overlap")
    return problems


def render_openings(puzzle: OpeningsPuzzle, style: OpeningsStyle = OpeningsStyle(), *,
                    check: bool = True) -> OpeningsRendering:
    """Return the rendered puzzle; with ``check``, raises ``LabelLayoutError`` if a label is out of bounds or
    overlaps."""
    maze = puzzle.maze
    geometry = style.geometry(maze.rows, maze.cols)
    walls = wall_image(maze, style)
    font, source = load_font(style.font_size, style.font)
    placements, origins = [], []
    for lo in puzzle.labels:
        left, top, right, bottom = (int(v) for v in font.getbbox(lo.label))
        gap = _gap_box(geometry, lo.opening.side, lo.opening.index)
        box = _label_box(gap, lo.opening.side, (right - left, bottom - top), style.margin)
        placements.append(LabelPlacement(lo.label, gap, box))
        origins.append((box[0] - left, box[1] - top))
    placements_t = tuple(placements)
    if check:
        problems = label_problems(walls, placements_t)
        if problems:
            raise LabelLayoutError("; ".join(problems))
    image = Image.fromarray(np.asarray(walls, np.uint8))  # 2-D uint8: mode "L"
    draw = ImageDraw.Draw(image)
    for p, origin in zip(placements_t, origins, strict=False):
        draw.text(origin, p.label, font=font, fill=0)
    return OpeningsRendering(image, geometry, placements_t, source)


def check_style(style: OpeningsStyle, num_openings: int) -> None:
    """Raise ``MazeConfigError`` when labels of ``style`` cannot fit: beside neighbouring gaps or in the padding."""
    font, _ = load_font(style.font_size, style.font)
    boxes = [font.getbbox(letter) for letter in LABELS[:num_openings]]
    widest = max(int(b[2] - b[0]) for b in boxes)
    tallest = max(int(b[3] - b[1]) for b in boxes)
    pitch = style.cell_size + style.wall_width
    if pitch <= max(widest, tallest):
        raise MazeConfigError(
            f"cell size {style.cell_size} + wall width {style.wall_width} = {pitch} px leaves no room "
            f"between labels up to {max(widest, tallest)} px wide; use a larger cell size"
        )
    if style.label_padding < max(widest, tallest):
        raise MazeConfigError(f"label padding {style.label_padding} px is smaller than the labels "
                              f"({max(widest, tallest)} px); use at least that")

