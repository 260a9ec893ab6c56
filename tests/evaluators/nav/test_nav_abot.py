"""``--protocol abot``: agents written for ABot-Navigation run unchanged and get its numbers.

The expected values here are worked out from ABot-Navigation's documented rules (commit 70411225), written out
in this file; the request strings are the ones its client's ``xyz_euler_trans_gs_colmap`` returns for the poses.
"""

import io
import json
import math
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import requests
from _nav_agents import PilAgent, ScriptAgent, StoppingScriptAgent
from PIL import Image
from scipy.spatial.transform import Rotation

from maze_envs.agents.nav.oracle import OraclePoiGoalAgent
from maze_envs.cli import main
from maze_envs.core.errors import MazeConfigError
from maze_envs.envs.nav.config import build_eval_config, camera_for_size, nav_rules
from maze_envs.envs.nav.motion import abot_predicted_poses, predicted_poses
from maze_envs.evaluators.nav.loop import agent_spec, ensure_procedural_scenes, run_evaluation
from maze_envs.evaluators.nav.pictures import draw_run
from maze_envs.evaluators.nav.poi_goal.metrics import analyze_and_report as poi_report
from maze_envs.evaluators.nav.point_goal.metrics import analyze_and_report as point_report
from maze_envs.nav.camera import CameraConfig, pose_matrix
from maze_envs.nav.client import GaussianRenderer, view_extrinsics
from maze_envs.nav.scene import Episode, GaussianScene
from maze_envs.serving.render import make_server, serve_in_thread

pytest.importorskip("numba")
CAMERA = CameraConfig(16, 16, 5.6, 5.6, 8, 8)
# ABot's client, xyz_euler_trans_gs_colmap for the left (+90), right (-90) and front views of each pose.
ABOT_REQUESTS = {
    (3.0, 3.0, 0.55, 0.0, 0.0, 0.0): [
        "1 0.7071067811596369 0.7071067811596368 6.169080579528984e-06 -6.169080579528985e-06 -3.0000523459278456 "
        "0.5499999999999997 -2.9999476531587743 1 image_1.jpg",
        "1 6.169076157729273e-06 6.169085310779981e-06 -0.7071072879876086 0.7071072879876087 3.000052345927845 "
        "0.5500000000000007 2.9999476531587743 1 image_1.jpg",
        "1 0.5000043633040755 0.5000043633040756 -0.4999956366578473 0.4999956366578473 2.9999476396657063 "
        "0.5500000000000007 -3.0000523594204425 1 image_1.jpg"],
    (2.5, 4.0, 0.65, 0.0, 0.0, math.pi / 2): [
        "1 0.4999956366588221 0.499995636658822 0.5000043633031008 -0.5000043633031007 -3.999956366169373 "
        "0.6499999999999992 2.500069812773456 1 image_1.jpg",
        "1 0.5000043633040755 0.5000043633040756 -0.4999956366578473 0.4999956366578473 3.999956366159626 "
        "0.6500000000000008 -2.5000698127890524 1 image_1.jpg",
        "1 0.7071067811596369 0.7071067811596368 6.169080579528984e-06 -6.169080579528985e-06 -2.5000697947988058 "
        "0.6499999999999995 -3.9999563774039673 1 image_1.jpg"],
    (4.0, 2.5, 0.65, 0.0, 0.0, 0.3): [
        "1 0.6991667328266798 0.6991667328266798 0.1056687262555294 -0.10566872625552937 -4.560146505644896 "
        "0.6500000000000001 -1.2062602733467749 1 image_1.jpg",
        "1 0.10566872625552917 0.10566872625552953 -0.6991667328266813 0.6991667328266815 4.560146505644898 "
        "0.6500000000000002 1.2062602733467753 1 image_1.jpg",
        "1 0.5691046031064292 0.5691046031064293 -0.41966647557682474 0.41966647557682474 1.2062604417714062 "
        "0.6500000000000007 -4.560146461092829 1 image_1.jpg"],
}
# Waypoints in ABot's [right, front] frame, per step; a (N, 2) prediction moves to index 1.
SCRIPT = [([[0.0, 2.0]], None, False), ([[1.0, 1.0], [0.5, 2.5]], [[0.0, 0.0], [0.0, 0.0]], False),
          ([[-1.5, 0.5]], None, False), ([[0.0, 3.0]], [[1.0, 0.0]], False), ([[0.2, 0.0]], None, True)]


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    root = ensure_procedural_scenes(tmp_path_factory.mktemp("abot") / "scenes", 2, 3, 3, seed=11)
    scene = root / "maze_000"
    start = json.loads((scene / "traj_0.json").read_text())["trajectory"][0]
    ahead = [{**start, "x": start["x"] + d * math.cos(start["yaw"]), "y": start["y"] + d * math.sin(start["yaw"])}
             for d in (1.0, 2.0)]
    (scene / "traj_9_reach.json").write_text(json.dumps({"trajectory": [start, *ahead], "label": {}}))
    return root


