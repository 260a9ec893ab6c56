"""``python -m maze_envs``: the same as the ``maze-envs`` command."""

import sys

from maze_envs.cli import main

sys.exit(main())
