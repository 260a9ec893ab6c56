"""``GaussianScene``, ``Episode`` and ``Task`` (defined in ``maze_envs.nav.scene``)."""

from maze_envs.nav.scene import Episode, GaussianScene, Task

__all__ = ["Episode", "GaussianScene", "Task"]