def _results(run_dir):
    return {(p.parent.parent.name, p.parent.name): json.loads(p.read_text())
            for p in sorted(Path(run_dir).glob("*/*/result.json"))}


def _config(task="point", **overrides):
    settings = dict(camera_config=CAMERA, save_render_images=False, protocol="abot",
                    waypoint_frame="right_front")
    return build_eval_config(task, **{**settings, **overrides})


# --- ABot-Navigation's rules, written out ------------------------------------------------------------------------

def _to_pixel(x, y, meta):
    sx = 1 if meta["TOP_RIGHT_X"] - meta["TOP_LEFT_X"] >= 0 else -1
    sy = 1 if meta["BOTTOM_LEFT_Y"] - meta["TOP_LEFT_Y"] >= 0 else -1
    px = (x - meta["TOP_LEFT_X"]) if sx == 1 else (meta["TOP_LEFT_X"] - x)
    py = (y - meta["TOP_LEFT_Y"]) if sy == 1 else (meta["TOP_LEFT_Y"] - y)
    return int(px * meta["IMAGE_WIDTH"] / meta["COORDINATE_RANGE_X"]), \
        int(py * meta["IMAGE_HEIGHT"] / meta["COORDINATE_RANGE_Y"])


def _line_collides(a, b, occ, meta):
    (u0, v0), (u1, v1) = _to_pixel(a[0, 3], a[1, 3], meta), _to_pixel(b[0, 3], b[1, 3], meta)
    h, w = occ.shape
    dist = np.sqrt((u1 - u0) ** 2 + (v1 - v0) ** 2)
    if dist < 1e-6:
        if not (0 <= u1 < w and 0 <= v1 < h):
            return True
        return bool((occ[max(0, v1 - 2):v1 + 3, max(0, u1 - 2):u1 + 3] < 128).any())
    n = max(2, int(dist / 2.0))
    us, vs = np.linspace(u0, u1, n).astype(int), np.linspace(v0, v1, n).astype(int)
    if ((us < 0) | (us >= w) | (vs < 0) | (vs >= h)).any():
        return True
    return bool((occ[vs, us] < 128).any())


def _collision_length(a, b, occ, meta):
    p0, p1 = a[:2, 3], b[:2, 3]
    total = float(np.linalg.norm(p1 - p0))
    if total < 1e-6:
        return 0.0
    n = max(2, int(total / 0.05))
    xs, ys = np.linspace(p0[0], p1[0], n), np.linspace(p0[1], p1[1], n)
    h, w = occ.shape
    pixels = [_to_pixel(x, y, meta) for x, y in zip(xs, ys, strict=False)]
    blocked = [not (0 <= u < w and 0 <= v < h) or occ[v, u] < 128 for u, v in pixels]
    dists = np.linspace(0, total, n)
    length, enter = 0.0, None
    for d, hit in zip(dists, blocked, strict=False):
        if hit and enter is None:
            enter = d
        elif not hit and enter is not None:
            length += d - enter
            enter = None
    return float(length + (total - enter if enter is not None else 0.0))


