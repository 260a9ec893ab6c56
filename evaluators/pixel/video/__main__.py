"""``python -m evaluators.pixel.video``: the same flags as ``maze-envs eval-video``."""

import sys

from ..cli import main_video

sys.exit(main_video())
