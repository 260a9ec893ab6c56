"""Procedural navigation scenes from the maze core: maps, Gaussians and trajectories agree with each other."""

import json

import numpy as np
import pytest

from maze_envs.cli import main
from maze_envs.core.mazefile import maze_from_dict
from maze_envs.core.solve import path_length
from maze_envs.datasets import generate_nav_scenes
from maze_envs.nav.camera import view_from_pose
from maze_envs.nav.ply import read_ply
from maze_envs.nav.procedural import LANDMARKS, MAX_PROTOCOL_DILATION, SceneParams
from maze_envs.nav.scene import GaussianScene

PARAMS = SceneParams(surfel_spacing=0.25, num_landmarks=2, num_trajectories=3)


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    root = tmp_path_factory.mktemp("nav")
    summaries = generate_nav_scenes(root, 2, 3, 4, seed=11, params=PARAMS).records
    return root, summaries


def test_layout_on_disk(scenes):
    root, summaries = scenes
    scene = GaussianScene(root)
    assert scene.summary()["episode_ids"] == ["maze_000", "maze_001"] and scene.total_tasks == 6
    ep = scene.get_episode(0)
    assert ep.has_map_data() and (root / "maze_000" / "gs" / "0" / "point_cloud.ply").is_file()
    # 3x4 cells of 2.0 m with 0.2 m walls: 9.0 m along x, 6.8 m along y, 0.05 m per pixel
    assert ep.occ_map.shape == (136, 180) and ep.get_meter_per_pixel() == pytest.approx(0.05)
    assert np.all(ep.height_map == 0.0)
    assert len(read_ply(root / "maze_000" / "gs" / "0" / "point_cloud.ply")) == summaries[0]["num_gaussians"]


def test_occupancy_follows_the_block_grid(scenes):
    root, summaries = scenes
    ep = GaussianScene(root).get_episode(0)
    maze = maze_from_dict(summaries[0]["maze"])
    blocks = maze.to_blocks()
    edges = np.concatenate([[0.0], np.cumsum(np.where(np.arange(blocks.shape[1]) % 2 == 0, 0.2, 2.0))])
    y_edges = np.concatenate([[0.0], np.cumsum(np.where(np.arange(blocks.shape[0]) % 2 == 0, 0.2, 2.0))])
    landmark_cells = {tuple(lm["cell"]) for lm in summaries[0]["landmarks"]}
    for r in range(blocks.shape[0]):
        for c in range(blocks.shape[1]):
            x = 0.5 * (edges[c] + edges[c + 1])
            y = y_edges[-1] - 0.5 * (y_edges[r] + y_edges[r + 1])
            hit = GaussianScene.check_point_collision_status({"x": x, "y": y}, ep, robot_radius_pixel=0)
            is_landmark = r % 2 == 1 and c % 2 == 1 and ((r - 1) // 2, (c - 1) // 2) in landmark_cells
            assert hit == bool(blocks[r, c] or is_landmark), (r, c)


def test_wall_surfels_sit_on_the_dilated_occupancy_boundary(scenes):
    root, summaries = scenes
    ep = GaussianScene(root).get_episode(0)
    ep.dilate_free_space_by_meter(MAX_PROTOCOL_DILATION)
    cloud = read_ply(root / "maze_000" / "gs" / "0" / "point_cloud.ply")
    w, x, y, z = cloud.quats.T.astype(float)
    normals = np.stack([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)], axis=1)
    vertical = np.abs(normals[:, 2]) < 1e-3
    assert vertical.sum() > 100 and np.allclose(cloud.scales[:, 2], 0.002, atol=1e-6)
    for lm in summaries[0]["landmarks"]:  # landmarks keep their small footprint, which the dilation removes
        vertical &= np.abs(cloud.means[:, :2] - lm["position"]).max(axis=1) > lm["size"] / 2 + 0.01
    fronts = []
    for centre, n in zip(cloud.means[vertical][::7], normals[vertical][::7], strict=False):
        front = {"x": centre[0] + 0.12 * n[0], "y": centre[1] + 0.12 * n[1]}
        behind = {"x": centre[0] - 0.06 * n[0], "y": centre[1] - 0.06 * n[1]}
        fronts.append(GaussianScene.check_point_collision_status(front, ep, 0))
        assert GaussianScene.check_point_collision_status(behind, ep, 0)
    assert np.mean(fronts) < 0.15  # free in front of a wall, but in the corners the dilation rounds off
    assert np.allclose(cloud.opacities, 0.95, atol=1e-4)