def _ground(x, y, episode):
    z, meta = episode.height_map, episode.meta_data
    h, w = z.shape
    px = min(max(int((meta["TOP_LEFT_X"] - x) * w / meta["COORDINATE_RANGE_X"]), 0), w - 1)
    py = min(max(int((y - meta["TOP_LEFT_Y"]) * h / meta["COORDINATE_RANGE_Y"]), 0), h - 1)
    ground = float(z[py][px])
    return 0.0 if ground > 5 else ground


def _pose(point, episode, camera_height):
    pose = np.eye(4)
    pose[:3, :3] = Rotation.from_euler("xyz", [point["roll"], point["pitch"], point["yaw"]]).as_matrix()
    pose[:3, 3] = (point["x"], point["y"], point["z"])
    pose[2, 3] = _ground(pose[0, 3], pose[1, 3], episode) + camera_height
    return pose


def _path_length(xys):
    total = 0.0
    for a, b in zip(xys, xys[1:], strict=False):
        total += np.linalg.norm(np.asarray(b) - np.asarray(a))
    return float(total)


def _abot_task(episode, task, script, max_steps, arrive_threshold=0.5, collision_threshold=3):
    occ, meta = episode.occ_map, episode.meta_data
    points = task.trajectory
    start = _pose(points[0], episode, 0.65)
    goal = np.array([points[-1]["x"], points[-1]["y"]], dtype=np.float32)
    sp = _path_length([(p["x"], p["y"]) for p in points])
    trajectory, cur, prev = [start], start, start
    initial = min_d = float(np.linalg.norm(start[:2, 3] - goal))
    count, coll_len, total, coll_steps, step = 0, 0.0, 0.0, [], 0
    while step < max_steps:
        wp, dirs, arrive = script[min(step, len(script) - 1)]
        wp = np.array(wp, float)
        local = np.stack([wp[:, 1], -wp[:, 0], np.zeros(len(wp))], axis=1)
        world = (cur[:3, :3] @ local.T).T + cur[:3, 3]
        if dirs is not None:
            d3 = (cur[:3, :3] @ np.concatenate([np.array(dirs, float), np.zeros((len(wp), 1))], axis=1).T).T
        else:
            d3 = np.zeros((len(wp), 3))
            for i in range(len(wp)):
                d = world[i + 1] - world[i] if i < len(wp) - 1 else world[i] - (world[i - 1] if i else cur[:3, 3])
                norm = np.linalg.norm(d[:2])
                d3[i] = d / norm if norm > 1e-6 else cur[:3, 0]
        poses = []
        for point, d in zip(world, d3, strict=False):
            pose = np.eye(4)
            pose[:3, :3] = Rotation.from_euler("xyz", [0, 0, np.arctan2(d[1], d[0])]).as_matrix()
            pose[:3, 3] = (point[0], point[1], cur[2, 3])
            pose[2, 3] = _ground(pose[0, 3], pose[1, 3], episode) + 0.65
            poses.append(pose)
        index = 1
        for i, pose in enumerate(poses):
            if float(np.linalg.norm(pose[:2, 3] - goal)) < arrive_threshold:
                index, arrive = i, True
                break
        sel = poses[min(index, len(poses) - 1)]
        total += float(np.linalg.norm(sel[:2, 3] - prev[:2, 3]))
        if _line_collides(prev, sel, occ, meta):
            count += 1
            coll_steps.append(step)
            coll_len += _collision_length(prev, sel, occ, meta)
        prev = cur = sel
        dist = float(np.linalg.norm(sel[:2, 3] - goal))
        min_d = min(min_d, dist)
        trajectory.append(sel)
        step += 1
        if arrive or step >= max_steps:
            break
    success = dist <= arrive_threshold
    travel = _path_length([tuple(p[:2, 3]) for p in trajectory])
    success_new = success and count < collision_threshold
    return {
        "status": "stop" if success else "max_steps", "steps": step, "travel_length": travel,
        "shortest_path_length": sp, "distance_to_goal": dist, "success": success, "oracle_success": success,
        "trajectory": [[float(p[0, 3]), float(p[1, 3])] for p in trajectory],
        "metrics": {
            "initial_distance_to_goal": initial, "min_distance_to_goal": min_d, "final_distance_to_goal": dist,
            "pointgoal_arrive_threshold": arrive_threshold, "success_new": success_new,
            "spl_new": sp / max(travel, sp) if success_new and sp > 0 else 0.0,
            "tcr_new": (step - count) / step if success_new else 0.0,
            "dcr_new": (total - coll_len) / total if success_new and total > 0 else 0.0,
            "path_collision_count": count, "collision_path_length": coll_len, "total_distance": total,
            "is_path_collided": count > 0, "collision_path_ratio": coll_len / total if total > 0 else 0.0,
            "collision_steps": coll_steps},
    }


