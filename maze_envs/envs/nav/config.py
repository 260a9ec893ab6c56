"""The navigation protocol's settings: ``EvalConfig`` (point-goal), ``PoiGoalEvalConfig`` and ``make_eval_config``.

Protocol values per task (those of ABot-Navigation, https://github.com/amap-cvlab/ABot-Navigation):

| task / mode         | arrive_threshold | collision_threshold | occ_dilation_meters | collision        |
| ------------------- | ---------------- | ------------------- | ------------------- | ---------------- |
| point-goal outdoor  | 0.5              | 3                   | 0.5                 | counted per step |
| point-goal indoor   | 0.5              | 1                   | 0.2                 | counted per step |
| POI-goal            | 2.0              | (unused)            | 0.5                 | ``hard``         |

``render_url`` None means the embedded CPU renderer (no server); the public evaluator requires a URL.

``protocol``: ``default`` keeps this project's documented choices; ``abot`` reproduces ABot-Navigation's
observable behaviour at commit 70411225, defects included (README, "Differences from ABot-Navigation").
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Literal

from maze_envs import protocols
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.validate import choice, integer, number, positive_int
from maze_envs.nav.camera import CameraConfig
from maze_envs.protocols import NavRules

POINT_GOAL_PROTOCOL: dict[str, dict[str, float]] = {
    "outdoor": {"arrive_threshold": 0.5, "collision_threshold": 3, "occ_dilation_meters": 0.5},
    "indoor": {"arrive_threshold": 0.5, "collision_threshold": 1, "occ_dilation_meters": 0.2},
}
WAYPOINT_FRAMES = ("front_left", "right_front")
COLLISION_MODES = ("off", "soft", "hard")
WaypointFrame = Literal["front_left", "right_front"]


def nav_rules(protocol: str) -> NavRules:
    """Return the navigation rules of the protocol called ``protocol``; raises ``MazeConfigError`` naming
    ``protocol`` for one without them."""
    return protocols.protocol(protocol, "nav").nav


@dataclass
class EvalConfig:
    """Settings of a point-goal evaluation (dataclass defaults; ``make_eval_config`` applies a protocol mode).

    ``waypoint_frame``: ``front_left`` (the spec's tables, default) reads a waypoint as ``[front, left]``
    metres; ``right_front`` reads it as ``[right, front]``, as the public evaluator's code does.
    ``render_max_retries``, ``render_retry_backoff`` and ``render_timeout`` tune the HTTP render client.
    ``protocol``: a protocol with navigation rules (``maze_envs.protocols``, its ``NavRules``): ``default`` or
    ``abot`` (ABot-Navigation's rules and records, defects included; set ``waypoint_frame="right_front"`` and
    ``camera_for_size(..., protocol="abot")`` with it for ABot's agents).
    """

    render_url: str | None = None
    max_steps: int = 100
    arrive_threshold: float = 0.5
    camera_config: CameraConfig | None = None
    collision_threshold: int = 3
    provide_history: bool = False
    provide_occ_map: bool = False
    provide_height_map: bool = False
    max_history_frames: int = 20
    history_resize_ratio: float = 0.25
    save_render_images: bool = True
    occ_dilation_meters: float = 0.0
    enable_visualization: bool = False
    waypoint_frame: WaypointFrame = "front_left"
    render_max_retries: int = 3
    render_retry_backoff: float = 1.0
    render_timeout: float = 30.0
    protocol: str = protocols.DEFAULT

    task_type = "point_goal"

    def check(self) -> None:
        """Raise ``MazeConfigError`` naming the first setting out of range."""
        positive_int(self.max_steps, parameter="max_steps")
        for name in ("arrive_threshold", "occ_dilation_meters", "history_resize_ratio", "render_retry_backoff",
                     "render_timeout"):
            number(getattr(self, name), 0, parameter=name)
        for name in ("collision_threshold", "max_history_frames", "render_max_retries"):
            integer(getattr(self, name), 0, parameter=name)
        choice(self.waypoint_frame, WAYPOINT_FRAMES, parameter="waypoint_frame")
        self.protocol = protocols.protocol(self.protocol, "nav").name

    @property
    def rules(self) -> NavRules:
        """Return the navigation rules of the settings' protocol."""
        return nav_rules(self.protocol)

    @property
    def camera(self) -> CameraConfig:
        """Return the camera settings (``CameraConfig()`` when none are set)."""
        return self.camera_config or CameraConfig()


@dataclass
class PoiGoalEvalConfig(EvalConfig):
    """Settings of a POI-goal evaluation: one protocol, these defaults.

    ``collision_mode``: ``off`` (no checks), ``soft`` (counted only) or ``hard`` (the first counted collision
    ends the task with status ``collision``); hits inside the arrival circle are exempt. The obstacle test
    reads the (dilated) occupancy map: grey ``<= occ_dark_threshold`` is an obstacle with ``dark`` polarity,
    ``>= occ_dark_threshold`` with ``light``; the footprint is a disc of ``robot_radius`` metres.
    """

    arrive_threshold: float = 2.0
    occ_dilation_meters: float = 0.5
    collision_mode: str = "hard"
    robot_radius: float = 0.0
    occ_obstacle_polarity: str = "dark"
    occ_dark_threshold: int = 64

    task_type = "poi_goal"

    def check(self) -> None:
        """Raise ``MazeConfigError`` naming the first setting out of range."""
        super().check()
        choice(self.collision_mode, COLLISION_MODES, parameter="collision_mode")
        choice(self.occ_obstacle_polarity, ("dark", "light"), parameter="occ_obstacle_polarity")
        number(self.robot_radius, 0, parameter="robot_radius")


def make_eval_config(mode: str = "outdoor", render_url: str | None = None, **kwargs: Any) -> EvalConfig:
    """Return a point-goal ``EvalConfig`` with the protocol values of ``mode`` (outdoor or indoor); ``kwargs``
    override any field (protocol values too, for ablations). Raises ``MazeConfigError`` naming a bad argument."""
    choice(mode, POINT_GOAL_PROTOCOL, parameter="mode")
    names = {f.name for f in fields(EvalConfig)}
    unknown = sorted(set(kwargs) - names)
    if unknown:
        raise MazeConfigError(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(names))}")
    config = replace(EvalConfig(), render_url=render_url, **{**POINT_GOAL_PROTOCOL[mode], **kwargs})
    config.check()
    return config


def camera_for_size(width: int = 720, height: int = 640, extrinsic_height: float = 0.65, *,
                    fx: float | None = None, fy: float | None = None,
                    protocol: str = protocols.DEFAULT) -> CameraConfig:
    """Return the camera of ``width`` x ``height`` views: by default the benchmark camera (720x640, fx = fy =
    252.075) scaled to that size (the same horizontal field of view, square pixels, centred principal point);
    with ``protocol="abot"`` ABot-Navigation's runner's camera, which keeps fx 252.075, cx 360 and cy 320 at
    every size (the protocol's ``camera`` strategy). ``fx`` / ``fy`` (fy defaults to fx) replace the focal
    lengths. Raises ``MazeConfigError``."""
    camera = protocols.load(nav_rules(protocol).camera)
    if width < 8 or height < 8:
        raise MazeConfigError(f"views must be at least 8x8 pixels, got {width}x{height}", parameter="image_size")
    return camera(width, height, extrinsic_height, fx, fy)


def build_eval_config(task: str = "point", mode: str | None = None, **settings: Any) -> EvalConfig:
    """Return the settings of a ``task`` (``point`` or ``poi``) evaluation: point-goal with the protocol values of
    ``mode`` (default outdoor; POI has one protocol and ignores it); ``settings`` are ``EvalConfig`` /
    ``PoiGoalEvalConfig`` fields, None values meaning "the protocol's value". Raises ``MazeConfigError`` naming
    a bad argument."""
    if task not in ("point", "poi"):
        raise MazeConfigError(f"must be point or poi, got {task!r}", parameter="task")
    settings = {k: v for k, v in settings.items() if v is not None}
    if task == "point":
        return make_eval_config(mode or "outdoor", **settings)
    names = {f.name for f in fields(PoiGoalEvalConfig)}
    unknown = sorted(set(settings) - names)
    if unknown:
        raise MazeConfigError(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(names))}")
    config = PoiGoalEvalConfig(**settings)
    config.check()
    return config
