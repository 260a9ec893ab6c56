"""Scoring generated maze-solution videos against their solution images (in ``scoring``).

Run ``python -m maze_envs.evaluators.pixel.video --help``."""

from .scoring import (
    DEFAULT_FRAMES,
    EXTRACTION_METHODS,
    VideoParams,
    evaluate_video,
    frames_for_model,
    iter_frames,
    read_frames,
    score_video,
)

__all__ = [
    "DEFAULT_FRAMES",
    "EXTRACTION_METHODS",
    "VideoParams",
    "evaluate_video",
    "frames_for_model",
    "iter_frames",
    "read_frames",
    "score_video",
]
