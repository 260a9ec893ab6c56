"""The openings example runs end to end."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_openings_quickstart_example_runs(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), SDL_VIDEODRIVER="dummy", MPLBACKEND="Agg")
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "openings_quickstart.py"), str(tmp_path)],
                            capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "OpeningsOracleAgent: 20/20 correct" in result.stdout
    assert (tmp_path / "openings_example.png").stat().st_size > 0
