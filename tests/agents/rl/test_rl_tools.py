"""Stock RL tools train on the envs unchanged: stable-baselines3, TorchRL, RLlib and Gymnasium's
own play, RecordVideo and human rendering, on the real packages (the ``dev`` extra), a few hundred steps each."""

from __future__ import annotations

import copy
import doctest
import os
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import cv2
import gymnasium as gym
import numpy as np
import pytest
from _doc_blocks import OUTPUT, output_difference, page_blocks
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

import maze_envs
from maze_envs.core.errors import MazeConfigError, UnknownArgumentError
from maze_envs.envs import variants
from maze_envs.envs.registration import (
    VARIANT_ENTRIES,
    RegistrationConflictWarning,
    register_envs,
)
from maze_envs.runs.socket_dir import socket_temp_dir

ROOT = Path(__file__).resolve().parents[3]
GRID_IDS = ("Maze-v0", "Maze-PartialObs-v0", "Maze-Flat-v0", "Maze-Image-v0", "Maze-PartialObs-Flat-v0",
            "Maze-PartialObs-Image-v0")
SMALL = {"rows": 4, "cols": 4}
SMALL_NAV = {"view_width": 32, "view_height": 32, "scenes": 1}


def _frames(path: Path) -> int:
    capture = cv2.VideoCapture(str(path))
    count = 0
    while capture.read()[0]:
        count += 1
    capture.release()
    return count


# --- the ids and spaces stock code expects -----------------------------------------------------------------


def test_the_quickstart_ids_take_discrete_actions_and_the_variants_are_registered():
    assert gym.make("Maze-v0").action_space == spaces.Discrete(4)
    assert gym.make("Maze-PartialObs-v0").action_space == spaces.Discrete(4)
    assert gym.make("Maze-PartialObs-v0", protocol="mazebench").action_space == spaces.MultiDiscrete([4, 3])
    multi = gym.make("Maze-PartialObs-v0", action_mode="multi", visibility=2)
    assert multi.action_space == spaces.MultiDiscrete([4, 2])
    for entry in VARIANT_ENTRIES:
        assert entry.id in gym.registry
    flat = gym.make("Maze-PartialObs-Flat-v0").observation_space
    assert flat.dtype == np.float32 and flat.shape == (7 * 7 * 5,)
    assert gym.make("Maze-Image-v0", rows=3, cols=3).observation_space.shape == (56, 56, 3)


def test_unknown_kwargs_are_a_type_error_in_pythons_words_and_our_config_error():
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'frameskip'") as caught:
        gym.make("Maze-PartialObs-v0", frameskip=4)
    assert isinstance(caught.value, UnknownArgumentError) and isinstance(caught.value, MazeConfigError)
    with pytest.raises(UnknownArgumentError, match="'frameskip', 'x'"):
        gym.make("Maze-Flat-v0", x=1, frameskip=4)


def test_an_id_registered_by_other_code_is_kept_with_a_loud_warning_unless_replaced():
    spec = gym.registry.pop("Maze-Flat-v0")
    try:
        gym.register("Maze-Flat-v0", entry_point="gymnasium.envs.classic_control.cartpole:CartPoleEnv")
        with pytest.warns(RegistrationConflictWarning, match="'Maze-Flat-v0' is already registered by other code"):
            assert register_envs() == []
        assert "CartPole" in gym.spec("Maze-Flat-v0").entry_point
        with pytest.warns(UserWarning):  # Gymnasium's own "Overriding environment" warning
            assert register_envs(replace=True) == ["Maze-Flat-v0"]
        assert gym.spec("Maze-Flat-v0").entry_point == spec.entry_point
    finally:
        gym.registry["Maze-Flat-v0"] = spec
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert register_envs() == []  # our own ids again: silent


