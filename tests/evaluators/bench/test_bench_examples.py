"""The benchmark example runs as a script and keeps its outputs in its folder."""

import subprocess
import sys
from pathlib import Path

from maze_envs.core.jsonfiles import read_json, read_jsonl

ROOT = Path(__file__).resolve().parents[3]


def test_bench_example_keeps_everything_in_its_folder(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "bench.py"), "benched"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "3. 5x5: success 100%" in done.stdout and "3. 9x9: success 100%" in done.stdout
    out = tmp_path / "benched"
    assert len(read_jsonl(out / "results.jsonl")) == 8 and read_json(out / "summary.json")["local_embedded_server"]
    assert (out / "report.html").is_file() and len(list((out / "mazes").glob("*/maze_*.json"))) == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["benched"]
