"""Video evaluation on real MP4s carrying the artefacts of real video models: marker trails, camera drift and
zoom, grey walls; the verdicts must be those of the clean video."""

from dataclasses import replace

import numpy as np
import pytest

from maze_envs.core.generators import generate
from maze_envs.core.render import ImageStyle
from maze_envs.evaluators.pixel import synthetic
from maze_envs.evaluators.pixel.artefacts import VideoEffects
from maze_envs.evaluators.pixel.video import EXTRACTION_METHODS, evaluate_video

FRAMES = 96
SIZE = (512, 512)


@pytest.fixture(scope="module")
def task():
    # 13x13 at 96 frames: the marker moves about a third of a cell per frame, so a trail spans cells and corners
    return synthetic.make_task(generate(13, 13, "dfs", 18), ImageStyle(28, 8))


def video(task, folder, case, effects, frames=FRAMES):
    """Return the path of a fresh MP4 of ``case``; a through-wall marker erases the wall it crosses."""
    if case == "through_wall":
        effects = replace(effects, erase_crossed_wall=True)
    return synthetic.write_marker_video(folder / f"{case}.mp4", task, synthetic.video_route(task.maze, case),
                                        frames=frames, size=SIZE, effects=effects)


TRAILS = {
    "faded-0.4": VideoEffects(trail_opacity=0.4),
    "faded-0.6": VideoEffects(trail_opacity=0.6),
    "faded-0.8": VideoEffects(trail_opacity=0.8),
    "long-0.6": VideoEffects(trail_opacity=0.6, trail_frames=30),
    "yellow-green": VideoEffects(trail_opacity=0.9, trail_colour=(0, 255, 160)),
    "dark-green": VideoEffects(trail_opacity=0.9, trail_colour=(40, 140, 40)),
    "circle-marker": VideoEffects(trail_opacity=0.6, circle_marker=True),
}


@pytest.mark.parametrize("method", EXTRACTION_METHODS)
@pytest.mark.parametrize("trail", list(TRAILS))
def test_a_trail_behind_the_marker_changes_no_verdict(task, tmp_path, trail, method):
    correct = evaluate_video(video(task, tmp_path, "correct", TRAILS[trail]), task.solution, num_frames=FRAMES,
                             extraction_method=method)
    assert not correct.wall_crossing_detected and correct.crossed_wall_segments == 0
    assert correct.overall_score_gated == 1
    crossing = evaluate_video(video(task, tmp_path, "through_wall", TRAILS[trail]), task.solution,
                              num_frames=FRAMES, extraction_method=method)
    assert crossing.wall_crossing_detected and crossing.overall_score_gated == 0


def test_a_trail_leaves_the_marker_track_where_it_was_without_one(task, tmp_path):
    plain = evaluate_video(video(task, tmp_path / "plain", "correct", VideoEffects()), task.solution,
                           num_frames=FRAMES)
    trailed = evaluate_video(video(task, tmp_path / "trail", "correct", TRAILS["faded-0.8"]), task.solution,
                             num_frames=FRAMES)
    assert trailed.frames_with_marker == plain.frames_with_marker == FRAMES
    assert abs(trailed.path_match_iou - plain.path_match_iou) < 0.05
    assert trailed.loop_count == plain.loop_count == 0


@pytest.mark.parametrize("drift, zoom", [((2, 1), 1.0), ((3, -3), 1.0), ((-5, 4), 1.0), ((2, 2), 1.02)])
def test_camera_drift_and_zoom_are_followed_and_reported(task, tmp_path, drift, zoom):
    r = evaluate_video(video(task, tmp_path, "correct", VideoEffects(drift_px=drift, zoom=zoom)), task.solution,
                       num_frames=FRAMES)
    assert r.maze_structure_iou > 0.9 and r.layout_match_score_gated == 1 and r.overall_score_gated == 1
    # the maze's corners move by the drift, plus the zoom's share of half the frame
    expected = np.hypot(abs(drift[0]) + (zoom - 1) * SIZE[0] / 2, abs(drift[1]) + (zoom - 1) * SIZE[1] / 2)
    assert r.alignment["max_drift_px"] == pytest.approx(expected, abs=1.0)
    assert r.alignment["max_drift_frame"] >= FRAMES - 3


def test_a_steady_camera_reports_no_drift(task, tmp_path):
    r = evaluate_video(video(task, tmp_path, "correct", VideoEffects()), task.solution, num_frames=FRAMES)
    assert r.alignment["max_drift_px"] == 0.0 and r.maze_structure_iou > 0.99


def test_a_drifting_crossing_is_still_a_crossing(task, tmp_path):
    r = evaluate_video(video(task, tmp_path, "through_wall", VideoEffects(drift_px=(3, 2))), task.solution,
                       num_frames=FRAMES)
    assert r.wall_crossing_detected and r.crossed_wall_segments == 1 and r.overall_score_gated == 0


@pytest.mark.parametrize("effects", [VideoEffects(hidden_frames=(80, 83)),
                                     VideoEffects(hidden_frames=(80, 83), trail_opacity=0.6)],
                         ids=["vanished", "vanished-with-trail"])
def test_a_marker_vanished_for_3_frames_still_passes(tmp_path, effects):
    task = synthetic.make_task(generate(9, 9, "dfs", 14), ImageStyle(40, 12))
    r = evaluate_video(video(task, tmp_path, "correct", effects, frames=192), task.solution)
    # while the marker is away its trail's newest ghost, just behind where it was, may stand in for it
    assert r.frames_with_marker == 189 if effects.trail_opacity == 0 else r.frames_with_marker >= 189
    assert not r.wall_crossing_detected and r.overall_score_gated == 1
