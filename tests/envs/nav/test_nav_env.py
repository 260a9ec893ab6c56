"""GaussianNav envs and the protocol session on procedural scenes with the embedded renderer (small views)."""

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import maze_envs  # noqa: F401  (registers the ids)
from maze_envs.core.errors import MazeConfigError
from maze_envs.envs.nav.config import PoiGoalEvalConfig, make_eval_config
from maze_envs.envs.nav.memory import ShortMemory
from maze_envs.envs.nav.motion import local_waypoints, predicted_poses, select_pose
from maze_envs.envs.nav.session import NavSession
from maze_envs.envs.nav.world import camera_for_size, procedural_world
from maze_envs.nav.camera import pose_matrix
from maze_envs.nav.scene import GaussianScene

pytest.importorskip("numba")
SMALL = dict(view_width=48, view_height=48, scenes=2, maze_size=(3, 3))


@pytest.mark.parametrize("env_id", ["GaussianNav-PointGoal-v0", "GaussianNav-PoiGoal-v0"])
def test_check_env_passes_without_warnings(env_id):
    env = gym.make(env_id, render_mode="rgb_array", provide_history=True, provide_occ_map=True,
                   provide_height_map=True, max_history_frames=2, **SMALL)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []
    obs, info = env.reset(seed=1)
    assert obs["images"]["front"].shape == (48, 48, 3) and obs["images"]["front"].dtype == np.uint8
    assert env.render().shape == (48, 144, 3)
    assert ("poi_name" in obs) == env_id.endswith("PoiGoal-v0") and info["status"] is None


def test_walking_the_reference_path_succeeds_and_is_rewarded():
    # The reference path has legs up to 3.6 m: an action space wide enough to take each leg in one step.
    env = gym.make("GaussianNav-PointGoal-v0", max_waypoint_metres=10.0, **SMALL)
    obs, info = env.reset(seed=3)
    task = env.unwrapped.session.task
    total, done = 0.0, False
    for point in task.trajectory[1:]:
        pose = env.unwrapped.session.pose
        local = pose[:2, :2].T @ (np.array([point["x"], point["y"]]) - pose[:2, 3])
        obs, reward, terminated, truncated, info = env.step({"waypoint": local[None].astype(np.float32), "arrive": 0})
        total += reward
        done = terminated or truncated
        assert not info["collided"]
    assert done and info["status"] == "stop" and info["success"] and info["result"]["metrics"]["spl_new"] == 1.0
    assert total > 10.0


def _session(poi=False, **overrides):
    config = PoiGoalEvalConfig(camera_config=camera_for_size(32, 32), **overrides) if poi else \
        make_eval_config("outdoor", camera_config=camera_for_size(32, 32), **overrides)
    world = procedural_world(config, count=1, rows=3, cols=3, seed=2)
    episode, task = world.tasks()[0]
    session = NavSession(episode, task, world.renderer, config)
    session.start()
    return session


def test_waypoint_frames_and_selection():
    assert local_waypoints([1.0, 2.0]).tolist() == [[1.0, 2.0]]
    assert local_waypoints([[1.0, 2.0]], "right_front").tolist() == [[2.0, -1.0]]  # right 1, front 2
    with pytest.raises(MazeConfigError, match="waypoint"):
        local_waypoints([[1.0, np.nan]])
    with pytest.raises(MazeConfigError, match="waypoint"):
        local_waypoints(np.zeros((2, 3)))
    start = pose_matrix(0, 0, 0.65, 0, 0, np.pi / 2)  # facing +y: front is +y, left is -x
    poses = predicted_poses(start, np.array([[1.0, 0.0], [1.0, 1.0]]))
    assert np.allclose(poses[0][:2, 3], [0, 1]) and np.allclose(poses[1][:2, 3], [-1, 1])
    assert np.allclose(poses[0][:2, 0], [-1, 0])  # faces the next waypoint (to its left)
    assert select_pose(poses, np.array([10.0, 10.0]), 0.5, 1) == (1, False)
    assert select_pose(poses, np.array([0.0, 1.2]), 0.5, 1) == (0, True)
    assert select_pose(poses[:1], np.array([10.0, 10.0]), 0.5, 2) == (0, False)


