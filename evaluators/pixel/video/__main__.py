"""``python -m evaluators.pixel.video``: the same as ``maze-envs eval-video``."""

import sys

from evaluators.pixel.cli import main

sys.exit(main("video"))