# --- tests ----------------------------------------------------------------------------------------------------------

def test_agent_using_pil_methods_runs_every_task(scenes, tmp_path):
    outcome = run_evaluation(PilAgent(), build_eval_config(camera_config=CAMERA, save_render_images=False,
                                                           max_steps=3), scenes, run_dir=tmp_path)
    statuses = {r["status"] for r in _results(tmp_path).values()}
    assert outcome.errors == 0 and outcome.played == outcome.total and statuses <= {"stop", "max_steps"}


ABOT_AGENT_FILE = '''
import numpy as np
from abotn_evaluator.interface.point_goal import BasePointGoalAgent, Observation, WaypointPrediction


class StraightAgent(BasePointGoalAgent):
    def __init__(self, step_size=1.0):
        self.step_size = step_size

    def reset(self):
        pass

    def predict(self, obs: Observation) -> WaypointPrediction:
        width, height = obs.images["front"].size
        obs.images["left"].resize((width // 2, height // 2))
        dist = float(np.linalg.norm(obs.target_position))
        direction = obs.target_position / max(dist, 1e-6)
        return WaypointPrediction(waypoint=(direction * min(self.step_size, dist))[None, :], arrive=dist < 0.5,
                                  directions=direction[None, :])
'''


def test_an_abot_agent_file_runs_unchanged(scenes, tmp_path, monkeypatch):
    (tmp_path / "abot_agent.py").write_text(ABOT_AGENT_FILE)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert main(["nav-eval", "--protocol", "abot", "--agent-module", "abot_agent:StraightAgent", "--data-dir",
                     str(scenes), "--camera-width", "16", "--camera-height", "16", "--max-steps", "3",
                     "--output-dir", str(tmp_path / "out"), "--skip-metrics", "--no-save-render-images"]) == 0
        results = list((tmp_path / "out").rglob("result.json"))
        assert len(results) == 9 and {json.loads(p.read_text())["status"] for p in results} <= {"stop", "max_steps"}
    finally:
        for name in ("abot_agent", "abotn_evaluator", "abotn_evaluator.interface",
                     "abotn_evaluator.interface.point_goal", "abotn_evaluator.interface.poi_goal"):
            sys.modules.pop(name, None)


def test_scripted_agent_matches_abot_rules(scenes, tmp_path):
    run_evaluation(ScriptAgent(SCRIPT), _config(max_steps=6), scenes, run_dir=tmp_path)
    results = _results(tmp_path)
    world = GaussianScene(scenes)
    checked = collided = succeeded = 0
    for episode in world:
        episode.dilate_free_space_by_meter(0.5)
        for task in episode.tasks:
            expected = _abot_task(episode, task, SCRIPT, max_steps=6)
            got = results[(episode.episode_id, task.task_id)]
            assert {k: got[k] for k in expected} == expected, (episode.episode_id, task.task_id)
            assert got["target_label"] == "point_goal" and got["gt_taget_instance"] == "point_goal_target"
            checked += 1
            collided += expected["metrics"]["is_path_collided"]
            succeeded += expected["success"]
    assert checked == len(results) and collided and succeeded


