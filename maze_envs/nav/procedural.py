"""Procedural navigation scenes from the shared maze core: one ``Maze`` becomes a scene directory on disk.

The maze's block grid gives both the occupancy map and the Gaussians, so collisions match what the agent sees.
Cells are ``cell_metres`` wide, walls ``wall_metres`` thick and ``wall_height`` tall. World x grows with the
column, world y grows upward on the map (row 0 is the top, at the largest y); the ground is flat at z = 0.
Walls are brick-textured flat surfels (two large scales, one tiny, normal along the face), the floor a
tiled surfel carpet, and named coloured landmarks ("Red Kiosk", ...) stand in dead-end cells as POI goals.
Each trajectory runs from a free cell to the approach point of a landmark along the maze's shortest path;
its polyline length is the shortest-path length in metres.

The occupancy walls are thicker than the visual ones: each side grows by ``MAX_PROTOCOL_DILATION`` plus one
pixel, and the wall core is at least four pixels, so the navigation protocol's free-space dilation (0.2 m
indoor, 0.5 m outdoor) shrinks them back to at least the visual wall and never opens a gap an agent could walk
through. Landmarks keep their visual footprint (their approach point lies just outside it).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import cv2
import numpy as np
from PIL import Image
from scipy.spatial.transform import Rotation

from maze_envs.core.atomic import atomic_write, save_image_atomic
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.generators import as_rng
from maze_envs.core.jsonfiles import write_json_atomic
from maze_envs.core.maze import Cell, Grid, Maze, cell_to_block
from maze_envs.core.mazefile import maze_to_dict
from maze_envs.core.solve import shortest_path
from maze_envs.core.validate import integer, number, positive_int

from .ply import GaussianCloud, write_ply
from .scene import Episode, Task, parse_meta_text

LANDMARKS: tuple[tuple[str, tuple[float, float, float]], ...] = (
    ("Red Kiosk", (0.86, 0.08, 0.08)), ("Blue Fountain", (0.10, 0.30, 0.92)),
    ("Green Bench", (0.10, 0.70, 0.20)), ("Yellow Sign", (0.96, 0.86, 0.08)),
    ("Purple Statue", (0.60, 0.18, 0.72)), ("Orange Booth", (1.00, 0.50, 0.05)),
    ("Cyan Pillar", (0.08, 0.80, 0.86)), ("Pink Vending Machine", (1.00, 0.45, 0.72)),
)
WALL_PALETTE = np.array([(0.72, 0.66, 0.56), (0.62, 0.62, 0.64), (0.66, 0.45, 0.36), (0.50, 0.56, 0.62),
                         (0.78, 0.74, 0.64), (0.56, 0.52, 0.46)])
CAMERA_HEIGHT = 0.65
MAX_PROTOCOL_DILATION = 0.5
MIN_OCCUPANCY_CORRIDOR = 0.3


@dataclass
class SceneParams:
    """Geometry and sampling of a procedural scene (metres)."""

    cell_metres: float = 2.0
    wall_metres: float = 0.2
    wall_height: float = 2.5
    surfel_spacing: float = 0.12
    pixel_metres: float = 0.05
    num_landmarks: int = 3
    num_trajectories: int = 4

    @property
    def occupancy_half_wall(self) -> float:
        """Return half the thickness (m) of a wall in the occupancy map: the visual half-wall (at least two
        pixels) plus ``MAX_PROTOCOL_DILATION`` plus one pixel, so that dilation never opens a wall."""
        return max(self.wall_metres / 2, 2 * self.pixel_metres) + MAX_PROTOCOL_DILATION + self.pixel_metres

    def check(self) -> None:
        """Raise ``MazeConfigError`` naming the first unusable value."""
        for name in ("cell_metres", "wall_metres", "wall_height", "surfel_spacing", "pixel_metres"):
            number(getattr(self, name), 0, low_open=True, parameter=name)
        if self.cell_metres < 1.0:
            raise MazeConfigError(f"must be at least 1.0 (room for a landmark), got {self.cell_metres}",
                                  parameter="cell_metres")
        corridor = self.cell_metres + self.wall_metres - 2 * self.occupancy_half_wall
        if corridor < MIN_OCCUPANCY_CORRIDOR:
            raise MazeConfigError(
                f"{self.cell_metres} leaves an occupancy corridor of {corridor:.2f} m between walls thickened "
                f"for the protocol's dilation; use at least "
                f"{self.cell_metres + MIN_OCCUPANCY_CORRIDOR - corridor:.2f}", parameter="cell_metres")
        positive_int(self.num_landmarks, parameter="num_landmarks")
        integer(self.num_trajectories, 0, parameter="num_trajectories")


@dataclass
class Landmark:
    """A named coloured box standing in a cell: the POI goal ``name`` at world ``position`` (x, y)."""

    name: str
    colour: tuple[float, float, float]
    cell: Cell
    position: tuple[float, float]
    size: float


@dataclass
class SceneLayout:
    """A maze placed in metres: block edges along x and y (from the top row), walls and landmarks."""

    maze: Maze
    blocks: np.ndarray
    x_edges: np.ndarray
    y_edges: np.ndarray
    params: SceneParams
    landmarks: list[Landmark] = field(default_factory=list)

    @property
    def width(self) -> float:
        """Return the scene's extent along world x (m)."""
        return float(self.x_edges[-1])

    @property
    def depth(self) -> float:
        """Return the scene's extent along world y (m)."""
        return float(self.y_edges[-1])

    def block_centre(self, block: Cell) -> tuple[float, float]:
        """Return world (x, y) of the centre of block (row, col)."""
        r, c = block
        x = 0.5 * (self.x_edges[c] + self.x_edges[c + 1])
        y = self.depth - 0.5 * (self.y_edges[r] + self.y_edges[r + 1])
        return float(x), float(y)


