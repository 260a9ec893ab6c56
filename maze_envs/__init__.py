"""maze-envs: Gymnasium maze environments, datasets, agents and evaluators.

Importing the package registers every environment id, so ``gym.make("Maze-v0")`` works after
``import maze_envs`` (or ``gym.register_envs(maze_envs)``). The repository's ``agents/`` and ``evaluators/``
folders are installed as ``maze_envs.agents`` and ``maze_envs.evaluators`` (see ``maze_envs.consumers``).
"""

from maze_envs import consumers
from maze_envs.envs.registration import register_envs

__version__ = "0.2.0"

consumers.install()  # maze_envs.agents / maze_envs.evaluators: the import names of agents/ and evaluators/
register_envs()