def test_zero_direction_faces_world_yaw_zero_under_abot_only():
    current = pose_matrix(1.0, 2.0, 0.65, 0.0, 0.0, 1.0)
    local, zero = np.array([[1.0, 0.0]]), np.array([[0.0, 0.0]])
    assert abs(math.atan2(abot_predicted_poses(current, local, zero)[0][1, 0], 1.0)) < 1e-12
    kept = predicted_poses(current, local, zero)[0]
    assert math.atan2(kept[1, 0], kept[0, 0]) == pytest.approx(1.0)


def test_abot_renders_equal_the_server_answer_to_abot_requests(scenes, tmp_path):
    server = make_server(scenes, "127.0.0.1", 0, backend="cpu")
    serve_in_thread(server)
    try:
        camera = camera_for_size(24, 24, protocol="abot")
        assert (camera.fx, camera.fy, camera.cx, camera.cy) == (252.075, 252.075, 360.0, 320.0)
        url = server.url + "/render_gs"
        renderer = GaussianRenderer(url, camera, request_format="abot", timeout=60)
        for (x, y, z, roll, pitch, yaw), lines in ABOT_REQUESTS.items():
            pose = pose_matrix(x, y, z, roll, pitch, yaw)
            assert [line for _, line in view_extrinsics(pose, 3, "abot")] == lines
            renderer.render_at_pose(pose, "maze_000", save_dir=tmp_path, image_id=0)
            for name, line in zip(("left", "right", "front"), lines, strict=False):
                answer = requests.post(url, json={"cam_extrinsics": line, "cam_intrinsics": camera.intrinsics_colmap,
                                                  "scene_id": "maze_000", "return_depth_img": False,
                                                  "return_depth_npz": False}, timeout=60)
                assert (tmp_path / f"0_{name}.jpg").read_bytes() == answer.content
    finally:
        server.stop()


def test_default_camera_scales_and_centres():
    camera = camera_for_size(128, 128)
    assert (camera.cx, camera.cy) == (64, 64) and camera.fx == pytest.approx(252.075 * 128 / 720)


def test_poi_runs_write_eval_summary_in_both_protocols(scenes, tmp_path):
    for protocol in ("default", "abot"):
        run_dir = tmp_path / protocol
        config = build_eval_config("poi", camera_config=CAMERA, save_render_images=False, provide_occ_map=True,
                                   protocol=protocol)
        outcome = run_evaluation(OraclePoiGoalAgent(), config, scenes, run_dir=run_dir)
        summary = json.loads((run_dir / "eval_summary.json").read_text())
        results = _results(run_dir).values()
        assert outcome.summary_path == run_dir / "eval_summary.json"
        assert summary["task_type"] == "poi_goal" and summary["total_tasks"] == len(results)
        assert summary["success_count"] == sum(r["success"] for r in results)
        assert summary["spl"] == pytest.approx(np.mean([r["spl"] for r in results]))
        analysis = poi_report(run_dir, "indoor", quiet=True, protocol=protocol)
        assert all(group["arrive_threshold"] == 2.0 for group in analysis["groups"].values())
        assert analysis["overall"]["arrive_threshold"] == 2.0