def _edges(n_blocks: int, cell: float, wall: float) -> np.ndarray:
    sizes = np.where(np.arange(n_blocks) % 2 == 0, wall, cell)
    return np.concatenate([[0.0], np.cumsum(sizes)])


def layout_maze(maze: Maze, params: SceneParams, rng: np.random.Generator) -> SceneLayout:
    """Return the metric layout of ``maze`` with landmarks placed in dead-end cells (never the start)."""
    blocks = maze.to_blocks()
    blocks[0, :] = blocks[-1, :] = blocks[:, 0] = blocks[:, -1] = 1
    layout = SceneLayout(maze, blocks, _edges(blocks.shape[1], params.cell_metres, params.wall_metres),
                         _edges(blocks.shape[0], params.cell_metres, params.wall_metres), params)
    dead_ends = [cell for cell in maze.cells() if len(maze.neighbours(cell)) == 1 and cell != maze.start]
    chosen = rng.permutation(len(dead_ends))[:min(params.num_landmarks, len(dead_ends), len(LANDMARKS))]
    names = rng.permutation(len(LANDMARKS))
    for k, idx in enumerate(sorted(chosen)):
        cell = dead_ends[idx]
        name, colour = LANDMARKS[names[k]]
        layout.landmarks.append(Landmark(name, colour, cell, layout.block_centre(cell_to_block(cell)),
                                         0.3 * params.cell_metres))
    return layout


def occupancy_map(layout: SceneLayout) -> np.ndarray:
    """Return the grey uint8 occupancy map (255 free, 0 wall or landmark), one pixel per ``pixel_metres``.

    Walls are drawn ``occupancy_half_wall`` thick on each side of their centre line (see the module notes).
    """
    params = layout.params
    res = params.pixel_metres
    w, h = int(round(layout.width / res)), int(round(layout.depth / res))
    xs = (np.arange(w) + 0.5) * res
    ys_from_top = (np.arange(h) + 0.5) * res
    occupied = np.zeros((h, w), np.uint8)
    # every pixel a wall block touches, however thin the wall
    for r, c in zip(*np.nonzero(layout.blocks), strict=False):
        x0, x1 = int(np.floor(layout.x_edges[c] / res)), int(np.ceil(layout.x_edges[c + 1] / res))
        y0, y1 = int(np.floor(layout.y_edges[r] / res)), int(np.ceil(layout.y_edges[r + 1] / res))
        occupied[y0:max(y1, y0 + 1), x0:max(x1, x0 + 1)] = 1
    grow = int(np.ceil((params.occupancy_half_wall - params.wall_metres / 2) / res - 1e-9))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
    occupied = cv2.dilate(occupied, kernel).astype(bool)
    wx, wy = xs[None, :], layout.depth - ys_from_top[:, None]
    for lm in layout.landmarks:
        half = lm.size / 2
        occupied |= (np.abs(wx - lm.position[0]) <= half) & (np.abs(wy - lm.position[1]) <= half)
    return np.where(occupied, 0, 255).astype(np.uint8)


