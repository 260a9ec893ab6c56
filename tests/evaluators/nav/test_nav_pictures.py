"""The trajectory pictures of a navigation run: a random walk that leaves the map is drawn where it went (the
picture grows to hold every point, the map's edge outlined), and the legend is readable beside the picture."""

import cv2
import numpy as np

from maze_envs.core.paths import read_image
from maze_envs.evaluators.nav.pictures import draw_episode

_SIDE_PX, _SIDE_M = 40, 4.0  # a 4 m square map at 0.1 m a pixel, world y growing upwards
_ORANGE, _BLUE, _EDGE = (14, 127, 255), (180, 119, 31), (60, 60, 60)  # BGR: the second and first task, map edge


def _map(tmp_path):
    folder = tmp_path / "scenes" / "maze_000"
    (folder / "map").mkdir(parents=True)
    occ = np.full((_SIDE_PX, _SIDE_PX), 255, np.uint8)
    occ[:2], occ[-2:], occ[:, :2], occ[:, -2:] = 0, 0, 0, 0
    cv2.imwrite(str(folder / "map" / "occ_map.png"), occ)
    (folder / "map" / "occ_map_meta.txt").write_text(
        f"Top Left: (0.0, {_SIDE_M})\nTop Right: ({_SIDE_M}, {_SIDE_M})\nBottom Left: (0.0, 0.0)\n"
        f"Bottom Right: ({_SIDE_M}, 0.0)\nImage size in pixels: {_SIDE_PX}, {_SIDE_PX}\n")
    return str(folder)


def _result(map_dir, task, trajectory, status="max_steps", success=False):
    return {"episode_id": "maze_000", "task_id": task, "status": status, "success": success, "map_dir": map_dir,
            "trajectory": trajectory, "goal_world": [3.0, 3.0],
            "metrics": {"pointgoal_arrive_threshold": 0.5, "collision_steps": [2]}}


def _near(picture, colour, tolerance=40):
    return np.all(np.abs(picture.astype(int) - colour) <= tolerance, axis=2)


def test_a_walk_off_the_map_is_drawn_whole_and_the_legend_is_readable(tmp_path):
    map_dir = _map(tmp_path)
    rng = np.random.default_rng(0)
    walk = [[1.0, 1.0]] + (np.array([1.0, 1.0]) + np.cumsum(rng.normal([-0.6, -0.2], 0.3, (30, 2)), 0)).tolist()
    assert min(x for x, _ in walk) < -5 and min(y for _, y in walk) < 0  # leaves the map left and below
    results = [_result(map_dir, "traj_0", [[2.0, 2.0], [2.5, 2.5], [3.0, 3.0]], "stop", True),
               _result(map_dir, "traj_1", walk)]
    picture = read_image(draw_episode(results, tmp_path / "out" / "trajectories.png"))
    height, width = picture.shape[:2]

    panel = int(np.argmax(np.all(picture == 255, axis=(1, 2))))  # the legend: the first all-white row on
    assert panel > 0 and not np.all(picture[:panel] == 255, axis=(1, 2)).any()
    view = picture[:panel]
    walls = np.argwhere(np.all(view == 90, axis=2))  # the map's wall ring: where the map lies in the picture
    (top, left), (bottom, right) = walls.min(0), walls.max(0) + 1
    assert right - left == bottom - top and (view[top - 1, left:right] == _EDGE).all()  # outlined
    orange = _near(view, _ORANGE)
    for x, y in walk:  # every point drawn where it is, on the map or off it, inside the picture
        cx = left + x / _SIDE_M * (right - left)
        cy = top + (_SIDE_M - y) / _SIDE_M * (bottom - top)
        assert 0 <= cx < width and 0 <= cy < panel, (x, y)
        near = orange[max(0, round(cy) - 5):round(cy) + 6, max(0, round(cx) - 5):round(cx) + 6]
        assert near.any(), (x, y)
    assert not orange[[0, -1]].any() and not orange[:, [0, -1]].any()  # never cut at the picture's edge
    assert _near(view[:, :left], (245, 228, 206), 2).any()  # the ground off the map is shaded

    ink = np.all(picture[panel:] < 80, axis=2)
    rows = np.flatnonzero(ink.any(axis=1))
    first_line = rows[: int(np.argmax(np.diff(rows) > 1))]  # the first legend line: the tasks' labels
    assert first_line[-1] - first_line[0] + 1 >= 0.025 * max(height, width)
    assert _near(picture[panel:], _BLUE).any() and _near(picture[panel:], _ORANGE).any()  # a swatch per task


def test_a_walk_on_the_map_fills_the_picture_with_the_map(tmp_path):
    map_dir = _map(tmp_path)
    results = [_result(map_dir, "traj_0", [[1.0, 1.0], [2.0, 2.5], [3.0, 3.0]], "stop", True)]
    picture = read_image(draw_episode(results, tmp_path / "trajectories.png", min_side=640))
    panel = int(np.argmax(np.all(picture == 255, axis=(1, 2))))
    assert (panel, picture.shape[1]) == (640, 640)  # 16 px a map pixel, as before: nothing grown, no outline
    assert not np.all(picture[:panel] == _EDGE, axis=2).any()
    assert not _near(picture[:panel], (245, 228, 206), 2).any()