def test_error_tasks_get_abot_records_and_averages(scenes, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(scenes, data)
    shutil.rmtree(data / "maze_001" / "gs")  # its renders fail at every task's start
    for protocol in ("abot", "default"):
        run_dir = tmp_path / protocol
        run_evaluation(ScriptAgent(SCRIPT), _config(max_steps=3, protocol=protocol), data, run_dir=run_dir)
        raw = {key: json.loads(path.read_text()) for key, path in
               ((p.parent.parent.name, p) for p in run_dir.glob("*/*/result.json"))}
        failed = [r for (episode, r) in raw.items() if episode == "maze_001"]
        summary = point_report(run_dir, "outdoor", quiet=True, protocol=protocol)
        if protocol == "abot":
            text = (run_dir / "maze_001" / "traj_0" / "result.json").read_text()
            assert '"distance_to_goal": "inf"' in text
            record = json.loads(text)
            assert {k: v for k, v in record.items()} == {
                "episode_id": "maze_001", "task_id": "traj_0", "status": "error", "target_label": "point_goal",
                "gt_taget_instance": "point_goal_target", "steps": 0, "travel_length": 0.0,
                "shortest_path_length": 0.0, "distance_to_goal": "inf", "success": False, "oracle_success": False,
                "metrics": {}}
            results = [json.loads(p.read_text()) for p in sorted(run_dir.rglob("result.json"))]
            steps = [int(r["steps"]) for r in results]
            initial = [float(r["metrics"].get("initial_distance_to_goal", 0.0)) for r in results]
            assert summary["overall"]["avg_steps"] == float(np.mean(steps))
            assert summary["overall"]["avg_initial_distance"] == float(np.mean(initial))
            assert summary["overall"]["avg_final_distance"] == math.inf
            assert "Infinity" in (run_dir / "eval_summary.json").read_text()
            assert summary["groups"]["out_of_range"]["count"] >= len(failed)
            assert all(float(r["distance_to_goal"]) >= 0 for r in results)  # how ABot's metrics script reads them
            assert [p.parent.name for p in draw_run(run_dir)] == ["maze_000"]
            assert main(["nav-metrics", "--protocol", "abot", "--result-dir", str(run_dir), "--no-pictures",
                         "--output-path", str(tmp_path / "cli_summary.json")]) == 0
            assert json.loads((tmp_path / "cli_summary.json").read_text())["overall"]["avg_final_distance"] == math.inf
        else:
            assert {r["status"] for r in failed} == {"render_error"}
            assert all(r["shortest_path_length"] > 0 and r["distance_to_goal"] > 0 for r in failed)
            assert math.isfinite(summary["overall"]["avg_final_distance"])


def test_render_failing_mid_task_gives_abot_render_error(scenes, tmp_path):
    server = make_server(scenes, "127.0.0.1", 0, backend="cpu")
    serve_in_thread(server)
    try:
        config = _config(render_url=server.url + "/render_gs", render_max_retries=0, render_timeout=60)
        run_evaluation(StoppingScriptAgent(SCRIPT, server.stop), config, scenes, run_dir=tmp_path)
    finally:
        server.stop()
    results = _results(tmp_path)
    first = results[("maze_000", "traj_0")]
    start = GaussianScene(scenes).get_episode(0).tasks[0].trajectory[0]
    goal = GaussianScene(scenes).get_episode(0).tasks[0].trajectory[-1]
    distance = float(np.linalg.norm(np.array([start["x"], start["y"]])
                                    - np.array([goal["x"], goal["y"]], dtype=np.float32)))
    assert {k: first[k] for k in ("status", "steps", "travel_length", "distance_to_goal", "success",
                                  "oracle_success", "metrics")} == {
        "status": "render_error", "steps": 0, "travel_length": 0.0, "distance_to_goal": distance,
        "success": False, "oracle_success": False, "metrics": {}}
    others = [r for key, r in results.items() if key != ("maze_000", "traj_0")]
    assert others and all(r["status"] == "error" and r["distance_to_goal"] == "inf" for r in others)


def test_collision_length_does_not_hinge_on_rounding():
    occ = np.zeros((100, 100), np.uint8)  # all obstacle
    meta = {"TOP_LEFT_X": 0.0, "TOP_LEFT_Y": 0.0, "TOP_RIGHT_X": 10.0, "BOTTOM_LEFT_Y": 10.0, "BOTTOM_LEFT_X": 0.0,
            "BOTTOM_RIGHT_X": 10.0, "IMAGE_WIDTH": 100, "IMAGE_HEIGHT": 100, "COORDINATE_RANGE_X": 10.0,
            "COORDINATE_RANGE_Y": 10.0}
    occ[:, 50:] = 255  # free from x = 5 m
    episode = Episode("e", "", [], occ, None, meta)
    start = pose_matrix(4.0, 5.0, 0.65)
    ends = [pose_matrix(4.0 + d, 5.0, 0.65) for d in (1.3 - 1e-12, 1.3, 1.3 + 1e-12)]
    lengths = [GaussianScene.compute_line_collision_length(start, end, episode) for end in ends]
    assert max(lengths) - min(lengths) < 1e-9 and lengths[1] == pytest.approx(1.0)
    # ABot's rule: int(L / 0.05) evenly spaced samples, 25 just under 1.3 m and 26 at or above it
    abot = [GaussianScene.abot_collision_length(start, end, episode) for end in ends]
    for end, got in zip(ends, abot, strict=False):
        length = float(np.linalg.norm(end[:2, 3] - start[:2, 3]))
        n = max(2, int(length / 0.05))
        xs, dists = np.linspace(4.0, end[0, 3], n), np.linspace(0, length, n)
        assert got == dists[np.argmax(np.floor(xs * 10) >= 50)]
    assert abot[0] != abot[2]


def test_abot_ground_rules():
    meta = {"TOP_LEFT_X": 10.0, "TOP_LEFT_Y": 0.0, "COORDINATE_RANGE_X": 10.0, "COORDINATE_RANGE_Y": 10.0,
            "TOP_RIGHT_X": 0.0, "BOTTOM_LEFT_Y": 10.0, "IMAGE_WIDTH": 10, "IMAGE_HEIGHT": 10}
    heights = np.full((10, 10), 1.5, np.float32)
    heights[:, 0] = 7.0  # x near 10 m: above 5 m, read as 0
    episode = Episode("e", "", [], None, heights, meta)
    assert episode.abot_ground_height(9.5, 5.0) == 0.0 and episode.abot_ground_height(5.0, 5.0) == 1.5
    assert Episode("e", "", [], None, None, None).abot_ground_height(1.0, 1.0) == -0.1


def test_poi_threshold_precedence(tmp_path):
    yaml_file = tmp_path / "agent.yaml"
    yaml_file.write_text("arrive_threshold: 1.0\n")
    module = "maze_envs.agents.nav.oracle:OraclePoiGoalAgent"
    assert agent_spec(module, yaml_file, inject={"arrive_threshold": 3.0}).kwargs["arrive_threshold"] == 1.0
    assert agent_spec(module, yaml_file, inject={"arrive_threshold": 3.0},
                      overwrite=True).kwargs["arrive_threshold"] == 3.0
    with pytest.raises(MazeConfigError, match="agent_config"):
        agent_spec(module, tmp_path / "missing.yaml")


def test_agent_config_error_stops_the_run(scenes, tmp_path, capsys):
    code = main(["nav-eval", "--agent-module", "maze_envs.agents.nav.oracle:OraclePointGoalAgent",
                 "--data-dir", str(scenes),
                 "--camera-width", "16", "--camera-height", "16", "--output-dir", str(tmp_path), "--skip-metrics",
                 "--no-save-render-images"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "--provide-occ-map" in err and len(err.splitlines()) == 1
    assert not list(tmp_path.rglob("result.json"))


def test_nav_eval_help_names_the_protocol(capsys):
    assert main(["nav-eval", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--protocol {default,abot}" in out and "ABot-Navigation" in out


class RaisingAgent(ScriptAgent):
    """Plays its script, then raises on the next prediction (a bug in the agent)."""

    def predict(self, observation):
        if self.step >= 1:
            raise RuntimeError("agent bug: division by zero in the planner")
        return super().predict(observation)


def test_an_agents_exception_text_goes_where_each_protocol_keeps_it(scenes, tmp_path, capsys):
    """ABot's result.json has no field for it: under abot the text goes to the run log and stdout; our default
    keeps it in result.json (and the run log)."""
    for protocol in ("abot", "default"):
        run_dir = tmp_path / protocol
        capsys.readouterr()
        run_evaluation(RaisingAgent(SCRIPT), _config(max_steps=3, protocol=protocol), scenes, run_dir=run_dir)
        printed = capsys.readouterr().out
        result = json.loads(next(run_dir.glob("maze_000/traj_0/result.json")).read_text())
        log = [json.loads(line) for line in (run_dir / "run_log.jsonl").read_text().splitlines()]
        logged = [r for r in log if r.get("episode_id") == "maze_000" and r.get("task_id") == "traj_0"]
        assert result["status"] == "error" and "agent bug" in logged[-1]["error"]
        if protocol == "abot":
            assert "error" not in result and "maze_000/traj_0: error: agent.predict() raised RuntimeError" in printed
        else:
            assert "agent bug: division by zero" in result["error"] and "agent bug" not in printed


@pytest.mark.parametrize("protocol", ["abot", "default"])
def test_saved_renders_are_written_as_the_protocol_saves_them(scenes, tmp_path, protocol):
    """ABot decodes each view and saves it with ``img.save`` (Pillow's JPEG defaults, quality 75); ours writes the
    server's own JPEG bytes."""
    server = make_server(scenes, "127.0.0.1", 0, backend="cpu")
    serve_in_thread(server)
    pose = pose_matrix(3.0, 3.0, 0.55)
    try:
        renderer = GaussianRenderer(server.url + "/render_gs", CAMERA, max_retries=0,
                                    saved_renders=nav_rules(protocol).saved_renders)
        renderer.render_at_pose(pose, "maze_000", save_dir=tmp_path, image_id=4)
        served = {name: requests.post(server.url + "/render_gs", json=renderer.request_body(line, "maze_000"),
                                      timeout=60).content for name, line in view_extrinsics(pose)}
    finally:
        server.stop()
    for name, body in served.items():
        saved = (tmp_path / f"4_{name}.jpg").read_bytes()
        buffer = io.BytesIO()
        Image.open(io.BytesIO(body)).save(buffer, format="JPEG")  # what ABot's client does with the answer
        if protocol == "abot":
            assert saved == buffer.getvalue() and saved != body
        else:
            assert saved == body and saved != buffer.getvalue()


@pytest.mark.parametrize("protocol", ["abot", "default"])
def test_a_nan_waypoint_ends_the_task_as_the_protocol_does(scenes, tmp_path, protocol):
    """ABot moves to the NaN pose and its render request fails: ``render_error`` with the closest distance, the
    steps made and no metrics. Ours refuses the prediction as malformed: an ``error`` record."""
    script = [([[0.0, 2.0]], None, False), ([[float("nan"), 1.0]], None, False)]
    config = _config(max_steps=5, protocol=protocol, waypoint_frame="right_front")
    run_evaluation(ScriptAgent(script), config, scenes, run_dir=tmp_path)
    record = _results(tmp_path)[("maze_000", "traj_0")]
    if protocol == "abot":
        assert {k: record[k] for k in ("status", "steps", "success", "oracle_success", "metrics")} == {
            "status": "render_error", "steps": 1, "success": False, "oracle_success": False, "metrics": {}}
        assert record["travel_length"] == pytest.approx(2.0)
        goal = np.array(record["goal_world"], np.float32)
        reached = [float(np.linalg.norm(np.array(point) - goal)) for point in record["trajectory"]]
        assert len(reached) == 2 and record["distance_to_goal"] == min(reached)
        assert set(record) == {"episode_id", "task_id", "status", "target_label", "gt_taget_instance", "steps",
                               "travel_length", "shortest_path_length", "distance_to_goal", "success",
                               "oracle_success", "metrics", "goal_world", "trajectory", "map_dir",
                               "occ_dilation_meters"}
    else:
        assert record["status"] == "error" and "malformed prediction" in record["error"]
        assert record["steps"] == 1 and "finite" in record["error"]
