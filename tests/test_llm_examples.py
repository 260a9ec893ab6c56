"""The chat-model examples run as written."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("script", sorted((ROOT / "examples").glob("llm_*.py")), ids=lambda p: p.name)
def test_example_runs(script):
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert "valid: True" in done.stdout and "accuracy 1.0" in done.stdout
