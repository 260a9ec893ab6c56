"""Grid auto-detection and alignment of the pixel evaluators on core renders of many sizes and styles."""

import cv2
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from maze_envs.core.generators import generate
from maze_envs.core.render import ImageStyle
from maze_envs.evaluators.pixel.colours import dark_mask
from maze_envs.evaluators.pixel.errors import GridDetectionError
from maze_envs.evaluators.pixel.grid import GridGeometry, align, detect_grid
from maze_envs.evaluators.pixel.synthetic import make_task, reframe

STYLES = {"thin": ImageStyle(20, 5), "block": ImageStyle(12, 12), "thin-margin": ImageStyle(16, 3, 9)}


@pytest.mark.parametrize("style", list(STYLES))
@pytest.mark.parametrize("rows,cols", [(3, 3), (4, 6), (7, 7), (13, 13), (21, 21), (25, 19)])
def test_detects_rows_cols_at_native_and_resized_resolutions(rows, cols, style):
    maze = generate(rows, cols, "wilson", rows * 100 + cols)
    task = make_task(maze, STYLES[style])
    for size in (None, (640, 640), (500, 380), (1100, 900)):
        image = task.solution if size is None else cv2.resize(task.solution, size, interpolation=cv2.INTER_AREA)
        grid = detect_grid(image)
        assert (grid.rows, grid.cols) == (rows, cols), (size, grid)
        scale_x = image.shape[1] / task.solution.shape[1]
        expected = GridGeometry.from_pixel_geometry(task.geometry, scale_x, image.shape[0] / task.solution.shape[0])
        assert abs(grid.pitch_x - expected.pitch_x) < 0.05 * expected.pitch_x
        assert abs(grid.x0 - expected.x0) <= 2 + 0.02 * image.shape[1]


def test_detects_compressed_puzzle_images_too():
    maze = generate(9, 9, "prim", 3)
    task = make_task(maze, ImageStyle(24, 6))
    jpeg = reframe(task.puzzle, (700, 700), jpeg_quality=60)
    grid = detect_grid(jpeg)
    assert (grid.rows, grid.cols) == (9, 9)


@pytest.mark.parametrize("image", [np.full((200, 200, 3), 255, np.uint8), np.zeros((200, 200, 3), np.uint8),
                                   np.random.default_rng(0).integers(0, 256, (200, 200, 3)).astype(np.uint8)])
def test_images_without_a_maze_raise_grid_detection_error(image):
    with pytest.raises(GridDetectionError):
        detect_grid(image, source="noise.png")


@pytest.mark.parametrize("size,letterbox", [((512, 512), False), ((1280, 720), True), ((600, 400), False)])
def test_alignment_maps_generated_frames_back_onto_solution_pixels(size, letterbox):
    maze = generate(7, 7, "dfs", 1)
    task = make_task(maze, ImageStyle(24, 8))
    generated = reframe(task.puzzle, size, letterbox=letterbox)
    geometry = GridGeometry.from_pixel_geometry(task.geometry)
    alignment = align(generated, dark_mask(task.solution), geometry)
    h, w = task.solution.shape[:2]
    fit = min(size[0] / w, size[1] / h)
    expected = (fit, fit) if letterbox else (size[0] / w, size[1] / h)
    assert alignment.sx == pytest.approx(expected[0], rel=0.02)
    assert alignment.sy == pytest.approx(expected[1], rel=0.02)
    assert alignment.agreement > 0.9
    back = alignment.warp(generated, task.solution.shape)
    assert back.shape == task.solution.shape
    assert np.mean(dark_mask(back) == dark_mask(task.solution)) > 0.97


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(3, 21), cols=st.integers(3, 21), cell=st.integers(6, 24),
       wall_ratio=st.sampled_from([0.2, 0.3, 1.0]), scale=st.floats(0.6, 2.0), seed=st.integers(0, 2**16))
def test_detection_property_any_size_style_and_scale(rows, cols, cell, wall_ratio, scale, seed):
    wall = max(2, round(cell * wall_ratio))
    assume(cell * scale >= 5 and wall * scale >= 2)
    maze = generate(rows, cols, "dfs", seed)
    task = make_task(maze, ImageStyle(cell, wall))
    h, w = task.solution.shape[:2]
    image = cv2.resize(task.solution, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    grid = detect_grid(image)
    assert (grid.rows, grid.cols) == (rows, cols)
