"""Video evaluation: real MP4s (OpenCV mp4v) of a green marker, expected verdicts and gates, bad files."""

import cv2
import numpy as np
import pytest

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.generators import generate
from maze_envs.core.render import ImageStyle
from maze_envs.evaluators.pixel import synthetic
from maze_envs.evaluators.pixel.errors import MediaReadError
from maze_envs.evaluators.pixel.synthetic import make_task
from maze_envs.evaluators.pixel.video import VideoParams, evaluate_video, frames_for_model, read_frames

FRAMES = 48
MAZES = [(3, ImageStyle(32, 8)), (5, ImageStyle(16, 16)), (6, ImageStyle(24, 6))]


@pytest.fixture(scope="module", params=MAZES, ids=lambda m: f"{m[0]}x{m[0]}-wall{m[1].wall_px}")
def task(request):
    side, style = request.param
    return make_task(generate(side, side, "dfs", 20 + side), style)


@pytest.fixture(scope="module")
def videos(task, tmp_path_factory):
    folder = tmp_path_factory.mktemp("videos")
    return {case: synthetic.write_marker_video(folder / f"{case}.mp4", task, synthetic.video_route(task.maze, case),
                                               frames=FRAMES) for case in synthetic.VIDEO_CASES}


def test_marker_following_the_solution_passes_every_gate(task, videos):
    r = evaluate_video(videos["correct"], task.solution, num_frames=FRAMES)
    assert r.total_frames == FRAMES and r.frames_with_marker == FRAMES
    assert not r.wall_crossing_detected
    assert r.target_achievement > 0.95 and r.maze_structure_iou > 0.8
    assert r.green_position_match and r.red_position_match
    assert (r.layout_match_score_gated, r.target_achievement_gated, r.overall_score_gated) == (1, 1, 1)
    assert not r.has_reflection
    assert r.path_extraction_method == "green_marker_tracking"


def test_frame_differencing_finds_the_same_route(task, videos):
    r = evaluate_video(videos["correct"], task.solution, num_frames=FRAMES, extraction_method="frame_differencing")
    assert r.path_extraction_method == "frame_differencing"
    assert r.target_achievement > 0.95 and r.overall_score_gated == 1


def test_frame_differencing_follows_a_slow_marker(task, tmp_path):
    # 192 frames (veo3's default): the marker moves a sliver per frame, fewer new pixels than one marker
    video = synthetic.write_marker_video(tmp_path / "slow.mp4", task, synthetic.video_route(task.maze, "correct"),
                                         frames=192)
    r = evaluate_video(video, task.solution, num_frames=192, extraction_method="frame_differencing")
    assert not r.wall_crossing_detected
    assert r.target_achievement > 0.95 and r.overall_score_gated == 1


def test_detour_and_backtracking_show_reflection_and_still_pass(task, videos):
    correct = evaluate_video(videos["correct"], task.solution, num_frames=FRAMES)
    r = evaluate_video(videos["detour"], task.solution, num_frames=FRAMES)
    assert r.has_reflection and r.loop_count >= 1 and r.exploration_score > 0
    assert r.path_length_ratio > correct.path_length_ratio
    assert r.path_precision < correct.path_precision
    assert r.overall_score_gated == 1


def test_marker_crossing_a_wall_fails_the_overall_gate(task, videos):
    r = evaluate_video(videos["through_wall"], task.solution, num_frames=FRAMES)
    assert r.wall_crossing_detected and r.crossed_wall_segments >= 1
    assert r.overall_score_gated == 0


def test_marker_standing_still_fails_target_achievement(task, videos):
    r = evaluate_video(videos["still"], task.solution, num_frames=FRAMES)
    assert r.target_achievement < 0.5 and r.target_achievement_gated == 0 and r.overall_score_gated == 0
    assert not r.has_reflection and not r.wall_crossing_detected
    assert r.frames_with_marker == FRAMES and r.layout_match_score_gated == 1


def test_letterboxed_1280x720_video_of_a_square_maze(tmp_path):
    maze = generate(5, 5, "wilson", 11)
    task = make_task(maze, ImageStyle(28, 7))
    video = synthetic.write_marker_video(tmp_path / "wide.mp4", task, synthetic.video_route(maze, "correct"),
                                         frames=24, size=(1280, 720), letterbox=True)
    r = evaluate_video(video, task.solution, num_frames=24)
    assert r.alignment["method"] in ("fit", "interior")
    assert r.overall_score_gated == 1 and r.green_position_match and r.red_position_match


