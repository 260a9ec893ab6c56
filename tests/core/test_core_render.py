"""Renderers checked pixel by pixel: colours at cell centres, solution cells blue, geometry exact."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from maze_envs.core import generate, shortest_path
from maze_envs.core.render import FREE, GOAL, PATH, START, WALL, ImageStyle, Symbols, render_text
from maze_envs.tasks.render import render_task, solution_blocks

styles = st.sampled_from([ImageStyle(), ImageStyle(16, 16), ImageStyle(10, 2, 5), ImageStyle(7, 1)])


@given(st.integers(1, 13), st.integers(1, 13), st.integers(0, 1000), styles)
def test_cell_centres_and_walls_match_the_maze(rows, cols, seed, style):
    maze = generate(rows, cols, "wilson", seed, placement="random")
    image, geo = render_task(maze, style)
    px = np.asarray(image)
    assert image.mode == "RGB" and px.shape == (geo.height, geo.width, 3)
    colours = {tuple(c) for c in px.reshape(-1, 3)}
    assert colours <= {WALL, FREE, START, GOAL}
    for cell in maze.cells():
        x, y = (int(v) for v in geo.cell_center(cell))
        expected = START if cell == maze.start else GOAL if cell == maze.goal else FREE
        if maze.start == maze.goal == cell:
            expected = GOAL
        assert tuple(px[y, x]) == expected
    for r in range(rows):
        for c in range(cols - 1):
            x0, y0, x1, y1 = geo.cell_box((r, c))
            wall_pixel = tuple(px[(y0 + y1) // 2, x1 + geo.wall_px // 2])
            assert (wall_pixel == WALL) == bool(maze.vertical_walls[r, c])


@given(st.integers(2, 12), st.integers(2, 12), st.integers(0, 1000))
def test_solution_cells_are_blue(rows, cols, seed):
    maze = generate(rows, cols, "dfs", seed)
    image, geo = render_task(maze, ImageStyle(12, 4, 3), solution=True)
    px = np.asarray(image)
    on_path = set(shortest_path(maze))
    for cell in maze.cells():
        x, y = (int(v) for v in geo.cell_center(cell))
        if cell == maze.start:
            assert tuple(px[y, x]) == START
        elif cell == maze.goal:
            assert tuple(px[y, x]) == GOAL
        else:
            assert (tuple(px[y, x]) == PATH) == (cell in on_path)


def test_block_style_geometry_and_png_round_trip(tmp_path):
    maze = generate(5, 7, "prim", 1)
    image, geo = render_task(maze, ImageStyle(24, 24))
    assert (geo.width, geo.height) == (15 * 24, 11 * 24)
    assert geo.origin == (24, 24) and geo.pitch == 48
    image.save(tmp_path / "m.png")
    assert np.array_equal(np.asarray(Image.open(tmp_path / "m.png")), np.asarray(image))


@pytest.mark.parametrize("rows, cols, size", [(3, 3, 512), (13, 13, 512), (21, 21, 256), (5, 9, 300)])
def test_fit_fills_the_requested_size(rows, cols, size):
    style = ImageStyle.fit(rows, cols, size)
    geo = style.geometry(rows, cols)
    assert max(geo.width, geo.height) <= size
    bigger = ImageStyle(style.cell_px + 1, max(1, round((style.cell_px + 1) * 0.25))).geometry(rows, cols)
    assert max(bigger.width, bigger.height) > size


def test_text_renderer_defaults_and_custom_symbols():
    maze = generate(3, 3, "dfs", 0)
    text = render_text(maze)
    lines = text.split("\n")
    assert len(lines) == 7 and all(len(line) == 7 for line in lines)
    assert lines[1][1] == "S" and lines[5][5] == "G" and lines[0] == "█" * 7
    agent_text = render_text(maze, agent=(3, 3), symbols=Symbols(wall="#"))
    assert agent_text.split("\n")[3][3] == "A" and agent_text.startswith("#######")
    visible = np.zeros((7, 7), bool)
    visible[1, 1] = True
    masked = render_text(maze, visible=visible).split("\n")
    assert masked[1][1] == "S" and masked[0] == "???????"


def test_route_overlay_marks_passages_too():
    maze = generate(4, 4, "kruskal", 9)
    route = solution_blocks(maze)
    assert len(route) == 2 * len(shortest_path(maze)) - 1
    text = render_text(maze, route=route)
    assert text.count("·") == len(route) - 2