def test_the_variant_wrappers_doctests_pass():
    result = doctest.testmod(variants, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_text_and_sequence_spaces_have_numeric_variants_for_sb3_and_flatten():
    from stable_baselines3.common.env_checker import check_env

    raw = gym.wrappers.FlattenObservation(gym.make("Maze-Openings-v0", rows=(6, 7), cols=(6, 7), openings=(3, 4)))
    assert not isinstance(raw.observation_space, spaces.Box)  # Sequence and Text do not flatten to one vector
    openings = gym.make("Maze-Openings-Numeric-v0", rows=(6, 7), cols=(6, 7), openings=(3, 4))
    check_env(openings)
    flat = gym.wrappers.FlattenObservation(openings)
    obs, _ = flat.reset(seed=1)
    assert isinstance(flat.observation_space, spaces.Box)
    assert obs.shape == flat.observation_space.shape and obs in flat.observation_space
    poi = gym.make("GaussianNav-PoiGoal-Numeric-v0", **SMALL_NAV)
    check_env(poi)
    obs, _ = poi.reset(seed=0)
    names = poi.get_wrapper_attr("vocabularies")["poi_name"]
    assert names[obs["poi_name"]] == poi.unwrapped.session.poi_name


def test_nav_envs_pickle_and_deep_copy_after_reset():
    env = gym.make("GaussianNav-PointGoal-v0", **SMALL_NAV)
    env.reset(seed=0)
    action = {"waypoint": np.array([[1.0, 0.0]], np.float32), "arrive": 0}
    twins = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    first = env.step(action)
    for twin in twins:
        again = twin.step(action)
        assert np.array_equal(again[0]["images"]["front"], first[0]["images"]["front"]) and again[1] == first[1]


def test_no_pillow_deprecation_warnings_from_our_image_code(tmp_path):
    from maze_envs.core.generators import generate
    from maze_envs.nav.procedural import write_scene
    from maze_envs.nav.service import encode_jpeg
    from maze_envs.openings.puzzle import generate_openings
    from maze_envs.openings.render import render_openings
    from maze_envs.tasks.render import render_task

    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        render_openings(generate_openings(4, 4, 3, seed=0))
        render_task(generate(3, 3, "dfs", 0))
        encode_jpeg(np.zeros((8, 8, 3), np.uint8))
        write_scene(generate(2, 2, "dfs", 0), tmp_path / "scene")
        env = gym.make("GaussianNav-PointGoal-v0", **SMALL_NAV)
        env.reset(seed=0)
    assert (tmp_path / "scene" / "map" / "occ_map.png").is_file()


# --- stable-baselines3 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", GRID_IDS + ("Maze-Openings-Numeric-v0",))
def test_sb3_check_env_accepts_every_grid_id_and_variant(env_id):
    from stable_baselines3.common.env_checker import check_env

    check_env(gym.make(env_id, **({"rows": 3, "cols": 3} if env_id.startswith("Maze-") and "Openings" not in env_id
                                  else {})))


def test_sb3_ppo_evaluate_policy_and_vec_video_recorder(tmp_path):
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import VecVideoRecorder

    venv = make_vec_env("Maze-PartialObs-Flat-v0", n_envs=2, seed=0, env_kwargs={**SMALL, "render_mode": "rgb_array"})
    venv = VecVideoRecorder(venv, str(tmp_path), record_video_trigger=lambda step: step == 0, video_length=40)
    model = PPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu").learn(256)
    venv.close()
    mean, std = evaluate_policy(model, Monitor(gym.make("Maze-PartialObs-Flat-v0", **SMALL)), n_eval_episodes=3)
    assert np.isfinite(mean) and np.isfinite(std)
    videos = list(tmp_path.glob("*.mp4"))
    assert len(videos) == 1 and _frames(videos[0]) > 10
    cnn = PPO("CnnPolicy", make_vec_env("Maze-PartialObs-Image-v0", n_envs=1, env_kwargs=SMALL), n_steps=32,
              batch_size=32, n_epochs=1, seed=0, device="cpu").learn(64)
    assert cnn.num_timesteps == 64


# --- TorchRL ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", GRID_IDS)
def test_torchrl_gym_env_on_every_grid_id(env_id):
    from torchrl.envs import GymEnv

    env = GymEnv(env_id, **SMALL)  # TorchRL passes frameskip and drops it on Python's TypeError
    rollout = env.rollout(100)
    assert rollout.batch_size[0] >= 1 and ("next", "reward") in rollout.keys(True)
    env.close()


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.DISABLED])
def test_torchrl_gym_wrapper_on_single_and_native_vector_envs(mode):
    from torchrl.envs import GymWrapper

    single = GymWrapper(gym.make("Maze-v0", rows=3, cols=3))
    assert single.rollout(100).batch_size[0] >= 1
    venv = gym.make_vec("Maze-PartialObs-v0", num_envs=4, vectorization_mode="vector_entry_point", rows=3, cols=3,
                        autoreset_mode=mode)
    assert venv.autoreset_mode is mode and venv.metadata["autoreset_mode"] is mode
    rollout = GymWrapper(venv).rollout(150, break_when_any_done=False)
    assert rollout.batch_size == (4, 150) and rollout["next", "done"].sum() > 0


