"""``python -m maze_envs.evaluators.pixel.video``: the same as ``maze-envs eval-video``."""

import sys

from maze_envs.cli.pixel import main

sys.exit(main("video"))
