"""``python -m maze_envs.evaluators.pixel.image``: the same as ``maze-envs eval-image``."""

import sys

from ..cli import main

sys.exit(main("image"))
