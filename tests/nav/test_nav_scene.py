"""Scenes on disk: GaussianScene, Episode and Task, coordinate conversion, collisions and dilation."""

import json
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from maze_envs.nav.errors import NavDataError
from maze_envs.nav.scene import Episode, GaussianScene, Task

W, H = 40, 20  # pixels; 0.2 m per pixel, 8 m x 4 m


def write_map(base, flip_x=False, obstacle_cols=(20, 25)):
    folder = base / "map"
    folder.mkdir(parents=True, exist_ok=True)
    occ = np.full((H, W), 255, np.uint8)
    occ[:, obstacle_cols[0]:obstacle_cols[1]] = 0
    Image.fromarray(occ).save(folder / "occ_map.png")
    Image.fromarray(np.full((H, W), 0.5, np.float32)).save(folder / "occ_map_height.tiff")
    left, right = (18.0, 10.0) if flip_x else (10.0, 18.0)
    (folder / "occ_map_meta.txt").write_text(
        f"Top Left: ({left}, 24.0)\nTop Right: ({right}, 24.0)\nBottom Left: ({left}, 20.0)\n"
        f"Bottom Right: ({right}, 20.0)\nImage size in pixels: {W}, {H}\n")


def write_traj(path, points, goal="Red Kiosk"):
    path.write_text(json.dumps({"trajectory": points, "label": {"extend": {"goal_label": goal}}}))


def pose(x, y, yaw=0.0):
    return {"x": x, "y": y, "z": 0.65, "roll": 0.0, "pitch": 0.0, "yaw": yaw}


@pytest.fixture
def root(tmp_path):
    for name, flip in (("b_scene", True), ("a_scene", False)):
        write_map(tmp_path / name, flip_x=flip)
        write_traj(tmp_path / name / "traj_1.json", [pose(11, 22), pose(12, 22), pose(13, 23)])
        write_traj(tmp_path / name / "traj_0.json", [pose(11, 21)])
    return tmp_path


@pytest.fixture
def episode(root):
    return Episode.from_scene_dir(root / "a_scene")


def test_scene_iteration_and_summary(root):
    scene = GaussianScene(root)
    assert len(scene) == 2 and [e.episode_id for e in scene] == ["a_scene", "b_scene"]
    assert scene.total_tasks == 4
    assert ([(e.episode_id, t.task_id) for e, t in scene.iter_tasks()][:2]
            == [("a_scene", "traj_0"), ("a_scene", "traj_1")])
    assert scene.summary() == {"num_episodes": 2, "total_tasks": 4, "episode_ids": ["a_scene", "b_scene"]}
    assert scene.get_episode(1).episode_id == "b_scene"
    assert scene.get_episode_by_id("b_scene") is scene.get_episode(1) and scene.get_episode_by_id("zzz") is None


def test_episode_fields(episode, root):
    assert episode.scene_path == str((root / "a_scene").resolve())
    assert episode.num_tasks == 2 and episode.has_map_data()
    assert episode.occ_map.dtype == np.uint8 and episode.occ_map.shape == (H, W)
    assert episode.height_map.dtype == np.float32 and episode.height_map[0, 0] == pytest.approx(0.5)
    m = episode.meta_data
    assert (m["TOP_LEFT_X"], m["TOP_LEFT_Y"], m["IMAGE_WIDTH"], m["IMAGE_HEIGHT"]) == (10.0, 24.0, W, H)
    assert (m["COORDINATE_RANGE_X"], m["COORDINATE_RANGE_Y"]) == (8.0, 4.0)
    assert episode.get_meter_per_pixel() == pytest.approx(0.2)
    assert episode.ground_height(12, 22) == pytest.approx(0.5)


def test_task_properties(episode):
    task = episode.tasks[1]
    assert task.task_id == "traj_1" and task.goal_label == "Red Kiosk"
    assert task.start_pose["x"] == 11 and task.end_pose["y"] == 23
    empty = Task("t", [], {})
    assert empty.start_pose is None and empty.end_pose is None and empty.goal_label == ""


