"""Typed errors of the navigation scenes, the render server and its client."""

from __future__ import annotations

from maze_envs.core.errors import MazeConfigError, MazeEnvsError, MazeFormatError, MissingExtraError


class NavDataError(MazeFormatError):
    """A scene file (trajectory JSON, map metadata, occupancy map, PLY) is missing or malformed; names the file."""


class RenderRequestError(MazeConfigError):
    """A render request is malformed or asks for something absurd; the server answers it with HTTP 400."""


class RenderFailureError(MazeEnvsError):
    """A render could not be obtained after all retries; names the URL and the last failure."""


class NavDependencyError(MissingExtraError):
    """An optional dependency is missing or unusable; the message names the extra to install."""
