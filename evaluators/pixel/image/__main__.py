"""``python -m evaluators.pixel.image``: the same flags as ``maze-envs eval-image``."""

import sys

from ..cli import main_image

sys.exit(main_image())
