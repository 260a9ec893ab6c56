"""The pixel evaluator examples run as scripts and print their verdicts."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_pixel_eval_synthetic_example(tmp_path):
    proc = subprocess.run([sys.executable, str(REPO / "examples/pixel_eval_synthetic.py"), str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "image: wall crossing True" in proc.stdout
    assert "video: reflection True" in proc.stdout and "overall_score_gated 1" in proc.stdout
    assert (tmp_path / "image_evaluation.png").is_file() and (tmp_path / "video_evaluation.png").is_file()


def test_score_generations_example_keeps_everything_in_its_folder(tmp_path):
    out = tmp_path / "scored"
    proc = subprocess.run([sys.executable, str(REPO / "examples/score_generations.py"), str(out)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Cohen's kappa 1.0" in proc.stdout
    assert (out / "pixel/evaluation_results_round1_latest.json").is_file()
    assert (out / "judge/summary.json").is_file() and list((out / "logs").glob("*.log"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scored"]
