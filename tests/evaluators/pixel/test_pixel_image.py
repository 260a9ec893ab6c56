"""Image evaluation: expected verdicts on synthetic model-like generations of several maze sizes and styles."""

import cv2
import numpy as np
import pytest

from maze_envs.core.generators import generate
from maze_envs.core.render import ImageStyle
from maze_envs.evaluators.pixel import synthetic
from maze_envs.evaluators.pixel.errors import MediaReadError
from maze_envs.evaluators.pixel.image import evaluate_image
from maze_envs.evaluators.pixel.synthetic import make_task, reframe

VARIANTS = {
    "native": lambda img: img,
    "jpeg-resized-shifted": lambda img: reframe(img, (700, 640), jpeg_quality=70, shift=12),
    "letterboxed-1280x720": lambda img: reframe(img, (1280, 720), letterbox=True, jpeg_quality=85),
}
MAZES = [(5, ImageStyle(24, 6)), (9, ImageStyle(14, 14)), (13, ImageStyle(20, 5))]


@pytest.fixture(scope="module", params=MAZES, ids=lambda m: f"{m[0]}x{m[0]}-wall{m[1].wall_px}")
def task(request):
    side, style = request.param
    return make_task(generate(side, side, "dfs", 7 + side), style)


def score(task, case, variant, **kwargs):
    generated = VARIANTS[variant](synthetic.image_case(task, case))
    return evaluate_image(generated, task.solution, **kwargs)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_correct_route_passes(task, variant):
    r = score(task, "correct", variant)
    assert not r.wall_crossing_detected and r.crossed_wall_segments == 0
    assert r.target_achievement == 1.0
    assert r.maze_structure_iou > 0.9
    assert r.green_position_match and r.red_position_match
    assert r.path_match_iou > 0.8 and r.path_precision > 0.9
    assert not r.has_reflection and r.loop_count == 0
    assert 0.8 < r.path_length_ratio < 1.2
    assert r.overall_score > 0.6


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_wrong_route_misses_the_expected_share_of_solution_cells(task, variant):
    maze = task.maze
    solution = set(synthetic.solution_route(maze))
    expected = len(solution.intersection(synthetic.wrong_route(maze))) / len(solution)
    r = score(task, "wrong", variant)
    assert r.target_achievement < 0.95
    assert abs(r.target_achievement - expected) <= 0.1
    assert not r.wall_crossing_detected
    assert r.overall_score < score(task, "correct", variant).overall_score - 0.05


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_route_through_a_wall_is_flagged(task, variant):
    r = score(task, "through_wall", variant)
    assert r.wall_crossing_detected
    assert r.crossed_wall_segments >= 1 and r.wall_crossing_pixels > 0
    assert r.overall_score < score(task, "correct", variant).overall_score - 0.25


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_changed_walls_fail_the_layout(task, variant):
    r = score(task, "walls_changed", variant)
    assert r.maze_structure_iou < 0.8
    assert r.layout_match_score < score(task, "correct", variant).layout_match_score - 0.1
    assert r.target_achievement == 1.0


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_missing_markers_fail_position_matches(task, variant):
    r = score(task, "missing_markers", variant)
    assert not r.green_position_match and not r.red_position_match
    assert r.green_centroid_distance is None and r.red_centroid_distance is None
    assert r.layout_match_score <= 0.5 + 1e-9
    assert r.target_achievement == 1.0


def test_detour_drawn_in_an_image_counts_as_reflection():
    maze = generate(9, 9, "dfs", 4)
    task = make_task(maze, ImageStyle(24, 6))
    generated = synthetic.draw_route(task.puzzle, task.geometry, synthetic.detour_route(maze, depth=3))
    r = evaluate_image(generated, task.solution)
    assert r.has_reflection and r.loop_count >= 1
    assert r.exploration_score > 0


def test_metadata_geometry_and_auto_detection_agree():
    maze = generate(8, 8, "kruskal", 2)
    task = make_task(maze, ImageStyle(20, 5))
    generated = synthetic.image_case(task, "through_wall")
    detected = evaluate_image(generated, task.solution)
    given = evaluate_image(generated, task.solution, geometry=task.geometry)
    assert given.grid["source"] == "metadata" and detected.grid["source"] == "detected"
    for key in ("wall_crossing_detected", "target_achievement", "crossed_wall_segments"):
        assert getattr(given, key) == getattr(detected, key)
    assert abs(given.path_match_iou - detected.path_match_iou) < 0.02


def test_spec_thresholds_are_parameters():
    maze = generate(6, 6, "dfs", 5)
    task = make_task(maze, ImageStyle(20, 20))
    generated = synthetic.image_case(task, "correct")
    strict = evaluate_image(generated, task.solution, position_tolerance=0.0)
    assert not strict.green_position_match
    wide = evaluate_image(generated, task.solution, dilation_size=60)
    assert wide.path_precision < evaluate_image(generated, task.solution).path_precision + 1e-9


def test_result_serialises_to_the_spec_fields():
    maze = generate(4, 4, "dfs", 0)
    task = make_task(maze)
    record = evaluate_image(synthetic.image_case(task, "correct"), task.solution).to_dict()
    for key in ("filename", "solution_file", "wall_crossing_detected", "wall_crossing_pixels", "wall_crossing_ratio",
                "layout_match_score", "maze_structure_iou", "green_position_match", "red_position_match",
                "green_centroid_distance", "red_centroid_distance", "path_match_iou", "path_precision",
                "path_recall", "target_achievement", "has_reflection", "loop_count", "path_length_ratio",
                "exploration_score", "overall_score"):
        assert key in record
    assert "overall_score_gated" not in record


def test_unreadable_image_raises_media_read_error(tmp_path):
    bad = tmp_path / "bad_targeted_solution.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n truncated")
    task = make_task(generate(3, 3, "dfs", 0))
    with pytest.raises(MediaReadError, match="bad_targeted_solution.png"):
        evaluate_image(bad, task.solution)
    with pytest.raises(MediaReadError, match="not found"):
        evaluate_image(tmp_path / "missing.png", task.solution)


def test_evaluation_is_deterministic():
    task = make_task(generate(7, 7, "wilson", 9), ImageStyle(18, 6))
    generated = reframe(synthetic.image_case(task, "wrong"), (400, 300), jpeg_quality=75)
    a = evaluate_image(generated, task.solution).to_dict()
    b = evaluate_image(generated.copy(), task.solution.copy()).to_dict()
    a.pop("elapsed_s"), b.pop("elapsed_s")
    assert a == b
    assert cv2.imencode(".png", generated)[0] and np.array_equal(generated, generated)
