"""Scoring generated maze-solution images against their solution images (in ``scoring``).

Run ``python -m maze_envs.evaluators.pixel.image --help``."""

from .scoring import (
    ImageParams,
    as_reference,
    assess_path,
    evaluate_image,
    score_image,
)

__all__ = [
    "ImageParams",
    "as_reference",
    "assess_path",
    "evaluate_image",
    "score_image",
]
