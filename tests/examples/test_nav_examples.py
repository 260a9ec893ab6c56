"""The navigation examples run as written."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_nav_render_server_example(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "nav_render_server.py"), str(tmp_path)],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "start pose is free: True" in out.stdout
    assert sorted(p.name for p in (tmp_path / "views").iterdir()) == ["0_front.jpg", "0_left.jpg", "0_right.jpg"]


def test_nav_eval_example_keeps_everything_in_its_folder(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "nav_eval.py"), "evaluated"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "8 tasks played" in out.stdout and "SR 1.00, SPL_NEW 1.00" in out.stdout
    run = tmp_path / "evaluated" / "run"
    assert (run / "eval_summary.json").is_file() and len(list(run.glob("*/*/result.json"))) == 8
    assert sorted(p.name for p in run.glob("*/trajectories.png")) == ["trajectories.png"] * 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evaluated"]
