"""The navigation examples run as written."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_nav_render_server_example(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "nav_render_server.py"), str(tmp_path)],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "start pose is free: True" in out.stdout
    assert sorted(p.name for p in (tmp_path / "views").iterdir()) == ["0_front.jpg", "0_left.jpg", "0_right.jpg"]
