"""``ShortMemory`` (defined with the navigation envs, which share it)."""

from maze_envs.envs.nav.memory import ShortMemory

__all__ = ["ShortMemory"]
