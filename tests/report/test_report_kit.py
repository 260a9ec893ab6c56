"""The report kit: a maze drawn with its walks (a walk off the grid grows the picture), a zero bar that shows,
the size vocabulary, and the suite's 3D walks drawn along the line the agent flew."""

from __future__ import annotations

import re

import numpy as np
import pytest

from maze_envs.core.maze import Grid
from maze_envs.core.stats import wilson_interval
from maze_envs.evaluators.suite.mazes import build_mazes, scene_geometry, world_to_grid
from maze_envs.report import Bar, Trace, bar_chart, maze_svg, rate_html, size_area, size_label

LAYOUT = Grid(np.array([[0, 1, 0], [0, 1, 0], [0, 0, 0]]), (0, 0), (0, 2))


def test_a_maze_with_walks_inside_keeps_its_frame_and_each_walk_its_colour():
    svg = maze_svg(LAYOUT, [Trace([(0, 0), (2, 0), (2, 2), (0, 2)], "#123456", "grid"), Trace([], "#999999")], 10)
    assert 'viewBox="0 0 30 30"' in svg and 'width="30" height="30"' in svg
    assert svg.count("<polyline") == 1 and 'stroke="#123456"' in svg and "<title>grid</title>" in svg
    assert svg.count('fill="#000"') == 1 and svg.count("<rect") == 2 + 2  # two walls, start and goal


def test_a_walk_that_leaves_the_grid_grows_the_picture_and_outlines_the_grid():
    svg = maze_svg(LAYOUT, [Trace([(0, 0), (3.5, -1.0)], "#123456")], 10)
    box = [float(v) for v in re.search(r'viewBox="([^"]+)"', svg)[1].split()]
    assert box == [-10.0, 0.0, 40.0, 45.0]  # half a block past the farthest point
    assert '<rect x="0" y="0" width="30" height="30" fill="none" stroke="#999"/>' in svg


def test_a_bar_of_zero_is_drawn_and_labelled():
    svg = bar_chart([Bar("Maze-v0", "random", 0.0, "0/3", "random 0/3"),
                     Bar("Maze-v0", "oracle", 1.0, "3/3", "oracle 3/3")], label="success")
    widths = [float(w) for w in re.findall(r'class="bar" x="\d+" y="\d+" width="([\d.]+)"', svg)]
    assert widths[0] > 0 and widths[1] > widths[0]
    assert ">0/3</text>" in svg and ">3/3</text>" in svg


def test_sizes_are_named_by_their_grid_and_the_cells_it_holds():
    assert size_label("5x5") == "5x5 grid, 3x3 cells" and size_label("9x7") == "9x7 grid, 5x4 cells"
    assert sorted(["9x9", "5x5", "7x7"], key=size_area) == ["5x5", "7x7", "9x9"]


def test_a_rate_shows_its_wilson_interval_in_percent():
    low, high = wilson_interval(0, 4)
    text = rate_html({"rate": 0.0, "ci95": [low, high], "solved": 0, "n": 4})
    assert text.startswith("0% ") and f"[0, {100 * high:.0f}]" in text and "(0/4)" in text


@pytest.fixture(scope="module")
def maze(tmp_path_factory):
    return build_mazes(("7x7",), 1, 0, "dfs", tmp_path_factory.mktemp("mazes"))[0]


def _distance_to_polyline(point: np.ndarray, line: np.ndarray) -> float:
    a, b = line[:-1], line[1:]
    ab = b - a
    t = np.clip(((point - a) * ab).sum(1) / np.maximum((ab * ab).sum(1), 1e-12), 0, 1)
    return float(np.min(np.linalg.norm(a + t[:, None] * ab - point, axis=1)))


def test_a_3d_walk_is_drawn_along_the_line_flown_not_straight_across_the_grid(maze):
    x_edges, y_edges, depth = scene_geometry(maze, 0)
    rng = np.random.default_rng(7)
    flight = [(float(x), float(y)) for x, y in rng.uniform([-0.5, -0.5], [x_edges[-1] + 0.5, depth + 0.5], (12, 2))]
    drawn = np.array(world_to_grid(flight, maze, 0))
    assert len(drawn) > len(flight)  # a bend wherever the flight crosses a block edge
    for (x0, y0), (x1, y1) in zip(flight, flight[1:], strict=False):
        for t in np.linspace(0, 1, 41):  # every place flown lies on the drawn line (to its 3-decimal rounding)
            here = np.array(world_to_grid([(x0 + t * (x1 - x0), y0 + t * (y1 - y0))], maze, 0)[0])
            assert _distance_to_polyline(here, drawn) < 2e-3
