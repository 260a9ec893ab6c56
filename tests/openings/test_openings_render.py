"""Openings rendering: walls, gaps, labels placed outside their gaps, font search and layout checks."""

import numpy as np
import pytest

from maze_envs.core.errors import MazeConfigError
from maze_envs.openings.puzzle import generate_openings
from maze_envs.openings.render import (
    LabelLayoutError,
    OpeningsStyle,
    check_style,
    label_problems,
    load_font,
    render_openings,
    wall_image,
)


@pytest.mark.parametrize("style", [OpeningsStyle(), OpeningsStyle(wall_width=8), OpeningsStyle(24, 2, 4, 20)])
@pytest.mark.parametrize("seed", [0, 5])
def test_rendered_image_layout(style, seed):
    puzzle = generate_openings(10, 13, 6, seed)
    out = render_openings(puzzle, style)
    g = out.geometry
    img = np.asarray(out.image)
    assert out.image.mode == "L" and img.shape == (g.height, g.width)
    assert g.width == 2 * (style.margin + style.label_padding) + 13 * style.cell_size + 14 * style.wall_width
    assert out.font.endswith("DejaVuSans.ttf")
    walls = wall_image(puzzle.maze, style)
    assert set(np.unique(walls)) == {0, 255}  # walls are pure black on white, no anti-aliasing
    assert label_problems(walls, out.labels) == []
    m = style.margin + style.label_padding
    ring = walls[m:g.height - m, m:g.width - m]
    assert (ring[:style.wall_width, :style.wall_width] == 0).all()  # a corner post
    for placement, lo in zip(out.labels, puzzle.labels, strict=False):
        x0, y0, x1, y1 = placement.gap
        assert (img[y0:y1, x0:x1] == 255).all()  # the gap is open
        bx0, by0, bx1, by1 = placement.box
        assert (img[by0:by1, bx0:bx1] < 128).any()  # the label is drawn there
        assert 0 <= bx0 and 0 <= by0 and bx1 <= g.width and by1 <= g.height
        side = lo.opening.side  # the label lies just outside its own gap
        if side == "top":
            assert by1 <= y0 and x0 <= (bx0 + bx1) / 2 <= x1
        elif side == "bottom":
            assert by0 >= y1 and x0 <= (bx0 + bx1) / 2 <= x1
        elif side == "left":
            assert bx1 <= x0 and y0 <= (by0 + by1) / 2 <= y1
        else:
            assert bx0 >= x1 and y0 <= (by0 + by1) / 2 <= y1
    text_only = (img < 255) & (walls == 255)  # every mark that is not a wall lies inside a label box
    inside = np.zeros_like(text_only)
    for p in out.labels:
        inside[p.box[1]:p.box[3], p.box[0]:p.box[2]] = True
    assert not (text_only & ~inside).any()


def test_each_wall_is_wall_width_thick():
    puzzle = generate_openings(8, 8, 3, 2)
    for width in (2, 5, 8):
        style = OpeningsStyle(wall_width=width)
        img = np.asarray(render_openings(puzzle, style).image)
        g = style.geometry(8, 8)
        column = img[:, g.margin + g.wall_px + g.cell_px // 2]  # down the middle of column 0
        runs = np.diff(np.flatnonzero(np.diff((column == 0).astype(int))))[::2]
        assert set(runs.tolist()) == {width}


def test_font_fallback_and_explicit_font():
    font, source = load_font(16)
    assert source.endswith("DejaVuSans.ttf") and font.size == 16
    with pytest.warns(RuntimeWarning, match="default font"):
        _, source = load_font(16, None, ("/nonexistent/NoSuchFont.ttf",))
    assert source == "pillow-default"
    with pytest.raises(MazeConfigError, match="cannot be loaded"):
        load_font(16, "/nonexistent/NoSuchFont.ttf")


def test_layout_checks_reject_crowded_or_cropped_labels():
    with pytest.raises(MazeConfigError, match="cell size"):
        check_style(OpeningsStyle(cell_size=6, wall_width=2), 6)
    with pytest.raises(MazeConfigError, match="label padding"):
        check_style(OpeningsStyle(label_padding=4), 6)
    with pytest.raises(LabelLayoutError, match="outside"):
        render_openings(generate_openings(8, 8, 4, 0), OpeningsStyle(label_padding=0))