# --- RLlib ------------------------------------------------------------------------------------------------------


def _page_snippets() -> dict[str, str]:
    """Return the Python snippets of the docs page "Use with other RL libraries", keyed by the library they
    import."""
    section = (ROOT / "docs" / "tutorials" / "rl-libraries.md").read_text(encoding="utf-8")
    blocks = [block.split("```", 1)[0] for block in section.split("```python\n")[1:]]
    names = {"stable_baselines3": "sb3", "torchrl": "torchrl", "ray": "rllib", "gymnasium.utils.play": "gymnasium"}
    return {next(name for module, name in names.items() if f"import {module}" in block or f"from {module}" in block):
            block for block in blocks}


def _page_outputs() -> dict[str, str | None]:
    """Return the output block shown after each snippet of the page (None where there is none), keyed as
    ``_page_snippets``."""
    blocks = page_blocks(ROOT / "docs" / "tutorials" / "rl-libraries.md")
    snippets = {code: name for name, code in _page_snippets().items()}
    return {snippets[b.code]: (after.code if after is not None and after.language == OUTPUT else None)
            for b, after in zip(blocks, [*blocks[1:], None], strict=True) if b.code in snippets}


def test_the_rl_libraries_page_has_one_snippet_per_library():
    assert sorted(_page_snippets()) == ["gymnasium", "rllib", "sb3", "torchrl"]


@pytest.mark.parametrize("library", ["sb3", "torchrl", "rllib", "gymnasium"])
def test_page_snippets_run(tmp_path_factory, library):
    """Each snippet of the RL-libraries page runs as written (RLlib's with a remote env runner that never imported
    maze_envs)."""
    cwd = tmp_path_factory.mktemp(library)
    with socket_temp_dir() as ray_temp:  # Ray's socket paths under a long TMPDIR pass the 107-byte AF_UNIX limit
        env = {**os.environ, "PYTHONPATH": str(ROOT), "SDL_VIDEODRIVER": "dummy", "CUDA_VISIBLE_DEVICES": "",
               "RAY_TMPDIR": ray_temp, "TORCHRL_VERBOSE": "0"}
        done = subprocess.run([sys.executable, "-c", _page_snippets()[library]], check=False, cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    if done.stdout.strip():  # the page shows what the snippet prints, as it prints it now
        shown = _page_outputs()[library]
        assert shown is not None and output_difference(shown, done.stdout, cwd) is None, done.stdout[-3000:]
    if library == "rllib":
        assert float(done.stdout.strip().splitlines()[-1]) >= 200
    if library in ("sb3", "gymnasium"):
        assert _frames(next((cwd / "videos").glob("*.mp4"))) > 10
    assert all(path.is_relative_to(cwd) for path in cwd.rglob("*"))


# --- Gymnasium's play, RecordVideo and the human render mode ------------------------------------------------


def test_gymnasium_play_uses_the_envs_key_bindings_and_waits_for_a_key():
    import pygame
    from gymnasium.utils.play import play

    env = gym.make("Maze-PartialObs-v0", rows=3, cols=3, render_mode="rgb_array", action_mode="multi")
    keys = env.unwrapped.get_keys_to_action()
    assert keys[(pygame.K_RIGHT,)].tolist() == [1, 0] and keys[(pygame.K_s,)].tolist() == [2, 0]
    steps = []
    pygame.display.init()
    pygame.display.set_mode((8, 8))
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_DOWN))

    def callback(obs, next_obs, action, reward, terminated, truncated, info):
        steps.append((action.tolist(), info["steps"]))
        pygame.event.post(pygame.event.Event(pygame.KEYUP, key=pygame.K_DOWN))
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE))

    play(env, wait_on_player=True, callback=callback, fps=1000, seed=0)
    assert steps == [([2, 0], 1)]


