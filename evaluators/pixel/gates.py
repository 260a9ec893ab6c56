"""The video's gated pass/fail metrics, in plain Python so that readers of result files (the judge's
agreement report) can apply the same gates without loading the image stack."""

from __future__ import annotations

from dataclasses import dataclass

LAYOUT_GATE_IOU = 0.8
TARGET_GATE = 0.95


@dataclass
class Gates:
    """The video's binary pass/fail metrics."""

    layout_match_score_gated: int
    target_achievement_gated: int
    overall_score_gated: int


def gates(structure_iou: float, target_achievement: float, wall_crossing_detected: bool) -> Gates:
    """Return the gates: wall IoU > 0.8, target achievement > 0.95, and both with no wall crossing."""
    layout = int(structure_iou > LAYOUT_GATE_IOU)
    target = int(target_achievement > TARGET_GATE)
    return Gates(layout, target, int(layout and target and not wall_crossing_detected))
