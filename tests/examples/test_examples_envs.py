"""The grid-env example runs as a script."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_grid_envs_example_runs():
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "grid_envs.py")], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Maze-v0: goal reached=True" in done.stdout and "vector env: 256 mazes" in done.stdout


def test_quickstart_example_runs():
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "quickstart.py")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("episode ") == 3 and "?" in done.stdout


def test_play_example_plays_itself_headless():
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "play.py"), "--autoplay"], capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert "1 reached the goal" in done.stdout
    moves, frames = (int(done.stdout.split(word)[0].split()[-1]) for word in (" moves", " frames"))
    assert moves > 1 and frames > moves  # one key a frame: every move drawn
