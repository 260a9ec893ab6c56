"""JAX is an extra: importing the package, its envs and the RL trainers never imports it."""

from __future__ import annotations

import subprocess
import sys


def test_importing_maze_envs_does_not_import_jax() -> None:
    code = ("import sys, maze_envs, maze_envs.envs.grid.vector, maze_envs.envs.variants, maze_envs.agents.rl.train, "
            "maze_envs.agents.rl.egomap; sys.exit('jax' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
