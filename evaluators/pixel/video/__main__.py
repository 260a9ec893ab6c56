"""``python -m maze_envs.evaluators.pixel.video``: the same as ``maze-envs eval-video``."""

import sys

from ..cli import main

sys.exit(main("video"))
