"""Unit checks of the spec's formulas: overall score, gates, reflection, loops, summaries, names."""

import numpy as np
import pytest

from maze_envs.evaluators.pixel import metrics
from maze_envs.evaluators.pixel.gates import gates
from maze_envs.evaluators.pixel.results import round_suffix, summarize
from maze_envs.tasks.files import solution_name, task_of


def test_overall_score_formula_and_wall_penalty():
    assert metrics.overall_score(1.0, 0.5, False) == pytest.approx(0.45)
    assert metrics.overall_score(1.0, 0.5, True) == pytest.approx(0.15)


@pytest.mark.parametrize("iou,target,crossing,expected", [
    (0.85, 0.98, False, (1, 1, 1)), (0.8, 0.98, False, (0, 1, 0)), (0.9, 0.95, False, (1, 0, 0)),
    (0.9, 1.0, True, (1, 1, 0))])
def test_gates_follow_the_spec(iou, target, crossing, expected):
    gate = gates(iou, target, crossing)
    assert (gate.layout_match_score_gated, gate.target_achievement_gated, gate.overall_score_gated) == expected


def test_reflection_flags_loops_or_long_paths():
    assert not metrics.reflection(0, 130, 100).has_reflection
    assert metrics.reflection(0, 131, 100).has_reflection
    assert metrics.reflection(2, 100, 100).has_reflection
    assert metrics.reflection(20, 195, 100).exploration_score == 1.0


def test_sequence_loops_count_reentries():
    assert metrics.sequence_loops([(0, 0), (0, 0), (0, 1), (1, 1)]) == 0
    assert metrics.sequence_loops([(0, 0), (0, 1), (0, 2), (0, 1), (0, 0), (1, 0)]) == 2


def test_graph_loops_count_cycles_and_side_branches():
    touched = np.zeros((7, 7), bool)
    touched[1, 1:6] = True  # a straight route over three cells
    assert metrics.graph_loops(touched) == 0
    touched[2:4, 3] = True  # a side branch down from the middle cell
    assert metrics.graph_loops(touched) == 1
    ring = np.zeros((5, 5), bool)
    ring[1:4, 1:4] = True
    ring[2, 2] = False  # the post is never touched by a loop round four cells
    assert metrics.graph_loops(ring) == 1


def test_summary_statistics_and_error_counts():
    ok = {"filename": "a.mp4", "wall_crossing_detected": False, "path_match_iou": 0.5, "path_precision": 0.6,
          "path_recall": 0.7, "target_achievement": 1.0, "layout_match_score": 1.0, "green_position_match": True,
          "red_position_match": False, "has_reflection": True, "overall_score": 0.6, "layout_match_score_gated": 1,
          "target_achievement_gated": 1, "overall_score_gated": 1, "frames_with_marker": 180}
    bad = dict(ok, filename="b.mp4", wall_crossing_detected=True, overall_score=0.2, overall_score_gated=0,
               frames_with_marker=100, path_match_iou=0.3)
    summary = summarize([ok, bad, {"filename": "c.mp4", "solution_file": None, "error": "c.mp4: unreadable"}])
    assert summary["evaluated"] == 2 and summary["errors"] == {"count": 1, "files": ["c.mp4"]}
    assert summary["wall_crossing"] == {"count": 1, "rate": 0.5}
    assert summary["path_matching"]["mean_iou"] == pytest.approx(0.4)
    assert summary["path_matching"]["std_iou"] == pytest.approx(0.1)
    assert summary["overall"]["min_score"] == 0.2 and summary["overall"]["max_score"] == 0.6
    assert summary["gated_metrics"]["overall_score_gated_count"] == 1
    assert summary["gated_metrics"]["overall_score_gated_rate"] == 0.5
    assert summary["video_specific"]["avg_frames_with_marker"] == 140
    assert summarize([])["evaluated"] == 0


def test_names_and_round_suffix(tmp_path):
    assert solution_name(task_of("dfs_easy_3x3_n000_var1_fixed_both_targeted_solution.png")) == \
        "dfs_easy_3x3_n000_var1_fixed_both_solution.png"
    assert (
        solution_name(task_of("dfs_easy_3x3_n000_var1_fixed_both.mp4"))
        == "dfs_easy_3x3_n000_var1_fixed_both_solution.png"
    )
    assert round_suffix(tmp_path / "veo3" / "dfs" / "easy_round2") == "round2"
    assert round_suffix(tmp_path / "round7" / "videos") == "round7"
    assert round_suffix(tmp_path / "plain") == ""