def test_record_video_on_single_and_native_vector_envs(tmp_path):
    from gymnasium.wrappers.vector import RecordVideo as VectorRecordVideo

    env = gym.wrappers.RecordVideo(gym.make("Maze-v0", rows=3, cols=3, render_mode="rgb_array"), str(tmp_path / "one"))
    env.reset(seed=0)
    for _ in range(30):
        env.step(env.action_space.sample())
    env.close()
    venv = gym.make_vec("Maze-PartialObs-v0", num_envs=3, vectorization_mode="vector_entry_point", rows=3, cols=3,
                        render_mode="rgb_array")
    venv = VectorRecordVideo(venv, str(tmp_path / "vec"), episode_trigger=lambda episode: episode == 0)
    venv.reset(seed=0)
    assert len(venv.env.render()) == 3
    for _ in range(30):
        venv.step(venv.action_space.sample())
    venv.close()
    assert _frames(next((tmp_path / "one").glob("*.mp4"))) > 10
    assert _frames(next((tmp_path / "vec").glob("*.mp4"))) > 10


def test_native_vector_render_matches_the_single_envs_frames():
    venv = gym.make_vec("Maze-PartialObs-v0", num_envs=2, vectorization_mode="vector_entry_point", rows=3, cols=3,
                        render_mode="rgb_array")
    singles = [gym.make("Maze-PartialObs-v0", rows=3, cols=3, render_mode="rgb_array") for _ in range(2)]
    venv.reset(seed=4)
    for i, env in enumerate(singles):
        env.reset(seed=4 + i)
    rng = np.random.default_rng(0)
    for _ in range(20):
        actions = rng.integers(0, 4, 2)
        venv.step(actions)
        for env, action in zip(singles, actions, strict=False):
            env.step(int(action))
        for frame, env in zip(venv.render(), singles, strict=False):
            assert np.array_equal(frame, env.render())


def test_same_step_autoreset_matches_gymnasiums_sync_vector_env():
    kwargs = {"rows": 3, "cols": 3}
    native = gym.make_vec("Maze-v0", num_envs=3, vectorization_mode="vector_entry_point",
                          autoreset_mode="SameStep", **kwargs)
    sync = gym.make_vec("Maze-v0", num_envs=3, vectorization_mode="sync",
                        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP}, **kwargs)
    ours, theirs = native.reset(seed=0), sync.reset(seed=0)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(300):
        actions = rng.integers(0, 4, 3)
        ours, theirs = native.step(actions), sync.step(actions)
        for a, b in zip(ours[:4], theirs[:4], strict=False):
            assert np.array_equal(a, b)
        assert ("final_obs" in ours[4]) == ("final_obs" in theirs[4])
        if "final_obs" in theirs[4]:
            ended += 1
            assert np.array_equal(ours[4]["_final_obs"], theirs[4]["_final_obs"])
            for i in np.flatnonzero(theirs[4]["_final_obs"]):
                assert np.array_equal(ours[4]["final_obs"][i], theirs[4]["final_obs"][i])
                assert ours[4]["final_info"]["steps"][i] == theirs[4]["final_info"]["steps"][i]
    assert ended > 0
    with pytest.raises(MazeConfigError, match="autoreset_mode"):
        gym.make_vec("Maze-v0", num_envs=2, vectorization_mode="vector_entry_point", autoreset_mode="sometimes")


@pytest.mark.parametrize("env_id", ["Maze-v0", "Maze-PartialObs-v0"])
def test_human_mode_draws_the_frame_on_reset_and_on_every_step(env_id):
    import pygame

    env = gym.make(env_id, rows=3, cols=3, render_mode="human", cell_px=4)
    for result in (env.reset(seed=0), env.step(1), env.step(2)):
        shown = pygame.surfarray.array3d(pygame.display.get_surface()).transpose(1, 0, 2)
        assert np.array_equal(shown, env.unwrapped.render_frame()), result[1:]
    env.close()


def test_the_human_render_path_does_not_import_maze_envs_play():
    code = ("import sys, gymnasium as gym, maze_envs; env = gym.make('Maze-v0', rows=3, cols=3, render_mode='human');"
            "env.reset(seed=0); env.step(1); env.unwrapped.get_keys_to_action(); env.close();"
            "print(sorted(m for m in sys.modules if m.startswith('maze_envs.play')))")
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "SDL_VIDEODRIVER": "dummy"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_maze_envs_is_importable_as_a_gymnasium_plugin():
    gym.register_envs(maze_envs)
    assert gym.make("maze_envs:Maze-Flat-v0").observation_space.dtype == np.float32