def test_smaller_resolution_video_through_a_wall(tmp_path):
    maze = generate(7, 7, "prim", 2)
    task = make_task(maze, ImageStyle(30, 10))
    video = synthetic.write_marker_video(tmp_path / "small.mp4", task, synthetic.video_route(maze, "through_wall"),
                                         frames=FRAMES, size=(240, 240))
    r = evaluate_video(video, task.solution, num_frames=FRAMES)
    assert r.wall_crossing_detected and r.overall_score_gated == 0


def test_marker_jumping_a_wall_between_sampled_frames_is_still_a_crossing(tmp_path):
    maze = generate(21, 21, "wilson", 21)
    task = make_task(maze, ImageStyle(20, 5))
    route = synthetic.video_route(maze, "through_wall")
    assert len(route) > 50  # 96 frames: the marker moves about 0.6 cell per frame and is never on the wall's centre
    video = synthetic.write_marker_video(tmp_path / "jump.mp4", task, route, frames=96, size=(1280, 720),
                                         letterbox=True)
    r = evaluate_video(video, task.solution, num_frames=96)
    assert r.frames_with_marker == 96 and r.target_achievement > 0.95
    assert r.wall_crossing_detected and r.crossed_wall_segments == 1 and r.overall_score_gated == 0


def test_long_192_frame_video_of_a_13x13_maze_is_sampled_to_num_frames(tmp_path):
    maze = generate(13, 13, "dfs", 3)
    task = make_task(maze, ImageStyle(20, 5))
    video = synthetic.write_marker_video(tmp_path / "long.mp4", task, synthetic.video_route(maze, "correct"),
                                         frames=192)
    full = evaluate_video(video, task.solution)
    assert full.total_frames == 192 and full.overall_score_gated == 1
    sampled = evaluate_video(video, task.solution, num_frames=96)
    assert sampled.total_frames == 96


def test_frame_count_rule_for_sora_models():
    assert frames_for_model("veo3") == 192
    assert frames_for_model("sora2") == 360
    assert frames_for_model("Sora-Turbo", 192) == 360
    assert frames_for_model("sora2", 100) == 100


def test_bad_video_files_raise_media_read_error(tmp_path):
    task = make_task(generate(3, 3, "dfs", 0))
    good = synthetic.write_marker_video(tmp_path / "good.mp4", task, synthetic.video_route(task.maze, "correct"),
                                        frames=12)
    truncated = tmp_path / "truncated.mp4"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 3])
    empty = tmp_path / "empty.mp4"
    writer = cv2.VideoWriter(str(empty), cv2.VideoWriter_fourcc(*"mp4v"), 24, (64, 64))
    writer.release()
    text = tmp_path / "text.mp4"
    text.write_text("not a video")
    for bad in (truncated, empty, text, tmp_path / "missing.mp4"):
        with pytest.raises(MediaReadError, match=bad.name):
            evaluate_video(bad, task.solution)
    assert len(read_frames(good, 5)) == 5


def test_video_evaluation_is_deterministic(tmp_path):
    task = make_task(generate(4, 4, "kruskal", 8), ImageStyle(20, 5))
    video = synthetic.write_marker_video(tmp_path / "v.mp4", task, synthetic.video_route(task.maze, "detour"),
                                         frames=30)
    a = evaluate_video(video, task.solution, num_frames=30).to_dict()
    b = evaluate_video(video, task.solution, num_frames=30, frame_workers=1).to_dict()
    a.pop("elapsed_s"), b.pop("elapsed_s")
    assert a == b
    assert np.isfinite(a["overall_score"])


def test_unknown_extraction_method_is_refused_before_decoding():
    with pytest.raises(MazeConfigError, match="^extraction_method.*optical_flow"):
        VideoParams(extraction_method="optical_flow")
    with pytest.raises(MazeConfigError, match="optical_flow"):
        evaluate_video("missing.mp4", np.zeros((8, 8, 3), np.uint8), extraction_method="optical_flow")