def test_arrival_far_from_the_goal_is_a_failed_stop():
    session = _session()
    session.step([0.0, 0.0], arrive=True)
    result = session.result()
    assert result["status"] == "stop" and not result["success"] and result["steps"] == 1
    assert set(result["metrics"]) >= {"success_new", "spl_new", "tcr_new", "dcr_new", "path_collision_count",
                                      "collision_path_length", "total_distance", "is_path_collided",
                                      "collision_path_ratio", "collision_steps", "initial_distance_to_goal",
                                      "min_distance_to_goal", "final_distance_to_goal", "pointgoal_arrive_threshold"}


def _wall_direction(session):
    """Return a local unit vector from the start straight into a wall (a blocked neighbour cell)."""
    for angle in np.linspace(0, 2 * np.pi, 4, endpoint=False):
        d = np.array([np.cos(angle), np.sin(angle)])
        pose = session.pose
        end = pose.copy()
        end[:2, 3] = pose[:2, 3] + pose[:2, :2] @ (1.6 * d)
        if GaussianScene.check_line_collision_fast(pose, end, session.episode):
            return d
    raise AssertionError("no wall next to the start")


def test_point_goal_counts_one_collision_per_step_and_goes_on():
    session = _session()
    d = _wall_direction(session)
    report = session.step(1.6 * d)
    assert report.collided and not session.done
    metrics = session.result()["metrics"]
    assert metrics["path_collision_count"] == 1 and metrics["collision_steps"] == [0]
    assert 0 < metrics["collision_path_length"] <= 1.6


def test_poi_hard_collision_ends_the_task():
    session = _session(poi=True)
    d = _wall_direction(session)
    session.step(1.1 * d)  # onto the wall between two cells
    result = session.result()
    assert result["status"] == "collision" and not result["success"] and result["metrics"]["collision_terminated"]
    assert "spl" in result and result["metrics"]["collision_count"] == 1
    soft = _session(poi=True, collision_mode="soft")
    soft.step(1.1 * _wall_direction(soft))
    assert not soft.done and soft.result()["metrics"]["has_collision"]


def test_short_memory_keeps_front_views_and_spreads_history():
    memory = ShortMemory(max_history_frames=3, resize_ratio=0.5)
    for i in range(6):
        views = [np.full((8, 8, 3), 10 * i + k, np.uint8) for k in range(3)]  # left, right, front
        assert memory.add_frame(views, np.eye(4) * (i + 1)) == i
    current = memory.get_current_images()
    assert [np.asarray(im)[0, 0, 0] for im in current] == [50, 52, 51]  # left, front, right
    history = memory.get_history_images()
    assert len(history) == 3 and all(im.size == (4, 4) for im in history)
    assert all(np.asarray(im)[0, 0, 0] % 10 == 2 for im in history)  # front views only
    assert memory.get_image_indices()[:3] == [0, 2, 4] and memory.frame_count == 6


def test_sh_degree_reaches_the_embedded_renderer_and_is_checked():
    env = gym.make("GaussianNav-PointGoal-v0", sh_degree=0, **SMALL)
    obs, _ = env.reset(seed=0)
    assert env.unwrapped.world.renderer.sh_degree == 0 and obs["images"]["front"].std() > 0
    env.close()
    with pytest.raises(MazeConfigError, match="sh_degree"):
        gym.make("GaussianNav-PointGoal-v0", sh_degree=4, **SMALL)


def test_a_registered_protocol_plays_its_own_strategies():
    from dataclasses import replace

    from maze_envs.envs.nav.strategies import MOTION, RECORDS
    from maze_envs.protocols import NavRules, Protocol, register_protocol, unregister_protocol

    def always_stop(arrived, at_limit, within):
        return "stop"

    def short_record(session):
        return {"steps": session.steps, "status": session.status}

    nav = NavRules(motion=replace(MOTION, end=always_stop), record=replace(RECORDS, record=short_record))
    register_protocol(Protocol("one-step", "stops after one step", nav=nav))
    try:
        session = _session(protocol="one-step")
        session.step([[0.5, 0.0]])
        assert session.done and session.result() == {"steps": 1, "status": "stop"}
    finally:
        unregister_protocol("one-step")
