"""The chat-model examples run as written."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_oracle_and_judge_example_runs():
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "llm_oracle_and_judge.py")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert "valid: True" in done.stdout and "accuracy 1.0" in done.stdout


def test_llm_agent_example_plays_both_envs_against_the_local_server(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("MAZE_ENVS_BASE_URL", "MAZE_ENVS_MODEL")}
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "llm_agent.py")], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={**env, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("model maze-envs-local at http://127.0.0.1:")
    assert "call 1: 'down 2' -> ok" in done.stdout
    for env_id in ("Maze-PartialObs-v0", "Maze-v0"):
        result = done.stdout.split(f"{env_id} 5x5, seed 0\n", 1)[1]
        assert result.split("\n\n", 1)[0].splitlines()[-1].startswith("  goal reached:")
    assert list(tmp_path.iterdir()) == []
