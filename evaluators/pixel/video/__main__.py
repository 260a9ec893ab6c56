"""``python -m evaluators.pixel.video``: the same as ``maze-envs eval-video``."""

import sys

from maze_envs.cli import main

sys.exit(main(["eval-video", *sys.argv[1:]]))
