"""``python -m maze_envs.evaluators.pixel.image``: the same as ``maze-envs eval-image``."""

import sys

from maze_envs.cli.pixel import main

sys.exit(main("image"))
