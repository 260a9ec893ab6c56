"""Typed errors of the pixel evaluators; each names the file at fault."""

from __future__ import annotations

import os

from maze_envs.core.errors import MazeEnvsError


class PixelEvalError(MazeEnvsError):
    """A generated image/video or a solution image cannot be evaluated; ``source`` names the file."""

    def __init__(self, message: str, *, source: str | os.PathLike | None = None):
        self.source = str(source) if source is not None else None
        self.reason = message
        super().__init__(f"{self.source}: {message}" if self.source else message)


class MediaReadError(PixelEvalError):
    """An image or video file is missing, unreadable, truncated or has no frames."""


class GridDetectionError(PixelEvalError):
    """No maze grid (cell pitch, wall thickness, rows x cols) could be found in a solution image."""
