"""The chat-model examples and the demo step run as written."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from maze_envs.cli.demo_steps import llm_judge_step
from maze_envs.core.formats import read_json

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("script", sorted((ROOT / "examples").glob("llm_*.py")), ids=lambda p: p.name)
def test_example_runs(script):
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert "valid: True" in done.stdout and "accuracy 1.0" in done.stdout


def test_demo_step_solves_through_the_server_and_judges_task_images(tmp_path):
    line = llm_judge_step(tmp_path, 0)
    summary = read_json(tmp_path / "llm" / "judge" / "summary.json")
    assert "valid: True" in line and "local embedded server" in line
    assert summary["endpoint"]["local_embedded_server"] and summary["metrics"]["overall"]["n_judged"] == 2
    assert summary["metrics"]["overall"]["success_rate"] == 0.5
