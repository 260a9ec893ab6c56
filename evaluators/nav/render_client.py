"""``GaussianRenderer``, ``CameraConfig`` and ``RenderFailureError`` (defined in ``maze_envs.nav``)."""

from maze_envs.nav.camera import CameraConfig
from maze_envs.nav.client import GaussianRenderer
from maze_envs.nav.errors import RenderFailureError

__all__ = ["CameraConfig", "GaussianRenderer", "RenderFailureError"]
