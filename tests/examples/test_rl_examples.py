"""The RL example trains, evaluates and keeps everything in its output folder."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_train_ppo_example_writes_only_its_out_dir(tmp_path):
    pytest.importorskip("torch")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "train_ppo.py"), "run", "--timesteps", "2048",
                           "--episodes", "3"], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert "1. trained 2048 steps" in done.stdout
    for agent in ("ppo_native", "RandomAgent", "OracleAgent"):
        assert f"| {agent} | Maze-PartialObs-v0 | 3 |" in done.stdout
    assert "| OracleAgent | Maze-PartialObs-v0 | 3 | 1.000" in done.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["model.pt", "progress.csv"]