def _surfels(origin: np.ndarray, u: np.ndarray, v: np.ndarray, length_u: float, length_v: float,
             spacing: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return (centres, local (a, b) coordinates, scales, quaternions) of a rectangle tiled with flat discs."""
    nu, nv = max(1, int(np.ceil(length_u / spacing - 1e-9))), max(1, int(np.ceil(length_v / spacing - 1e-9)))
    a = (np.arange(nu) + 0.5) * (length_u / nu)
    b = (np.arange(nv) + 0.5) * (length_v / nv)
    aa, bb = np.meshgrid(a, b, indexing="ij")
    aa, bb = aa.ravel(), bb.ravel()
    centres = origin + aa[:, None] * u + bb[:, None] * v
    normal = np.cross(u, v)
    q = Rotation.from_matrix(np.stack([u, v, normal], axis=1)).as_quat()
    quats = np.tile([q[3], q[0], q[1], q[2]], (len(aa), 1))
    scales = np.tile([0.6 * length_u / nu, 0.6 * length_v / nv, 0.002], (len(aa), 1))
    return centres, np.stack([aa, bb], axis=1), scales, quats


def _brick(ab: np.ndarray, base: np.ndarray, rng: np.random.Generator, offset: float) -> np.ndarray:
    """Return brick-textured colours at face coordinates ``ab`` (along, up): mortar lines and jittered bricks."""
    row = np.floor(ab[:, 1] / 0.25)
    along = ab[:, 0] + offset + 0.25 * (row % 2)
    brick = np.floor(along / 0.5)
    mortar = (np.mod(along, 0.5) < 0.05) | (np.mod(ab[:, 1], 0.25) < 0.04)
    jitter = 0.88 + 0.24 * ((np.sin(brick * 12.9898 + row * 78.233) * 43758.5453) % 1.0)
    shade = np.where(mortar, 0.55, jitter) * rng.uniform(0.95, 1.05, len(ab))
    return np.clip(base[None, :] * shade[:, None], 0, 1)


def scene_gaussians(layout: SceneLayout, rng: np.random.Generator) -> GaussianCloud:
    """Return the scene's Gaussians: textured wall faces bordering free space, floor tiles and landmark boxes."""
    p = layout.params
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    rows, cols = layout.blocks.shape
    up = np.array([0.0, 0.0, 1.0])
    wall_colour = WALL_PALETTE[rng.integers(0, len(WALL_PALETTE), size=(rows, cols))]
    for r in range(rows):
        for c in range(cols):
            x0, x1 = layout.x_edges[c], layout.x_edges[c + 1]
            y1, y0 = layout.depth - layout.y_edges[r], layout.depth - layout.y_edges[r + 1]
            if not layout.blocks[r, c]:
                origin = np.array([x0, y0, 0.0])
                centres, ab, scales, quats = _surfels(origin, np.array([1.0, 0, 0]), np.array([0, 1.0, 0]),
                                                      x1 - x0, y1 - y0, p.surfel_spacing)
                tile = (np.floor(centres[:, 0]) + np.floor(centres[:, 1])) % 2
                grey = np.where(tile == 0, 0.42, 0.30) * rng.uniform(0.9, 1.1, len(centres))
                colours = np.stack([grey, grey * 0.97, grey * 0.9], axis=1)
                parts.append((centres, scales, quats, colours))
                continue
            faces = []  # (neighbour block, origin, along-face unit vector, face length)
            faces.append(((r - 1, c), np.array([x1, y1, 0.0]), np.array([-1.0, 0, 0]), x1 - x0))  # north face
            faces.append(((r + 1, c), np.array([x0, y0, 0.0]), np.array([1.0, 0, 0]), x1 - x0))  # south face
            faces.append(((r, c - 1), np.array([x0, y1, 0.0]), np.array([0, -1.0, 0]), y1 - y0))  # west face
            faces.append(((r, c + 1), np.array([x1, y0, 0.0]), np.array([0, 1.0, 0]), y1 - y0))  # east face
            for (nr, nc), origin, along, length in faces:
                if not (0 <= nr < rows and 0 <= nc < cols) or layout.blocks[nr, nc]:
                    continue
                centres, ab, scales, quats = _surfels(origin, along, up, length, p.wall_height, p.surfel_spacing)
                offset = float(origin[0] + origin[1])
                parts.append((centres, scales, quats, _brick(ab, wall_colour[r, c], rng, offset)))
    for lm in layout.landmarks:
        half, top = lm.size / 2, 1.6
        cx, cy = lm.position
        corners = [(cx - half, cy - half), (cx + half, cy - half), (cx + half, cy + half), (cx - half, cy + half)]
        for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1], strict=False):
            along = np.array([bx - ax, by - ay, 0.0]) / lm.size
            centres, ab, scales, quats = _surfels(np.array([ax, ay, 0.0]), along, up, lm.size, top,
                                                  p.surfel_spacing / 2)
            stripe = np.where(np.mod(ab[:, 1], 0.4) < 0.08, 1.25, 1.0)
            parts.append((centres, scales, quats, np.clip(np.outer(stripe, lm.colour), 0, 1)))
        centres, ab, scales, quats = _surfels(np.array([cx - half, cy - half, top]), np.array([1.0, 0, 0]),
                                              np.array([0, 1.0, 0]), lm.size, lm.size, p.surfel_spacing / 2)
        parts.append((centres, scales, quats, np.tile(lm.colour, (len(centres), 1))))
    means, scales, quats, colours = (np.concatenate([part[i] for part in parts]) for i in range(4))
    return GaussianCloud.from_colours(means, scales, quats, np.full(len(means), 0.95), colours)


