"""The GaussianNav envs' size, count and path arguments: checked for type and range, then priced under the one
budget rule (``maze_envs.envs.costs``) before any scene is built or any view rendered."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from maze_envs.core.errors import MazeConfigError, brief_repr
from maze_envs.core.numbers import INT64_MAX, is_finite_number
from maze_envs.core.paths import argument_path
from maze_envs.core.validate import positive_int

from ..costs import (
    SCENE_CELL_PIXELS,
    SECONDS_PER_WAYPOINT,
    Cost,
    check_env_cost,
    count,
    image_cost,
    nav_view_cost,
    nav_world_cost,
)
from .config import EvalConfig, PoiGoalEvalConfig

WORLD_BOUND = 1e4  # metres: the finite bound of every world-coordinate and distance box
MAP_PIXEL_METRES = 0.05  # the procedural scenes' map resolution, also assumed for a dataset's maps


@dataclass(frozen=True)
class NavSizes:
    """The checked sizes of a nav env: scene count, maze cells per scene side, view pixels and waypoints a step."""

    scenes: int
    rows: int
    cols: int
    view_width: int
    view_height: int
    num_waypoints: int


def _metres(name: str, value: Any, *, positive: bool = False) -> float:
    """Return ``value`` when it is a finite number of metres in ``[0, WORLD_BOUND]`` (above 0 when ``positive``);
    else raise ``MazeConfigError`` naming ``name``."""
    if not is_finite_number(value) or not 0 <= value <= WORLD_BOUND or (positive and value == 0):
        raise MazeConfigError(f"must be a number of metres in {'(0' if positive else '[0'}, {WORLD_BOUND:g}], "
                              f"got {brief_repr(value)}", parameter=name)
    return float(value)


def check_nav_arguments(*, scenes: Any, maze_size: Any, scene_seed: Any, view_width: Any, view_height: Any,
                        num_waypoints: Any, max_waypoint_metres: Any, max_steps: Any, data_dir: Any,
                        map_dir: Any, rewards: dict[str, Any]) -> NavSizes:
    """Return the checked sizes; raise ``MazeConfigError`` naming the first argument of the wrong type or out of
    range (counts and pixels are positive integers, seeds and step limits fit an int64, metres stay within the
    world bound, the ``rewards`` coefficients are finite, paths are usable and ``map_dir`` comes with
    ``data_dir``)."""
    for name, value in rewards.items():
        if not is_finite_number(value):
            raise MazeConfigError(f"must be a finite number, got {brief_repr(value)}", parameter=name)
    if not isinstance(maze_size, (tuple, list)) or len(maze_size) != 2:
        raise MazeConfigError(f"must be a (rows, cols) pair, got {brief_repr(maze_size)}", parameter="maze_size")
    rows, cols = (positive_int(value, name=f"maze_size {side}")
                  for side, value in zip(("rows", "cols"), maze_size, strict=True))
    if isinstance(scene_seed, bool) or not isinstance(scene_seed, int) or not 0 <= scene_seed <= INT64_MAX:
        raise MazeConfigError(f"must be an integer in [0, 2**63 - 1], got {brief_repr(scene_seed)}",
                              parameter="scene_seed")
    if isinstance(max_steps, bool) or not isinstance(max_steps, int) or not 1 <= max_steps <= INT64_MAX:
        raise MazeConfigError(f"must be an integer in [1, 2**63 - 1], got {brief_repr(max_steps)}",
                              parameter="max_steps")
    _metres("max_waypoint_metres", max_waypoint_metres, positive=True)
    if data_dir is not None:
        argument_path("data_dir", data_dir)
    if map_dir is not None:
        if data_dir is None:
            raise MazeConfigError("has no effect without data_dir (the procedural scenes carry their maps)",
                                  parameter="map_dir")
        argument_path("map_dir", map_dir)
    sizes = NavSizes(positive_int(scenes, name="scenes"), rows, cols, positive_int(view_width, name="view_width"),
                     positive_int(view_height, name="view_height"), positive_int(num_waypoints, name="num_waypoints"))
    check_env_cost("view_width/view_height (the three views)", nav_view_cost(sizes.view_width, sizes.view_height),
                   "step")  # before the camera is scaled to them
    return sizes


def _history(config: EvalConfig, sizes: NavSizes) -> Cost:
    """Return the cost of the ``history_images`` observation (frames of the front view shrunk by the ratio)."""
    if not config.provide_history:
        return Cost()
    ratio = count(config.history_resize_ratio)
    height, width = count(sizes.view_height) * ratio, count(sizes.view_width) * ratio
    pixels = count(config.max_history_frames) * max(1.0, height) * max(1.0, width)
    return image_cost(pixels)


def check_nav_cost(config: EvalConfig, sizes: NavSizes, *, procedural: bool) -> None:
    """Raise ``MazeConfigError`` naming the arguments when building the scenes (``procedural``: ``scenes`` mazes of
    ``maze_size`` cells, their maps dilated by ``occ_dilation_meters``), a reset or a step (three views, the waypoints,
    the history and map observations) would pass the budget; return None when all fit."""
    _metres("occ_dilation_meters", config.occ_dilation_meters)
    if isinstance(config, PoiGoalEvalConfig):
        _metres("robot_radius", config.robot_radius)
    kernel = 2 * max(1, math.ceil(config.occ_dilation_meters / MAP_PIXEL_METRES)) + 1
    if procedural:
        check_env_cost("scenes/maze_size and occ_dilation_meters (building the scenes)",
                       nav_world_cost(sizes.scenes, sizes.rows, sizes.cols, kernel), "make")
    else:
        check_env_cost("occ_dilation_meters (the map dilation kernel)", Cost(kernel * kernel), "make")
    maps = Cost()
    if procedural and (config.provide_occ_map or config.provide_height_map):
        maps = image_cost(sizes.rows * sizes.cols * SCENE_CELL_PIXELS, channels=5)
    step = (nav_view_cost(sizes.view_width, sizes.view_height) + _history(config, sizes) + maps
            + Cost(count(sizes.num_waypoints) * 8, count(sizes.num_waypoints) * SECONDS_PER_WAYPOINT))
    check_env_cost("view_width/view_height, num_waypoints, max_history_frames and history_resize_ratio (one step)",
                   step, "step")
