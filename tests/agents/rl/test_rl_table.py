"""benchmarks/rl_table.py trains its smallest row through its own code path and writes the record, the curve and
the policy files (no speed or success is asserted: a few thousand steps learn little)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax")

ROOT = Path(__file__).resolve().parents[3]


def test_smallest_row_writes_record_curve_and_policy_files(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    command = [sys.executable, str(ROOT / "benchmarks" / "rl_table.py"), "--rows", "5x5-partial", "--seeds", "0",
               "--timesteps", "4096", "--eval-episodes", "8", "--out", str(tmp_path / "runs"),
               "--results", str(tmp_path / "results")]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    record = json.loads((tmp_path / "results" / "rl-table-5x5-partial.json").read_text(encoding="utf-8"))
    assert record["name"] == "rl-table-5x5-partial" and record["machine"]["cpus"] == os.cpu_count()
    assert "| 5x5-partial | ppo-jax, gru 128 | unlimited levels | 1 |" in record["runs"]["run"]["stdout"]
    (result,) = record["results"]
    assert result["held_out"]["test"]["episodes"] == 8 and result["held_out"]["train"] is None
    assert result["settings"]["gru"] == 128 and result["settings"]["timesteps"] == 4096  # what the run trained
    assert 0 <= result["held_out"]["test"]["low"] <= result["held_out"]["test"]["rate"] <= 1
    assert (tmp_path / "results" / "rl-curve-5x5-partial.png").stat().st_size > 0
    run = tmp_path / "runs" / "5x5-partial" / "ppo-jax-seed0"
    assert (run / "curve.png").stat().st_size > 0 and (run / "progress.csv").exists()
    saved = json.loads(str(np.load(run / "model.npz")["env"]))
    assert saved["kwargs"] == {"rows": 5, "cols": 5} and saved["levels"]["description"] == "unlimited levels"
    assert json.loads((run / "results.json").read_text())["held_out"]["distinct_test_layouts"] == 8
    again = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert again.returncode == 0, again.stderr[-2000:]  # a second run into the folder resumes: the same run, kept
    first_line = [line for line in done.stdout.splitlines() if line.startswith("5x5-partial  ppo-jax  seed 0")]
    assert first_line and first_line[0] + "  (kept from an earlier run)" in again.stdout
