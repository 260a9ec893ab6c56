"""The grid-env example runs as a script."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_grid_envs_example_runs():
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "grid_envs.py")], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Maze-v0: goal reached=True" in done.stdout and "vector env: 256 mazes" in done.stdout
