"""The VLM navigation agent against the local model server (real HTTP, real openai client)."""

import json
import re
from pathlib import Path

import pytest

from maze_envs.agents.nav.vlm import VLMPoiGoalAgent, VLMPointGoalAgent, parse_reply
from maze_envs.evaluators.nav.loop import ensure_procedural_scenes, run_evaluation
from maze_envs.evaluators.nav.poi_goal.evaluator import PoiGoalEvalConfig
from maze_envs.evaluators.nav.point_goal.evaluator import make_eval_config
from maze_envs.llm import ModelServer
from maze_envs.nav.camera import CameraConfig

pytest.importorskip("numba")
CAMERA = CameraConfig(32, 32, 11.2, 11.2, 16, 16)


def test_parse_reply_is_tolerant():
    assert parse_reply('Sure!\n```json\n{"waypoint": [1.5, -0.5], "arrive": false}\n```')[0].tolist() == [[1.5, -0.5]]
    waypoints, arrive = parse_reply('{"waypoints": [[1, 0], [2, 1]], "arrive": "yes"}')
    assert waypoints.tolist() == [[1, 0], [2, 1]] and arrive
    waypoints, arrive = parse_reply("I think waypoint: [0.8, 0.1] and arrive = true")
    assert waypoints.tolist() == [[0.8, 0.1]] and arrive
    assert parse_reply('{"arrive": true}') == (None, True)
    assert parse_reply("no idea") == (None, False)
    assert parse_reply('{"waypoint": "ahead"}')[0] is None


def goal_follower(request):
    """Reply like a chatty model: step along the goal vector given in the prompt, arriving when close."""
    front, left, dist = (float(x) for x in re.search(
        r"goal is at \[([-\d.]+), ([-\d.]+)\], ([\d.]+) m", request.text()).groups())
    assert request.media_count() == 3
    scale = min(1.0, 2.0 / max(dist, 1e-9))
    return (f'Looking at the views... {{"waypoint": [{front * scale:.3f}, {left * scale:.3f}], '
            f'"arrive": {json.dumps(dist < 0.4)}}}')


def test_vlm_agent_runs_point_and_poi_tasks(tmp_path):
    scenes = ensure_procedural_scenes(tmp_path / "scenes", 1, 3, 3, seed=1)
    with ModelServer(goal_follower) as server:
        agent = VLMPointGoalAgent(model="test", base_url=server.base_url, timeout=10)
        run_evaluation(agent, make_eval_config("outdoor", camera_config=CAMERA, save_render_images=False), scenes,
                       run_dir=tmp_path / "point")
        poi = VLMPoiGoalAgent(model="test", base_url=server.base_url, timeout=10)
        run_evaluation(poi, PoiGoalEvalConfig(camera_config=CAMERA, save_render_images=False, collision_mode="soft"),
                       scenes, run_dir=tmp_path / "poi")
        assert server.request_count > 4
    for run in ("point", "poi"):
        results = [json.loads(p.read_text()) for p in Path(tmp_path / run).glob("*/*/result.json")]
        assert len(results) == 4 and all(r["status"] in ("stop", "max_steps") for r in results)
        assert all(r["metrics"]["min_distance_to_goal"] < 2.0 for r in results)