@pytest.mark.parametrize("wall_metres", [0.02, 0.2, 0.6])
@pytest.mark.parametrize("dilation", [0.0, 0.2, 0.5])
def test_walls_stay_closed_after_the_protocol_dilation(tmp_path, wall_metres, dilation):
    params = SceneParams(wall_metres=wall_metres, surfel_spacing=0.5, num_landmarks=1, num_trajectories=1)
    summary = generate_nav_scenes(tmp_path, 1, 3, 4, seed=3, params=params).records[0]
    maze = maze_from_dict(summary["maze"])
    ep = GaussianScene(tmp_path).get_episode(0)
    if dilation:
        ep.dilate_free_space_by_meter(dilation)
    landmark_cells = {tuple(lm["cell"]) for lm in summary["landmarks"]}

    def centre(cell):
        x = cell[1] * (params.cell_metres + wall_metres) + wall_metres + params.cell_metres / 2
        y = (maze.rows - 1 - cell[0]) * (params.cell_metres + wall_metres) + wall_metres + params.cell_metres / 2
        return {"x": x, "y": y}

    for cell in maze.cells():
        for nb in ((cell[0] + 1, cell[1]), (cell[0], cell[1] + 1)):
            if nb[0] >= maze.rows or nb[1] >= maze.cols or {cell, nb} & landmark_cells:
                continue
            crosses = GaussianScene.check_line_collision_fast(centre(cell), centre(nb), ep)
            assert crosses == (not maze.passable(cell, nb)), (cell, nb)


def test_trajectories_are_shortest_collision_free_paths_to_landmarks(scenes):
    root, summaries = scenes
    for ep, summary in zip(GaussianScene(root), summaries, strict=False):
        maze = maze_from_dict(summary["maze"])
        landmarks = {lm["name"]: lm for lm in summary["landmarks"]}
        for task in ep.tasks:
            pts = task.trajectory
            for a, b in zip(pts, pts[1:], strict=False):
                assert not GaussianScene.check_line_collision_fast(a, b, ep)
            assert not any(GaussianScene.check_point_collision_status(p, ep) for p in pts)
            polyline = sum(np.hypot(b["x"] - a["x"], b["y"] - a["y"]) for a, b in zip(pts, pts[1:], strict=False))
            moves = path_length(maze, tuple(task.label["start_cell"]), tuple(task.label["goal_cell"]))
            assert task.label["shortest_path_length"] == pytest.approx(polyline)
            assert polyline == pytest.approx(moves * 2.2 - 0.8)
            goal = landmarks[task.goal_label]
            assert len(maze.neighbours(tuple(goal["cell"]))) == 1  # landmarks stand in dead ends
            end_gap = np.hypot(pts[-1]["x"] - goal["position"][0], pts[-1]["y"] - goal["position"][1])
            assert end_gap == pytest.approx(0.8)
            assert all(p["z"] == pytest.approx(0.65) for p in pts)


def test_end_pose_faces_its_landmark(scenes):
    from maze_envs.nav.service import load_scene_cloud
    from maze_envs.nav.splat import SplatRenderer

    root, summaries = scenes
    ep = GaussianScene(root).get_episode(0)
    task = ep.tasks[0]
    colour = dict(LANDMARKS)[task.goal_label]
    image = SplatRenderer(load_scene_cloud(root / "maze_000")).render(
        view_from_pose(GaussianScene.get_gaussian_pose(task.end_pose)))
    centre = image.rgb[300:340, 340:380].reshape(-1, 3).mean(axis=0)
    assert np.argmax(centre) == np.argmax(colour) and np.abs(centre - np.clip(colour, 0, 1)).max() < 0.2
    assert np.median(image.depth[310:330, 350:370]) == pytest.approx(0.8 - 0.3, abs=0.05)


def test_same_seed_same_scene(tmp_path):
    a = generate_nav_scenes(tmp_path / "a", 1, 3, 3, seed=5, params=PARAMS).records
    b = generate_nav_scenes(tmp_path / "b", 1, 3, 3, seed=5, params=PARAMS).records
    generate_nav_scenes(tmp_path / "c", 1, 3, 3, seed=6, params=PARAMS)
    ply = "maze_000/gs/0/point_cloud.ply"
    assert (tmp_path / "a" / ply).read_bytes() == (tmp_path / "b" / ply).read_bytes()
    assert (tmp_path / "a" / ply).read_bytes() != (tmp_path / "c" / ply).read_bytes()
    assert a[0]["trajectories"] == b[0]["trajectories"]


def test_cli_generate(tmp_path, capsys):
    assert main(["generate", "nav-scenes", "--count", "1", "--rows", "3", "--cols", "3", "--surfel-spacing", "0.3",
                 "--landmarks", "1", "--trajectories", "2", "--seed", "2", "--out", str(tmp_path)]) == 0
    assert "wrote 1 scene " in capsys.readouterr().out
    doc = json.loads((tmp_path / "maze_000" / "traj_1.json").read_text())
    assert doc["label"]["extend"]["goal_label"] in dict(LANDMARKS)
    assert main(["generate", "nav-scenes", "--cell-metres", "0.5", "--out", str(tmp_path)]) == 2
    assert "--cell-metres" in capsys.readouterr().err
    for flags, message in ((["--landmarks", "0"], "--landmarks"), (["--surfel-spacing", "0"], "--surfel-spacing"),
                           (["--pixel-metres", "-1"], "--pixel-metres"), (["--wall-height", "nan"], "--wall-height"),
                           (["--trajectories", "-1"], "--trajectories"),
                           (["--count", "0"], "--count"), (["--rows", "0"], "--rows")):
        assert main(["generate", "nav-scenes", *flags, "--out", str(tmp_path / "bad")]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err
