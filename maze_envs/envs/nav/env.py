"""GaussianNav-PointGoal-v0 and GaussianNav-PoiGoal-v0: the navigation protocol as Gymnasium environments."""

from __future__ import annotations

import string
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from maze_envs import protocols
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.validate import choice

from ..actions import checked_action, checked_options, reset_needed
from .arguments import WORLD_BOUND, check_nav_arguments, check_nav_cost
from .config import EvalConfig, PoiGoalEvalConfig, make_eval_config
from .session import COLLISION, MAX_STEPS, STOP, VIEWS, NavSession
from .world import NavWorld, camera_for_size, dataset_world, procedural_world


class GaussianNavEnv(gym.Env):
    """
    ## Description
    Walk through a Gaussian-splat scene to a goal, seeing three camera views (left, front, right), under the
    navigation protocol of ABot-Navigation (https://github.com/amap-cvlab/ABot-Navigation): each step the agent
    names waypoints in its own frame and the protocol moves it to one of them, counting collisions against the
    scene's dilated occupancy map. ``GaussianNav-PointGoal-v0`` gives the goal as coordinates;
    ``GaussianNav-PoiGoal-v0`` names it (a landmark such as "Red Kiosk") and also gives its exact local vector,
    as the benchmark does. By default the scenes are procedural mazes built in memory and drawn by the embedded
    CPU splat renderer: no server, data or GPU.

    ## Action Space
    ``Dict(waypoint=Box(-R, R, (N, 2), float32), arrive=Discrete(2))`` with ``N = num_waypoints`` and
    ``R = max_waypoint_metres``. Waypoints are agent-local metres, ``[front, left]`` by default, or
    ``[right, front]`` with ``waypoint_frame="right_front"`` (how the public evaluator's code reads them).
    The agent moves to waypoint 1 (point-goal) or 2 (POI), clamped to the last; any waypoint within the arrival
    threshold of the goal is taken instead and ends the episode, as does ``arrive=1``. Each pose faces along
    its leg of the waypoint polyline.

    ## Observation Space
    A ``Dict``: ``images`` (``Dict`` of ``left``/``front``/``right``, each ``Box(0, 255, (H, W, 3), uint8)``
    RGB, left = +90 deg, right = -90 deg from the heading); ``target_position`` (goal as ``[front, left]``
    metres, ``(2,)``); ``distance_to_goal`` (``(1,)``); ``position`` (world ``[x, y, z]``); ``rotation``
    (the 4x4 camera-to-world pose); ``heading`` (yaw in radians, ``(1,)``); ``step_count`` (``(1,)`` int64);
    ``goal_world`` (world ``[x, y]``, point-goal) or ``poi_name`` (``Text``, POI). With
    ``provide_history``: ``history_images`` ``(K, h, w, 3)`` (front views shrunk by ``history_resize_ratio``,
    oldest first, zero-padded) and ``history_poses`` ``(K, 4, 4)`` (all-zero rows pad); with
    ``provide_occ_map`` / ``provide_height_map``: the scene's dilated occupancy map (uint8, >= 128 free) and
    height map, zero-padded to the largest map of the scene set. Coordinate and distance boxes are bounded
    by +-10 km.

    ## Rewards
    ``progress_reward`` times the metres gained towards the goal (straight-line), minus ``step_penalty`` each
    step, minus ``collision_penalty`` per counted collision, plus ``success_reward`` when the episode ends
    within the arrival threshold.

    ## Starting State
    A task drawn uniformly from the scene set (``reset(options={"episode_id": ..., "task_id": ...})`` picks
    one): the agent stands at the start of its reference trajectory, the goal is its end.

    ## Episode End
    Terminated when arrival is declared (by ``arrive`` or a waypoint within the threshold) or, for POI in
    ``hard`` collision mode, on the first collision outside the arrival circle. Truncated after ``max_steps``.
    ``info`` holds ``status``, ``success``, ``distance_to_goal``, ``collided``, ``collisions`` and ``result``:
    empty until the episode ends, then the evaluator's ``result.json`` record (``reset`` and ``step`` return the
    same keys).

    ## Arguments
    ``gym.make("GaussianNav-PointGoal-v0", mode="outdoor", data_dir=None, map_dir=None, render_url=None,
    scenes=8, maze_size=(4, 4), scene_seed=0, view_width=720, view_height=640, num_waypoints=1,
    max_waypoint_metres=3.0, waypoint_frame=None, max_steps=100, provide_history=False,
    provide_occ_map=False, provide_height_map=False, max_history_frames=20, history_resize_ratio=0.25,
    progress_reward=1.0, success_reward=10.0, collision_penalty=1.0, step_penalty=0.01, render_mode=None,
    backend="cpu", sh_degree=None, **protocol)``

    - ``mode``: point-goal protocol ``outdoor`` (arrive 0.5 m, dilation 0.5 m) or ``indoor`` (0.5 m, 0.2 m);
      POI uses its own (arrive 2.0 m, dilation 0.5 m, hard collisions). ``protocol`` overrides any
      ``EvalConfig`` / ``PoiGoalEvalConfig`` field (``arrive_threshold``, ``collision_mode``, ...).
    - ``data_dir``/``map_dir``: real scenes in the public layout, rendered by the server at ``render_url``
      (or locally when they hold ``gs/`` folders). Without ``data_dir``: ``scenes`` procedural mazes of
      ``maze_size`` cells, scene i from ``scene_seed + i``.
    - ``view_width``/``view_height``: view resolution (e.g. 128x128 for RL); the field of view stays.
    - ``backend``: the embedded renderer, ``cpu`` (numba) or ``gsplat`` (CUDA).
    - ``sh_degree``: the embedded renderer's highest spherical-harmonic colour degree, 0 to 3, capped at each
      scene's own (None: the scene's degree; 0: view-independent colours). A render server has its own.
    - ``protocol="abot"`` (one of ``protocol``): ABot-Navigation's rules, defects included (README, "Differences
      from ABot-Navigation"): its camera at every view size, request format, ground heights, waypoint
      arithmetic, collision lengths and statuses; ``waypoint_frame`` then defaults to ``right_front``
      (otherwise ``front_left``). Observations stay numpy arrays.
    - An action outside the action space (a missing or unknown field, a waypoint of another shape, not finite or
      beyond ``max_waypoint_metres``, ``arrive`` not 0 or 1) raises ``InvalidActionError`` naming the field.
    - Sizes and counts whose estimated cost passes the budget (2 GiB for one array, 1 s of work for one make,
      reset or step on one core; ``maze_envs.envs.costs``), products of them included, raise ``MazeConfigError``
      naming them at make; ``reset(options=...)`` takes None or a mapping (else ``MazeConfigError``).

    The env pickles and deep-copies after ``reset``. ``GaussianNav-PoiGoal-Numeric-v0`` registers the POI env
    under ``NumericObservation``: ``poi_name`` as a ``Discrete`` index into the sorted POI names, for
    stable-baselines3's ``check_env``.

    ## Version History
    - v0: initial version (maze-envs 0.1.0).
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}
    poi = False

    def __init__(self, mode: str = "outdoor", data_dir: str | None = None, map_dir: str | None = None,
                 render_url: str | None = None, scenes: int = 8, maze_size: tuple[int, int] = (4, 4),
                 scene_seed: int = 0, view_width: int = 720, view_height: int = 640, num_waypoints: int = 1,
                 max_waypoint_metres: float = 3.0, waypoint_frame: str | None = None, max_steps: int = 100,
                 provide_history: bool = False, provide_occ_map: bool = False, provide_height_map: bool = False,
                 max_history_frames: int = 20, history_resize_ratio: float = 0.25, progress_reward: float = 1.0,
                 success_reward: float = 10.0, collision_penalty: float = 1.0, step_penalty: float = 0.01,
                 render_mode: str | None = None, backend: str = "cpu", sh_degree: int | None = None,
                 **protocol: Any):
        choice(render_mode, ("rgb_array",), optional=True, parameter="render_mode")
        checked = check_nav_arguments(scenes=scenes, maze_size=maze_size, scene_seed=scene_seed,
                                      view_width=view_width, view_height=view_height, num_waypoints=num_waypoints,
                                      max_waypoint_metres=max_waypoint_metres, max_steps=max_steps,
                                      data_dir=data_dir, map_dir=map_dir,
                                      rewards=dict(progress_reward=progress_reward, success_reward=success_reward,
                                                   collision_penalty=collision_penalty, step_penalty=step_penalty))
        spec = protocols.protocol(protocol.get("protocol", protocols.DEFAULT), "nav")
        settings = dict(render_url=render_url, max_steps=max_steps, camera_config=camera_for_size(
                            view_width, view_height, protocol=spec.name),
                        provide_history=provide_history, provide_occ_map=provide_occ_map,
                        provide_height_map=provide_height_map, max_history_frames=max_history_frames,
                        history_resize_ratio=history_resize_ratio, save_render_images=False,
                        waypoint_frame=waypoint_frame or spec.nav.waypoint_frame, **protocol)
        if self.poi:
            try:
                self.config: EvalConfig = PoiGoalEvalConfig(**settings)
            except TypeError as exc:
                raise MazeConfigError(f"unknown argument: {exc}") from exc
            self.config.check()
        else:
            self.config = make_eval_config(mode, **settings)
        check_nav_cost(self.config, checked, procedural=data_dir is None)
        self.world: NavWorld = (
            dataset_world(self.config, data_dir, map_dir, backend, sh_degree)
            if data_dir is not None
            else procedural_world(self.config, scenes, *maze_size, seed=scene_seed, backend=backend,
                                  sh_degree=sh_degree)
        )
        self.task_list = self.world.tasks()
        if not self.task_list:
            raise MazeConfigError("the scenes hold no tasks (traj_*.json)", parameter="data_dir")
        self.render_mode = render_mode
        self.rewards = (progress_reward, success_reward, collision_penalty, step_penalty)
        self.session: NavSession | None = None
        self.action_space = spaces.Dict({
            "waypoint": spaces.Box(-max_waypoint_metres, max_waypoint_metres, (num_waypoints, 2), np.float32),
            "arrive": spaces.Discrete(2)})
        self.observation_space = self._observation_space()

    def _observation_space(self) -> spaces.Dict:
        cam = self.config.camera
        inf = WORLD_BOUND
        image = spaces.Box(0, 255, (cam.height, cam.width, 3), np.uint8)
        fields: dict[str, spaces.Space] = {
            "images": spaces.Dict({name: image for name in VIEWS}),
            "target_position": spaces.Box(-inf, inf, (2,), np.float32),
            "distance_to_goal": spaces.Box(0, inf, (1,), np.float32),
            "position": spaces.Box(-inf, inf, (3,), np.float32),
            "rotation": spaces.Box(-inf, inf, (4, 4), np.float32),
            "heading": spaces.Box(-np.pi, np.pi, (1,), np.float32),
            "step_count": spaces.Box(0, self.config.max_steps, (1,), np.int64),
        }
        if self.poi:
            names = {task.goal_label or "unknown" for _, task in self.task_list}
            charset = frozenset(string.ascii_letters + string.digits + " ").union(*names)
            fields["poi_name"] = spaces.Text(max(64, *map(len, names)), charset=charset)
        else:
            fields["goal_world"] = spaces.Box(-inf, inf, (2,), np.float32)
        if self.config.provide_history:
            k, ratio = self.config.max_history_frames, self.config.history_resize_ratio
            self._history_shape = (k, max(1, int(cam.height * ratio)), max(1, int(cam.width * ratio)), 3)
            fields["history_images"] = spaces.Box(0, 255, self._history_shape, np.uint8)
            fields["history_poses"] = spaces.Box(-inf, inf, (k, 4, 4), np.float32)
        maps = [e.occ_map.shape[:2] for e in self.world.episodes if e.occ_map is not None] or [(1, 1)]
        self._map_shape = (max(s[0] for s in maps), max(s[1] for s in maps))
        if self.config.provide_occ_map:
            fields["occ_map"] = spaces.Box(0, 255, self._map_shape, np.uint8)
        if self.config.provide_height_map:
            fields["height_map"] = spaces.Box(-inf, inf, self._map_shape, np.float32)
        return spaces.Dict(fields)

    def _pad(self, array: np.ndarray | None, dtype) -> np.ndarray:
        out = np.zeros(self._map_shape, dtype)
        if array is not None:
            grey = array.mean(axis=2) if array.ndim == 3 else array
            out[:grey.shape[0], :grey.shape[1]] = grey
        return out

    def _observation(self) -> dict[str, Any]:
        raw = self.session.observation()
        obs: dict[str, Any] = {
            "images": raw["images"],
            "target_position": raw["target_position"].astype(np.float32),
            "distance_to_goal": np.array([raw["distance_to_goal"]], np.float32),
            "position": raw["position"].astype(np.float32),
            "rotation": raw["rotation"].astype(np.float32),
            "heading": np.array([raw["heading"]], np.float32),
            "step_count": np.array([raw["step_count"]], np.int64),
        }
        if self.poi:
            obs["poi_name"] = raw["poi_name"]
        else:
            obs["goal_world"] = raw["goal_world"].astype(np.float32)
        if self.config.provide_history:
            images = np.zeros(self._history_shape, np.uint8)
            poses = np.zeros(self._history_shape[:1] + (4, 4), np.float32)
            for i, (frame, pose) in enumerate(zip(raw["history_images"], raw["history_poses"], strict=False)):
                front = frame["front"][:self._history_shape[1], :self._history_shape[2]]
                images[i, :front.shape[0], :front.shape[1]] = front
                poses[i] = pose
            obs["history_images"], obs["history_poses"] = images, poses
        if self.config.provide_occ_map:
            obs["occ_map"] = self._pad(raw.get("occ_map"), np.uint8)
        if self.config.provide_height_map:
            obs["height_map"] = self._pad(raw.get("height_map"), np.float32)
        return obs

    def _info(self, collided: bool = False) -> dict[str, Any]:
        s = self.session
        info = {"episode_id": s.episode.episode_id, "task_id": s.task.task_id, "status": s.status,
                "success": s.success, "distance_to_goal": s.distance, "collided": collided,
                "collisions": len(s.collision_steps), "shortest_path_length": s.shortest_path_length,
                "result": s.result() if s.done else {}}
        return info

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Start an episode on a random task (or ``options["episode_id"]``/``["task_id"]``); return obs and info."""
        options = checked_options(options)
        super().reset(seed=seed)
        if "episode_id" in options or "task_id" in options:
            matches = [(e, t) for e, t in self.task_list if options.get("episode_id", e.episode_id) == e.episode_id
                       and options.get("task_id", t.task_id) == t.task_id]
            if not matches:
                raise MazeConfigError(f"no task matches {options}", parameter="options")
            episode, task = matches[0]
        else:
            episode, task = self.task_list[int(self.np_random.integers(len(self.task_list)))]
        self.session = NavSession(episode, task, self.world.renderer, self.config)
        self.session.start()
        return self._observation(), self._info()

    def step(self, action: dict[str, Any]) -> tuple[dict, float, bool, bool, dict]:
        """Move by ``action`` (``waypoint``, ``arrive``); return obs, reward, terminated, truncated and info.

        Raises ``InvalidActionError`` naming the field when ``action`` is not in the action space."""
        if self.session is None or self.session.done:
            raise reset_needed(type(self).__name__, " or after its episode ended")
        checked_action(self.action_space, action)
        before = self.session.distance
        report = self.session.step(action["waypoint"], bool(int(action["arrive"])))
        progress, success_bonus, collision_penalty, step_penalty = self.rewards
        s = self.session
        reward = progress * (before - s.distance) - step_penalty - collision_penalty * report.collided
        if s.done and s.success:
            reward += success_bonus
        terminated = s.status in (STOP, COLLISION)
        truncated = s.status == MAX_STEPS
        return self._observation(), float(reward), terminated, truncated, self._info(report.collided)

    def render(self) -> np.ndarray | None:
        """Return the three views side by side (left, front, right) as an RGB array, or None without ``rgb_array``."""
        if self.render_mode != "rgb_array" or self.session is None:
            return None
        return np.concatenate([self.session.images[name] for name in VIEWS], axis=1)


class PointGoalNavEnv(GaussianNavEnv):
    __doc__ = GaussianNavEnv.__doc__
    poi = False


class PoiGoalNavEnv(GaussianNavEnv):
    __doc__ = GaussianNavEnv.__doc__
    poi = True