def _simplify(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Return ``points`` without the interior points that lie on a straight line through their neighbours."""
    out = [points[0]]
    for prev, cur, nxt in zip(points, points[1:], points[2:], strict=False):
        d1 = np.subtract(cur, prev)
        d2 = np.subtract(nxt, cur)
        if abs(d1[0] * d2[1] - d1[1] * d2[0]) > 1e-9:
            out.append(cur)
    out.append(points[-1])
    return out


def trajectory(layout: SceneLayout, start: Cell, landmark: Landmark) -> tuple[list[dict[str, float]], float]:
    """Return (trajectory points, length in metres) from cell ``start`` to the approach point of ``landmark``."""
    grid = Grid(layout.blocks, cell_to_block(start), cell_to_block(landmark.cell))
    blocks = shortest_path(grid)
    if blocks is None or len(blocks) < 2:
        raise MazeConfigError(f"no path from {start} to the landmark at {landmark.cell}")
    points = _simplify([layout.block_centre(b) for b in blocks])
    last = np.subtract(points[-1], points[-2])
    points[-1] = tuple(np.asarray(points[-1]) - 0.4 * layout.params.cell_metres * last / np.linalg.norm(last))
    poses = []
    for i, (x, y) in enumerate(points):
        a, b = (points[i], points[i + 1]) if i + 1 < len(points) else (points[i - 1], points[i])
        yaw = float(np.arctan2(b[1] - a[1], b[0] - a[0]))
        poses.append({"x": float(x), "y": float(y), "z": CAMERA_HEIGHT, "roll": 0.0, "pitch": 0.0, "yaw": yaw})
    length = float(sum(np.hypot(q["x"] - p_["x"], q["y"] - p_["y"]) for p_, q in zip(poses, poses[1:], strict=False)))
    return poses, length


def _meta_text(layout: SceneLayout, width_px: int, height_px: int) -> str:
    w, d = layout.width, layout.depth
    return (f"Top Left: ({0.0}, {d})\nTop Right: ({w}, {d})\nBottom Left: ({0.0}, {0.0})\n"
            f"Bottom Right: ({w}, {0.0})\nImage size in pixels: {width_px}, {height_px}\n")


@dataclass
class BuiltScene:
    """A procedural scene in memory: its ``episode`` (tasks and map data), Gaussians and summary."""

    episode: Episode
    cloud: GaussianCloud
    summary: dict
    meta_text: str


def build_scene(maze: Maze, scene_id: str, params: SceneParams | None = None,
                seed: int | np.random.Generator | None = 0, scene_path: str = "") -> BuiltScene:
    """Return the scene of ``maze`` built in memory (nothing is written); ``scene_path`` is recorded in its episode."""
    params = params or SceneParams()
    params.check()
    rng = as_rng(seed)
    layout = layout_maze(maze, params, rng)
    occ = occupancy_map(layout)
    meta_text = _meta_text(layout, occ.shape[1], occ.shape[0])
    cloud = scene_gaussians(layout, rng)
    landmark_cells = {lm.cell for lm in layout.landmarks}
    candidates = [cell for cell in maze.cells() if cell not in landmark_cells]
    tasks, trajectories = [], []
    for i in range(params.num_trajectories if layout.landmarks else 0):
        landmark = layout.landmarks[i % len(layout.landmarks)]
        start = candidates[int(rng.integers(len(candidates)))]
        poses, length = trajectory(layout, start, landmark)
        label = {"extend": {"goal_label": landmark.name, "goal_position": list(landmark.position)},
                 "shortest_path_length": length, "start_cell": list(start), "goal_cell": list(landmark.cell)}
        tasks.append(Task(f"traj_{i}", poses, label))
        trajectories.append({"task_id": f"traj_{i}", "goal_label": landmark.name, "shortest_path_length": length})
    summary = {"scene_id": scene_id, "num_gaussians": len(cloud), "size_metres": [layout.width, layout.depth],
               "params": asdict(params), "landmarks": [asdict(lm) for lm in layout.landmarks],
               "trajectories": trajectories, "maze": maze_to_dict(maze)}
    episode = Episode(scene_id, scene_path, tasks, occ, np.zeros(occ.shape, np.float32),
                      parse_meta_text(meta_text, source=f"{scene_id}: map metadata"))
    return BuiltScene(episode, cloud, summary, meta_text)


def write_scene(maze: Maze, scene_dir: str | os.PathLike, params: SceneParams | None = None,
                seed: int | np.random.Generator | None = 0) -> dict:
    """Write the scene of ``maze`` to ``scene_dir`` (map/, gs/0/point_cloud.ply, traj_*.json, scene.json), each
    file atomically.

    Returns the scene summary written to ``scene.json``.
    """
    scene_dir = Path(scene_dir)
    built = build_scene(maze, scene_dir.name, params, seed, str(scene_dir))
    episode = built.episode
    save_image_atomic(Image.fromarray(np.asarray(episode.occ_map, np.uint8)), scene_dir / "map" / "occ_map.png")
    save_image_atomic(Image.fromarray(np.asarray(episode.height_map, np.float32)),
                      scene_dir / "map" / "occ_map_height.tiff", "TIFF")
    with atomic_write(scene_dir / "map" / "occ_map_meta.txt") as fh:
        fh.write(built.meta_text)
    write_ply(built.cloud, scene_dir / "gs" / "0" / "point_cloud.ply")
    for task in episode.tasks:
        write_json_atomic(scene_dir / f"{task.task_id}.json", {"trajectory": task.trajectory, "label": task.label},
                          indent=1)
    write_json_atomic(scene_dir / "scene.json", built.summary, indent=1)
    return built.summary


def scene_files(summary: dict) -> list[str]:
    """Return the files ``write_scene`` wrote for the scene of ``summary``, relative to the scene directory."""
    return ["map/occ_map.png", "map/occ_map_height.tiff", "map/occ_map_meta.txt", "gs/0/point_cloud.ply",
            *(f"{t['task_id']}.json" for t in summary["trajectories"]), "scene.json"]
