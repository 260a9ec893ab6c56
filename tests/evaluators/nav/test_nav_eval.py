"""The navigation evaluation loop, metrics and CLI on procedural scenes with the embedded renderer."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from maze_envs.agents.nav.oracle import OraclePoiGoalAgent, OraclePointGoalAgent
from maze_envs.agents.nav.random_agent import RandomPointGoalAgent, RandomWalkPointGoalAgent
from maze_envs.cli import main
from maze_envs.evaluators.nav.loop import ensure_procedural_scenes, run_evaluation
from maze_envs.evaluators.nav.poi_goal.evaluator import PoiGoalEvalConfig
from maze_envs.evaluators.nav.poi_goal.metrics import analyze_and_report as poi_report
from maze_envs.evaluators.nav.point_goal.evaluator import PointGoalEvaluator, make_eval_config
from maze_envs.evaluators.nav.point_goal.metrics import analyze_and_report as point_report
from maze_envs.nav.camera import CameraConfig

pytest.importorskip("numba")
REPO = Path(__file__).resolve().parents[3]
CAMERA = CameraConfig(32, 32, 11.2, 11.2, 16, 16)
POINT_RESULT_KEYS = {"episode_id", "task_id", "status", "steps", "travel_length", "shortest_path_length",
                     "distance_to_goal", "success", "metrics"}
POINT_METRIC_KEYS = {"success_new", "spl_new", "tcr_new", "dcr_new", "path_collision_count", "collision_path_length",
                     "total_distance", "is_path_collided"}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    return ensure_procedural_scenes(tmp_path_factory.mktemp("navscenes") / "scenes", 5, 3, 3, seed=7)


def _config(**overrides):
    return make_eval_config("outdoor", camera_config=CAMERA, save_render_images=False, provide_occ_map=True,
                            **overrides)


def _results(run_dir):
    return [json.loads(p.read_text()) for p in sorted(Path(run_dir).glob("*/*/result.json"))]


def test_oracle_succeeds_and_results_carry_the_spec_fields(scenes, tmp_path):
    outcome = run_evaluation(OraclePointGoalAgent(), _config(), scenes, run_dir=tmp_path)
    results = _results(tmp_path)
    assert outcome.total == len(results) == 20 and outcome.errors == 0
    assert all(POINT_RESULT_KEYS <= set(r) and POINT_METRIC_KEYS <= set(r["metrics"]) for r in results)
    summary = point_report(tmp_path, "outdoor", quiet=True)
    assert summary["overall"]["success_rate"] >= 0.95 and summary["overall"]["spl_new"] >= 0.9
    assert {"task_type", "result_dir", "mode", "collision_threshold", "total_count", "status_distribution",
            "distance_config", "overall", "groups"} <= set(summary)
    assert set(summary["groups"]) >= {"short", "medium", "long"}
    assert json.loads((tmp_path / "eval_summary.json").read_text())["overall"]["sr_new"] == summary["overall"]["sr_new"]


def test_random_agents_stay_low(scenes, tmp_path):
    run_evaluation(RandomWalkPointGoalAgent(seed=0), _config(max_steps=20), scenes, run_dir=tmp_path / "walk")
    walk = point_report(tmp_path / "walk", "outdoor", quiet=True)["overall"]
    assert walk["success_rate"] <= 0.3
    run_evaluation(RandomPointGoalAgent(seed=0), _config(max_steps=40), scenes, run_dir=tmp_path / "ref")
    ref = point_report(tmp_path / "ref", "indoor", quiet=True)["overall"]
    assert ref["sr_new"] <= 0.5  # it heads for the goal through the walls; each crossing is a collision


def test_poi_oracle_and_analysis(scenes, tmp_path):
    config = PoiGoalEvalConfig(camera_config=CAMERA, save_render_images=False, provide_occ_map=True)
    run_evaluation(OraclePoiGoalAgent(), config, scenes, run_dir=tmp_path)
    results = _results(tmp_path)
    assert all({"spl", "metrics"} <= set(r) and {"poi_name", "collision_mode", "collision_count", "has_collision",
                                                 "collision_terminated"} <= set(r["metrics"]) for r in results)
    summary = poi_report(tmp_path, "indoor", quiet=True)
    assert summary["overall"]["success_rate"] >= 0.95 and summary["overall"]["spl"] >= 0.9
    assert {"task_type", "result_dir", "mode", "arrive_threshold", "total_count", "overall", "groups"} <= set(summary)
    assert summary["overall"]["poi_stats"] and summary["overall"]["collision"]["tasks_evaluated"] == len(results)
    assert (tmp_path / "poi_goal_analysis.json").is_file()


def _serve(scenes):
    """Start ``maze-envs serve-render`` on a free port in a child process; return (process, render URL)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "maze_envs", "serve-render", "--scenes-root", str(scenes),
                             "--port", str(port), "--backend", "cpu"], env={**os.environ, "PYTHONPATH": str(REPO)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if requests.get(f"http://127.0.0.1:{port}/ping", timeout=2).ok:
                return proc, f"http://127.0.0.1:{port}/render_gs"
        except requests.RequestException:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("the render server did not start")


def test_render_server_stopped_mid_run_gives_render_error_then_resume_retries(scenes, tmp_path):
    sys.path.insert(0, str(REPO / "tests"))
    from _nav_agents import ServerStopper

    proc, url = _serve(scenes)

    def stop():
        proc.kill()
        proc.wait()

    try:
        config = _config(render_url=url, render_max_retries=0, render_timeout=5)
        outcome = run_evaluation(ServerStopper(stop, calls=1), config, scenes, run_dir=tmp_path)
    finally:
        stop()
    results = _results(tmp_path)
    assert len(results) == outcome.total == 20
    assert results[0]["status"] == "render_error" and url in results[0]["error"]
    assert all(r["status"] == "render_error" for r in results) and outcome.errors == 20
    assert results[0]["metrics"] and results[1]["steps"] == 0
    point_report(tmp_path, "outdoor", quiet=True)  # error files do not break the metrics
    proc, url = _serve(scenes)
    try:
        outcome = PointGoalEvaluator(_config(render_url=url), scenes).evaluate(OraclePointGoalAgent(),
                                                                               resume_dir=tmp_path)
    finally:
        proc.kill()
        proc.wait()
    assert outcome.skipped == 0 and outcome.played == 20
    assert all(r["status"] == "stop" and r["success"] for r in _results(tmp_path))


class BrokenAgent(RandomWalkPointGoalAgent):
    def reset(self):
        raise RuntimeError("no weights")


def test_agent_failures_are_error_results_with_null_distances(scenes, tmp_path):
    outcome = run_evaluation(BrokenAgent(), _config(), scenes, run_dir=tmp_path)
    text = (tmp_path / "maze_000" / "traj_0" / "result.json").read_text()
    result = json.loads(text)
    assert outcome.errors == 20 and result["status"] == "error" and "no weights" in result["error"]
    assert result["distance_to_goal"] is None and '"inf"' not in text and "Infinity" not in text
    assert point_report(tmp_path, "outdoor", quiet=True)["overall"]["avg_final_distance"] is None


def test_killed_run_resumed_loses_no_finished_task(scenes, tmp_path):
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'tests'}"}
    run_dir = tmp_path / "run"
    command = [sys.executable, "-m", "maze_envs", "nav-eval", "--agent-module", "_nav_agents:SlowOracle",
               "--data-dir", str(scenes), "--provide-occ-map", "--camera-width", "32", "--camera-height", "32",
               "--resume-dir", str(run_dir), "--skip-metrics", "--agent-config"]
    (tmp_path / "slow.yaml").write_text("delay: 0.3\n")
    (tmp_path / "fast.yaml").write_text("_base_: slow.yaml\ndelay: 0.0\n")
    proc = subprocess.Popen(command + [str(tmp_path / "slow.yaml")], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while len(list(run_dir.glob("*/*/result.json"))) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finished = {p: p.stat().st_mtime_ns for p in run_dir.glob("*/*/result.json")}
    assert 3 <= len(finished) < 20
    done = subprocess.run(command + [str(tmp_path / "fast.yaml"), "--no-save-render-images"], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"{len(finished)} already finished" in done.stdout
    assert len(list(run_dir.glob("*/*/result.json"))) == 20
    assert all(p.stat().st_mtime_ns == mtime for p, mtime in finished.items())


def test_cli_nav_eval_and_metrics(tmp_path, capsys):
    assert main(["nav-eval", "--agent-module", "maze_envs.agents.nav.oracle:OraclePoiGoalAgent", "--task", "poi",
                 "--provide-occ-map", "--camera-width", "24", "--camera-height", "24", "--scenes", "1",
                 "--maze-size", "3x3", "--output-dir", str(tmp_path), "--enable-visualization"]) == 0
    out = capsys.readouterr().out
    run_dir = next(p for p in tmp_path.iterdir() if p.is_dir())
    assert "POI-goal" in out and (run_dir / "poi_goal_analysis.json").is_file()
    assert (run_dir / "maze_000" / "trajectories.png").is_file()
    assert sorted(p.name for p in (run_dir / "maze_000" / "traj_0" / "render_images").iterdir())[:3] == \
        ["0_front.jpg", "0_left.jpg", "0_right.jpg"]
    assert main(["nav-metrics", "--task", "poi", "--result-dir", str(run_dir), "--per-scene", "--no-pictures"]) == 0
    assert "Per POI" in capsys.readouterr().out
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "maze_envs.cli.nav_metrics", "--task", "poi", "--result-dir",
                           str(run_dir), "--no-pictures"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "POI-goal" in done.stdout
    for flags, flag in ((["--agent-module", "nope"], "--agent-module"),
                        (["--agent-module", "maze_envs.agents.nav.oracle:Missing"], "--agent-module"),
                        (["--agent-module", "os.path:join"], "--agent-module"),
                        (["--agent-module", "maze_envs.agents.nav.oracle:OraclePointGoalAgent", "--agent-config",
                          str(tmp_path / "missing.yaml")], "--agent-config"),
                        (["--agent-module", "maze_envs.agents.nav.oracle:OraclePointGoalAgent", "--max-steps", "0"],
                         "--max-steps")):
        assert main(["nav-eval", *flags, "--output-dir", str(tmp_path / "bad")]) == 2
        err = capsys.readouterr().err
        assert flag in err and "Traceback" not in err
    assert main(["nav-metrics", "--result-dir", str(tmp_path / "absent")]) == 2
    assert "--result-dir" in capsys.readouterr().err
