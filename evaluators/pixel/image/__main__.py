"""``python -m evaluators.pixel.image``: the same as ``maze-envs eval-image``."""

import sys

from maze_envs.cli import main

sys.exit(main(["eval-image", *sys.argv[1:]]))
