"""Calibrated wall and free-space levels (``--black_threshold auto`` / ``--white_threshold auto``): grey walls in
images and real MP4s keep their verdicts and layout scores; the spec's fixed levels stay the default."""

import json

import cv2
import numpy as np
import pytest

from maze_envs.cli import main
from maze_envs.core.generators import generate
from maze_envs.core.render import ImageStyle
from maze_envs.evaluators.pixel import synthetic
from maze_envs.evaluators.pixel.artefacts import VideoEffects, grey_walls
from maze_envs.evaluators.pixel.colours import ColourThresholds, to_hsv
from maze_envs.evaluators.pixel.image import evaluate_image
from maze_envs.evaluators.pixel.levels import calibrate_solution
from maze_envs.evaluators.pixel.video import evaluate_video

AUTO = ColourThresholds(auto_black=True, auto_white=True)


@pytest.fixture(scope="module")
def task():
    return synthetic.make_task(generate(13, 13, "dfs", 18), ImageStyle(28, 8))


@pytest.mark.parametrize("level, gradient", [(30, 0), (45, 0), (70, 0), (20, 60)])
def test_grey_walls_in_images_keep_the_layout_score_when_calibrated(task, level, gradient):
    correct = synthetic.reframe(grey_walls(synthetic.image_case(task, "correct"), level, gradient), (700, 640),
                                jpeg_quality=70)
    spec = evaluate_image(correct, task.solution)
    auto = evaluate_image(correct, task.solution, colours=AUTO)
    assert spec.maze_structure_iou < 0.3 and not spec.colour_levels["calibrated"]
    assert spec.colour_levels["black_threshold"] == 30
    assert auto.maze_structure_iou > 0.95 and auto.layout_match_score > 0.95
    assert auto.overall_score > spec.overall_score and not auto.wall_crossing_detected
    assert level + gradient < auto.colour_levels["black_threshold"] < 128 and auto.colour_levels["calibrated"]
    through = grey_walls(synthetic.image_case(task, "through_wall"), level, gradient)
    assert evaluate_image(through, task.solution, colours=AUTO).wall_crossing_detected


def test_calibration_keeps_changed_walls_a_layout_failure(task):
    changed = grey_walls(synthetic.image_case(task, "walls_changed", seed=3), 45)
    auto = evaluate_image(changed, task.solution, colours=AUTO)
    black = evaluate_image(synthetic.image_case(task, "walls_changed", seed=3), task.solution)
    assert auto.maze_structure_iou == pytest.approx(black.maze_structure_iou, abs=0.05)
    assert auto.maze_structure_iou < 0.7


def test_black_walls_calibrate_to_the_spec_levels(task):
    levels = evaluate_image(synthetic.image_case(task, "correct"), task.solution, colours=AUTO).colour_levels
    assert levels == {"black_threshold": 30, "white_threshold": 200, "solution_black_threshold": 30,
                      "calibrated": True}


def test_a_grey_solution_background_lowers_the_free_level(task):
    solution = task.solution.copy()
    white = np.all(solution == 255, axis=2)
    solution[white] = 185
    resolved = calibrate_solution(to_hsv(solution), AUTO)
    assert 128 <= resolved.white_threshold < 185 and resolved.black_threshold == 30
    assert calibrate_solution(to_hsv(solution), ColourThresholds()) == ColourThresholds()


@pytest.mark.parametrize("effects", [VideoEffects(wall_level=26, grain=8), VideoEffects(wall_level=42, grain=2),
                                     VideoEffects(wall_level=60, grain=6),
                                     VideoEffects(wall_level=20, wall_gradient=60, grain=2)],
                         ids=["26-grainy", "42", "60-grainy", "20-to-80"])
def test_grey_walls_in_videos_pass_the_layout_gate_when_calibrated(task, tmp_path, effects):
    for case, gated in (("correct", 1), ("through_wall", 0)):
        video = synthetic.write_marker_video(tmp_path / f"{case}.mp4", task, synthetic.video_route(task.maze, case),
                                             frames=96, size=(512, 512), effects=effects)
        r = evaluate_video(video, task.solution, num_frames=96, colours=AUTO)
        assert r.maze_structure_iou > 0.9 and r.layout_match_score_gated == 1
        assert r.overall_score_gated == gated and r.wall_crossing_detected == (case == "through_wall")
        assert effects.wall_level < r.colour_levels["black_threshold"] < 128


def test_cli_black_threshold_auto_records_the_calibrated_level(task, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sol").mkdir()
    cv2.imwrite(str(tmp_path / "sol/t1_solution.png"), task.solution)
    cv2.imwrite(str(tmp_path / "t1_targeted_solution.png"), grey_walls(synthetic.image_case(task, "correct"), 50))
    args = ["eval-image", "--single", str(tmp_path / "t1_targeted_solution.png"), "--solution_dir",
            str(tmp_path / "sol"), "--output_dir", str(tmp_path / "out"), "--no_visualizations"]
    assert main(args + ["--black_threshold", "auto", "--white_threshold", "auto"]) == 0
    out = capsys.readouterr().out
    record = json.loads(out[: out.rindex("}") + 1])
    assert record["maze_structure_iou"] > 0.95 and 50 < record["colour_levels"]["black_threshold"] < 128
    assert main(args + ["--black_threshold", "grey"]) == 2
    err = capsys.readouterr().err
    assert "--black-threshold" in err and "'grey'" in err