def test_local_map_path_overrides_the_map(root, tmp_path_factory):
    maps = tmp_path_factory.mktemp("maps")
    write_map(maps / "a_scene", obstacle_cols=(0, 5))
    scene = GaussianScene(root, local_map_path=maps)
    a = scene.get_episode_by_id("a_scene")
    assert a.occ_map[0, 0] == 0 and a.occ_map[0, 22] == 255
    assert scene.get_episode_by_id("b_scene").occ_map[0, 22] == 0  # no override folder: its own map


@pytest.mark.parametrize("flip", [False, True])
def test_known_pixels(root, flip):
    ep = Episode.from_scene_dir(root / ("b_scene" if flip else "a_scene"))
    corner_x = 17.9 if flip else 10.1
    assert GaussianScene.convert_actual_to_pixel(corner_x, 23.9, ep) == (0, 0)
    assert GaussianScene.convert_actual_to_pixel(14.1 if not flip else 13.9, 20.1, ep) == (20, 19)
    assert GaussianScene.convert_pixel_to_actual(0, 0, ep) == (18.0 if flip else 10.0, 24.0)


@given(px=st.integers(0, W - 1), py=st.integers(0, H - 1), flip=st.booleans())
def test_conversion_round_trip(px, py, flip, tmp_path_factory):
    base = tmp_path_factory.mktemp("rt")
    write_map(base / "s", flip_x=flip)
    ep = Episode.from_scene_dir(base / "s")
    x, y = GaussianScene.convert_pixel_to_actual(px + 0.5, py + 0.5, ep)
    assert GaussianScene.convert_actual_to_pixel(x, y, ep) == (px, py)


def test_point_collisions(episode):
    check = GaussianScene.check_point_collision_status
    assert check(pose(14.5, 22), episode)                      # pixel 22: obstacle
    assert not check(pose(11, 22), episode)                    # free
    assert check(pose(9.0, 22), episode) and check(pose(12, 30), episode)  # outside the map
    near = pose(13.7, 22)                                      # pixel 18, obstacle starts at 20
    assert check(near, episode, robot_radius_pixel=2) and not check(near, episode, robot_radius_pixel=1)
    assert check(GaussianScene.get_gaussian_pose(pose(14.5, 22)), episode)  # 4x4 pose input


@pytest.mark.parametrize("flip", [False, True])
def test_points_less_than_a_pixel_outside_the_map_are_collisions(root, flip):
    ep = Episode.from_scene_dir(root / ("b_scene" if flip else "a_scene"))  # pixel column 0 and row 0 are free
    left_x = 18.05 if flip else 9.95                                      # 0.25 px beyond the left edge
    assert GaussianScene.convert_actual_to_pixel(left_x, 22, ep)[0] == -1
    assert GaussianScene.convert_actual_to_pixel(11 if not flip else 17, 24.05, ep)[1] == -1  # beyond the top
    inside_x = 10.05 if not flip else 17.95
    assert not GaussianScene.check_point_collision_status(pose(inside_x, 22), ep, robot_radius_pixel=0)
    assert GaussianScene.check_point_collision_status(pose(left_x, 22), ep, robot_radius_pixel=0)
    assert GaussianScene.check_point_collision_status(pose(11 if not flip else 17, 24.05), ep, robot_radius_pixel=0)
    assert GaussianScene.check_line_collision_fast(pose(left_x, 21), pose(left_x, 23), ep)
    along_edge = GaussianScene.compute_line_collision_length(pose(left_x, 21), pose(left_x, 23), ep)
    assert along_edge == pytest.approx(2.0)


def test_line_collisions(episode):
    fast = GaussianScene.check_line_collision_fast
    assert fast(pose(11, 22), pose(17, 22), episode)
    assert not fast(pose(11, 21), pose(13, 23), episode)
    assert fast(pose(11, 22), pose(11, 26), episode)  # leaves the map
    assert not fast(pose(11, 22), pose(11, 22), episode)
    length = GaussianScene.compute_line_collision_length(pose(11, 22), pose(17, 22), episode)
    assert length == pytest.approx(1.0, abs=0.06)  # obstacle pixels 20..24 = world x 14.0..15.0
    assert GaussianScene.compute_line_collision_length(pose(11, 21), pose(13, 23), episode) == 0
    assert (GaussianScene.compute_line_collision_length(pose(17, 22), pose(19, 22), episode)
            == pytest.approx(1.0, abs=0.06))


