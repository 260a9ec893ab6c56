"""maze-envs: Gymnasium maze environments, datasets, agents and evaluators.

Importing the package registers every environment id, so ``gym.make("Maze-v0")`` works after
``import maze_envs`` (or ``gym.register_envs(maze_envs)``).
"""

from maze_envs.envs.registration import register_envs

__version__ = "0.1.0"

register_envs()
