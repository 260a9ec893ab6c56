"""Batch runs of the pixel evaluators through both CLIs: output files, round suffix, error records, resume, workers."""

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from maze_envs.cli import main
from maze_envs.core.render import ImageStyle
from maze_envs.evaluators.pixel.synthetic import write_synthetic_dataset
from maze_envs.runs.socket_dir import socket_temp_dir
from maze_envs.tasks.spec import task_specs

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture()
def dataset(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    specs = task_specs(["dfs", "wilson"], ["easy"], 2, seed=3)
    cases = write_synthetic_dataset(tmp_path, specs, style=ImageStyle(20, 5), frames=24,
                                    video_cases=("correct", "through_wall", "still", "detour"))
    return tmp_path, cases


def _latest(folder: Path, round_name: str = "round1") -> dict:
    return json.loads((folder / f"evaluation_results_{round_name}_latest.json").read_text())


def test_eval_image_writes_spec_outputs_and_expected_verdicts(dataset):
    root, cases = dataset
    out = root / "img_out"
    assert main(["eval-image", "--input_dir", str(root / "image_results/synthetic/easy_round1"),
                 "--solution_dir", str(root / "data/solution"), "--output_dir", str(out),
                 "--model_name", "synthetic"]) == 0
    payload = _latest(out)
    assert len(list(out.glob("evaluation_results_round1_2*.json"))) == 1
    assert (out / "evaluation_results_round1_incremental.json").is_file()
    assert len(list((out / "visualizations").glob("*_round1_evaluation.png"))) == 4
    assert list((root / "evaluation_logs").glob("maze_vis_evaluation_*.log"))
    by_name = {r["filename"]: r for r in payload["results"]}
    assert payload["summary"]["evaluated"] == 4 and payload["summary"]["errors"]["count"] == 0
    for name, case in cases.items():
        if not name.endswith(".png"):
            continue
        record = by_name[name]
        assert record["grid"]["source"] == "metadata"
        assert record["wall_crossing_detected"] == (case == "through_wall")
        if case == "correct":
            assert record["target_achievement"] == 1.0
        if case == "missing_markers":
            assert not record["green_position_match"]
    assert "gated_metrics" not in payload["summary"]


def test_eval_video_outputs_gates_and_per_video_results(dataset, capsys):
    root, cases = dataset
    out = root / "vid_out"
    assert main(["eval-video", "--input-dir", str(root / "video_results/synthetic/easy_round1"),
                 "--solution-dir", str(root / "data/solution"), "--output-dir", str(out),
                 "--num_frames", "24", "--workers", "2"]) == 0
    payload = _latest(out)
    assert payload["model_name"] == "veo3" and payload["config"]["num_frames"] == 24
    summary = payload["summary"]
    assert summary["video_specific"]["avg_frames_with_marker"] == 24
    expected_pass = {name: case in ("correct", "detour") for name, case in cases.items() if name.endswith(".mp4")}
    for record in payload["results"]:
        assert record["overall_score_gated"] == int(expected_pass[record["filename"]])
        per_file = out / f"{Path(record['filename']).stem}_round1_result.json"
        assert json.loads(per_file.read_text())["overall_score_gated"] == record["overall_score_gated"]
    assert summary["gated_metrics"]["overall_score_gated_count"] == sum(expected_pass.values())
    assert list((root / "evaluation_logs").glob("maze_video_vis_evaluation_*.log"))
    assert "overall_score_gated rate" in capsys.readouterr().out


def test_bad_files_get_error_records_and_the_batch_goes_on(dataset):
    root, _ = dataset
    videos = root / "video_results/synthetic/easy_round1"
    (videos / "dfs_easy_9x9_n099_var1_fixed_both.mp4").write_bytes(b"\x00" * 100)  # no solution, unreadable
    (videos / "broken.mp4").write_text("not a video")
    solutions = sorted((root / "data/solution").glob("*_solution.png"))
    (root / "data/solution/broken_solution.png").write_bytes(solutions[0].read_bytes())
    out = root / "vid_out"
    assert main(["eval-video", "--input_dir", str(videos), "--solution_dir", str(root / "data/solution"),
                 "--output_dir", str(out), "--num_frames", "12", "--no_visualizations"]) == 0
    payload = _latest(out)
    errors = {r["filename"]: r["error"] for r in payload["results"] if "error" in r}
    assert set(errors) == {"dfs_easy_9x9_n099_var1_fixed_both.mp4", "broken.mp4"}
    assert "solution image not found" in errors["dfs_easy_9x9_n099_var1_fixed_both.mp4"]
    assert "broken.mp4" in errors["broken.mp4"]
    assert payload["summary"]["errors"]["count"] == 2 and payload["summary"]["evaluated"] == 4
    assert not (out / "visualizations").exists()


def test_undetectable_grid_is_an_error_record(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gen").mkdir()
    (tmp_path / "sol").mkdir()
    blank = np.full((60, 60, 3), 255, np.uint8)
    cv2.imwrite(str(tmp_path / "gen/x_targeted_solution.png"), blank)
    cv2.imwrite(str(tmp_path / "sol/x_solution.png"), blank)
    assert main(["eval-image", "--input_dir", str(tmp_path / "gen"), "--solution_dir", str(tmp_path / "sol"),
                 "--output_dir", str(tmp_path / "out")]) == 0
    record = json.loads((tmp_path / "out/evaluation_results_latest.json").read_text())["results"][0]
    assert "x_solution.png" in record["error"] and "wall/free contrast" in record["error"]


def test_resume_skips_files_already_scored(dataset):
    root, _ = dataset
    args = ["eval-image", "--input_dir", str(root / "image_results/synthetic/easy_round1"),
            "--solution_dir", str(root / "data/solution"), "--output_dir", str(root / "out"), "--no_visualizations"]
    assert main(args) == 0
    log = root / "out/evaluation_log_round1.jsonl"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    dropped = lines.pop()
    lines[0]["overall_score"] = -42.0  # marks a kept record: resume must not rescore it
    log.write_text("".join(json.dumps(r) + "\n" for r in lines) + '{"id": "torn", "sta')
    assert main(args + ["--resume"]) == 0
    results = {r["filename"]: r for r in _latest(root / "out")["results"]}
    assert len(results) == 4 and dropped["filename"] in results
    assert results[lines[0]["filename"]]["overall_score"] == -42.0
    assert results[dropped["filename"]]["overall_score"] == dropped["overall_score"]
    assert all("id" not in r and "status" not in r for r in results.values())
    incremental = json.loads((root / "out/evaluation_results_round1_incremental.json").read_text())
    assert incremental["completed"] == 4


def test_a_second_run_on_the_same_output_dir_is_refused_naming_the_holder(dataset, capsys):
    from maze_envs.runs import RunLock

    root, _ = dataset
    with RunLock(root / "out"):
        assert main(["eval-image", "--input-dir", str(root / "image_results/synthetic/easy_round1"),
                     "--solution-dir", str(root / "data/solution"), "--output-dir", str(root / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "in use by another run" in err and "pid" in err


def test_ray_backend_gives_the_records_of_the_local_backend(dataset):
    ray = pytest.importorskip("ray")
    root, _ = dataset
    common = ["--input-dir", str(root / "video_results/synthetic/easy_round1"), "--solution-dir",
              str(root / "data/solution"), "--no-visualizations", "--num-frames", "12"]
    assert main(["eval-video", *common, "--output-dir", str(root / "local"), "--workers", "2"]) == 0
    with socket_temp_dir() as temp:  # a short path: Ray's socket paths under pytest's tmp dir can pass 107 bytes
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
                 _temp_dir=temp, runtime_env={"env_vars": {"PYTHONPATH": str(REPO)}})
        try:
            assert main(["eval-video", *common, "--output-dir", str(root / "ray"), "--backend", "ray",
                         "--workers", "2"]) == 0
        finally:
            ray.shutdown()

    def records(folder: str) -> list[dict]:
        return [{k: v for k, v in r.items() if k != "elapsed_s"} for r in _latest(root / folder)["results"]]

    assert records("ray") == records("local") and len(records("ray")) == 4


def test_single_file_and_module_entry_point(dataset):
    root, cases = dataset
    name = next(n for n, c in cases.items() if c == "correct" and n.endswith(".png"))
    proc = subprocess.run(
        [sys.executable, "-m", "maze_envs.evaluators.pixel.image",
         "--single", str(root / "image_results/synthetic/easy_round1" / name),
         "--solution_dir", str(root / "data/solution"), "--output_dir", str(root / "single")],
        cwd=root, capture_output=True, text=True, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout[: proc.stdout.rindex("}") + 1])
    assert record["filename"] == name and record["target_achievement"] == 1.0


def test_bad_flags_exit_2_with_a_one_line_message(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["eval-image", "--input_dir", str(tmp_path / "nope")]) == 2
    assert "--input-dir" in capsys.readouterr().err
    assert main(["eval-video", "--input_dir", str(tmp_path), "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err
    cv2.imwrite(str(tmp_path / "x.png"), np.zeros((8, 8, 3), np.uint8))
    assert main(["eval-image", "--input_dir", str(tmp_path), "--solution_dir", str(tmp_path / "none"),
                 "--output_dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--solution-dir" in err and str(tmp_path / "none") in err
    assert not (tmp_path / "out").exists()
    assert main(["eval-image", "--input_dir", str(tmp_path), "--solution_dir", str(tmp_path),
                 "--metadata", str(tmp_path / "no_metadata.jsonl"), "--output_dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--metadata" in err and "no_metadata.jsonl" in err


def test_single_file_that_cannot_be_scored_exits_1_with_its_error_record(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sol").mkdir()
    cv2.imwrite(str(tmp_path / "sol/clip_solution.png"), np.full((60, 60, 3), 255, np.uint8))
    (tmp_path / "clip.mp4").write_text("not a video")
    assert main(["eval-video", "--single", str(tmp_path / "clip.mp4"), "--solution_dir", str(tmp_path / "sol"),
                 "--output_dir", str(tmp_path / "out"), "--no_visualizations"]) == 1
    out = capsys.readouterr().out
    record = json.loads(out[: out.rindex("}") + 1])
    assert record["filename"] == "clip.mp4" and "clip_solution.png" in record["error"]


@pytest.mark.parametrize("flag", ["--dilation_size", "--wall_erosion"])
def test_pixel_sizes_below_one_are_refused(flag, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["eval-video", "--input_dir", str(tmp_path), flag, "-3"]) == 2
    assert flag.replace("_", "-") in capsys.readouterr().err


def test_a_folder_with_no_generated_files_is_an_error_naming_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    assert main(["eval-video", "--input-dir", str(tmp_path / "empty"), "--solution-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--input-dir" in err and str(tmp_path / "empty") in err and ".mp4" in err


@pytest.mark.timeout(600)
def test_eval_video_on_ray_gives_the_same_records_from_the_repository_root_and_from_elsewhere(dataset):
    """Tasks pickled in a checkout carry ``maze_envs.`` names, which Ray's workers import wherever the run starts."""
    pytest.importorskip("ray")
    root, _ = dataset

    def run_from(cwd: Path, name: str) -> list[dict]:
        out = root / name
        with socket_temp_dir() as temp:
            done = subprocess.run(
                [sys.executable, "-m", "maze_envs", "eval-video", "--input-dir",
                 str(root / "video_results/synthetic/easy_round1"), "--solution-dir", str(root / "data/solution"),
                 "--output-dir", str(out), "--log-dir", str(root / f"logs-{name}"), "--no-visualizations",
                 "--num-frames", "12", "--backend", "ray", "--workers", "2"],
                cwd=cwd, env={**os.environ, "TMPDIR": temp, "RAY_TMPDIR": temp}, capture_output=True, text=True,
                timeout=500, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        results = _latest(out)["results"]
        assert not any("error" in record for record in results), results
        return [{k: v for k, v in r.items() if k != "elapsed_s"} for r in results]

    assert run_from(REPO, "from-root") == run_from(root, "from-elsewhere")


@pytest.mark.parametrize("kind", ["image", "video"])
def test_a_missing_single_file_writes_nothing(kind, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sol").mkdir()
    assert main([f"eval-{kind}", "--single", "missing.png", "--solution_dir", "sol"]) == 2
    assert "--single" in capsys.readouterr().err
    assert not (tmp_path / "evaluation_logs").exists() and not (tmp_path / "evaluation_results").exists()
    assert main([f"eval-{kind}", "--input_dir", "nope", "--solution_dir", "sol"]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sol"]


def test_single_without_output_dir_prints_its_result_and_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    (tmp_path / "sol").mkdir()
    cv2.imwrite(str(tmp_path / "sol/clip_solution.png"), np.full((60, 60, 3), 255, np.uint8))
    (tmp_path / "clip.mp4").write_text("not a video")
    for _ in range(2):  # a second run finds nothing in its way
        assert main(["eval-video", "--single", "clip.mp4", "--solution_dir", "sol"]) == 1
        out = capsys.readouterr().out
        assert json.loads(out[: out.rindex("}") + 1])["filename"] == "clip.mp4"
        assert "results: not kept (give --output-dir to keep them)" in out and "log:" not in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clip.mp4", "sol", "tmp"]
    assert list((tmp_path / "tmp").iterdir()) == []
