"""Human play under SDL's dummy video driver, driven by real key events posted to pygame's queue."""

from __future__ import annotations

import os
import subprocess
import sys

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium as gym
import numpy as np
import pygame
import pytest

import maze_envs  # noqa: F401
from maze_envs.cli import main
from maze_envs.core import Grid
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.layout_files import save_layout
from maze_envs.core.maze import move_index
from maze_envs.play.human import PlaySession, check_display

KEYS = {0: pygame.K_UP, 1: pygame.K_RIGHT, 2: pygame.K_DOWN, 3: pygame.K_LEFT}
WASD = {0: pygame.K_w, 1: pygame.K_d, 2: pygame.K_s, 3: pygame.K_a}


def post(*keys):
    for key in keys:
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key))


def path_keys(env, bindings):
    env.reset(seed=0)
    path = env.unwrapped.shortest_route()
    return [bindings[move_index(a, b)] for a, b in zip(path, path[1:], strict=False)]


@pytest.fixture(autouse=True)
def video():
    pygame.display.init()
    pygame.event.clear()
    yield
    pygame.display.quit()


def test_arrow_keys_walk_to_the_goal_and_quit():
    env = gym.make("Maze-PartialObs-v0", rows=4, cols=4, render_mode="rgb_array")
    keys = path_keys(env, KEYS)
    session = PlaySession(env, seed=0)
    post(pygame.K_p, *keys, pygame.K_p, pygame.K_q)
    result = session.run(max_frames=2000)
    assert result.successes == 1 and result.moves == len(keys) and result.episodes == 1
    assert result.returns == [1.0] and result.frames >= 1


def test_wasd_reset_and_escape():
    env = gym.make("Maze-v0", rows=3, cols=3, render_mode="rgb_array")
    keys = path_keys(env, WASD)
    session = PlaySession(env, seed=0)
    post(pygame.K_UP, pygame.K_r, *keys, pygame.K_ESCAPE)
    result = session.run(max_frames=2000)
    assert result.episodes == 2 and result.moves == 1 + len(keys)
    pygame.display.init()
    post(*keys, pygame.K_q)
    again = PlaySession(gym.make("Maze-v0", rows=3, cols=3, render_mode="rgb_array"), seed=0).run(max_frames=2000)
    assert again.successes == 1 and again.moves == len(keys)


def test_window_waits_for_keys_without_freezing():
    env = gym.make("Maze-v0", rows=2, cols=2, render_mode="rgb_array")
    result = PlaySession(env, seed=0, fps=1000).run(max_frames=30)
    assert result.frames == 30 and result.moves == 0


def test_play_command_runs_headless(capsys, tmp_path):
    grid = Grid(np.array([[1, 1, 1, 1, 1], [1, 0, 0, 0, 1], [1, 1, 1, 1, 1]]), (1, 1), (1, 3))
    path = save_layout(grid, tmp_path / "play.json")
    post(pygame.K_RIGHT, pygame.K_d, pygame.K_q)
    assert main(["play", "Maze-PartialObs-v0", "--maze", str(path), "--visibility", "2", "--seed", "0"]) == 0
    assert "reached the goal 1 time in 2 moves" in capsys.readouterr().out


def test_play_command_rejects_bad_flags(capsys):
    assert main(["play", "NoSuch-v0"]) == 2
    assert main(["play", "Maze-Openings-v0"]) == 2  # registered, but not a grid env one walks with keys
    assert main(["play", "Maze-v0", "--visibility", "2"]) == 2
    assert main(["play", "Maze-PartialObs-v0", "--visibility", "0"]) == 2
    assert main(["play", "Maze-v0", "--rows", "-1"]) == 2
    assert main(["play", "Maze-v0", "--rows", "2", "--cols", "2", "--fps", "0"]) == 2
    err = capsys.readouterr().err
    assert "cannot play 'NoSuch-v0'; playable ids: Maze-v0, Maze-PartialObs-v0" in err
    assert "cannot play 'Maze-Openings-v0'" in err and "--visibility: applies" in err and "visibility must be" in err
    assert "rows must be" in err and "fps must be" in err and "Traceback" not in err


def test_play_without_a_display_says_so_in_one_line_and_exits_2(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("SDL_VIDEODRIVER", "DISPLAY", "WAYLAND_DISPLAY")}
    done = subprocess.run([sys.executable, "-m", "maze_envs", "play"], env=env, capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr.count("\n") == 1 and "no display to open the play window on" in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("environ", "platform", "driver", "refused"), [
    ({}, "linux", None, True), ({"DISPLAY": ":0"}, "linux", None, False),
    ({"WAYLAND_DISPLAY": "w"}, "linux", None, False),
    ({"DISPLAY": ":0"}, "linux", "offscreen", True), ({}, "darwin", None, False), ({}, "win32", "windows", False),
    ({"SDL_VIDEODRIVER": "dummy"}, "linux", "dummy", False),
])
def test_check_display_refuses_only_where_no_window_can_be_seen(environ, platform, driver, refused):
    if refused:
        with pytest.raises(MazeConfigError, match="^no display to open the play window on"):
            check_display(environ, platform, driver)
    else:
        check_display(environ, platform, driver)