def test_dilation(episode):
    episode.dilate_free_space_by_meter(0.2)  # 1 pixel
    row = episode.occ_map[10]
    assert set(np.unique(episode.occ_map)) <= {0, 255}
    assert (row[21:24] == 0).all() and row[20] == 255 and row[24] == 255
    with pytest.warns(UserWarning, match="skipped"):
        episode.dilate_free_space_by_meter(0.0)
    bare = Episode("x", "/nowhere")
    with pytest.warns(UserWarning):
        bare.dilate_free_space_by_meter(0.5)
    assert bare.get_meter_per_pixel() is None and not bare.has_map_data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        episode.dilate_free_space(1)


def test_gaussian_pose():
    m = GaussianScene.get_gaussian_pose({"x": 1, "y": 2, "z": 3, "roll": 0, "pitch": 0, "yaw": np.pi / 2})
    assert np.allclose(m[:3, 3], [1, 2, 3]) and np.allclose(m[:3, 0], [0, 1, 0]) and np.allclose(m[3], [0, 0, 0, 1])
    down = GaussianScene.get_gaussian_pose({"x": 0, "y": 0, "z": 0, "roll": 0, "pitch": 0.3, "yaw": 0})
    assert down[2, 0] < 0  # positive pitch looks down


def test_list_points_become_level_poses(tmp_path):
    write_traj(tmp_path / "traj_0.json", [[1, 2], [3.5, 4, 0.7]])
    task = Task.from_json(tmp_path / "traj_0.json")
    assert task.trajectory == [{"x": 1.0, "y": 2.0, "z": 0.0, "roll": 0.0, "pitch": 0.0, "yaw": 0.0},
                               {"x": 3.5, "y": 4.0, "z": 0.7, "roll": 0.0, "pitch": 0.0, "yaw": 0.0}]
    assert task.goal_label == "Red Kiosk"


@pytest.mark.parametrize("content, message", [
    ("{not json", "invalid JSON"),
    ('{"label": {}}', "trajectory"),
    ('{"trajectory": [{"x": 1, "y": 2, "z": 0, "roll": 0, "pitch": 0, "yaw": 0}, {"x": 1, "y": 2}]}',
     r"trajectory\[1\]\.z"),
    ('{"trajectory": [], "label": [1]}', "label"),
    ('{"trajectory": [[1, 2, 3, 4]]}', r"trajectory\[0\]"),
    ('{"trajectory": [[1, "a"]]}', r"trajectory\[0\]\.y"),
])
def test_bad_trajectory_json_names_the_file(tmp_path, content, message):
    (tmp_path / "traj_9.json").write_text(content)
    with pytest.raises(NavDataError, match=message) as info:
        Task.from_json(tmp_path / "traj_9.json")
    assert "traj_9.json" in str(info.value)


@pytest.mark.parametrize("text, message", [
    ("Top Left: (0, 4)\nBottom Left: (0, 0)\nImage size in pixels: 10, 10\n", "Bottom Right"),
    ("Top Left: (0, 4)\nBottom Left: (0, 0)\nBottom Right: (4)\nImage size in pixels: 10, 10\n", "line 3"),
    ("Top Left: (0, 4)\nBottom Left: (0, 0)\nBottom Right: (4, 0)\nImage size in pixels: ten\n", "Image size"),
    ("Top Left: (0, 0)\nBottom Left: (0, 0)\nBottom Right: (0, 0)\nImage size in pixels: 10, 10\n", "no area"),
])
def test_bad_metadata_names_the_file(tmp_path, text, message):
    write_map(tmp_path / "s")
    (tmp_path / "s" / "map" / "occ_map_meta.txt").write_text(text)
    with pytest.raises(NavDataError, match=message) as info:
        Episode.from_scene_dir(tmp_path / "s")
    assert "occ_map_meta.txt" in str(info.value)


def test_missing_root(tmp_path):
    with pytest.raises(NavDataError, match="does not exist"):
        GaussianScene(tmp_path / "nope")


def test_missing_map_directory_names_it(root, tmp_path):
    with pytest.raises(NavDataError, match="local_map_path") as info:
        GaussianScene(root, local_map_path=tmp_path / "no_maps")
    assert "no_maps" in str(info.value)
