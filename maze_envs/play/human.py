"""Turn-based human play of a maze env in a pygame window.

Arrow keys or WASD move one block, ``r`` starts a new episode, ``p`` toggles the shortest-path
overlay, ``q`` or Esc quits. The loop redraws at ``fps`` (60 by default) and pumps events every
frame, so the window never freezes while it waits for a key.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.validate import positive_int
from maze_envs.envs.grid.keys import key_bindings, move_action
from maze_envs.envs.window import Window


@dataclass
class PlayResult:
    """What a play session did: episodes started, goals reached, moves pressed, frames drawn."""

    episodes: int = 0
    successes: int = 0
    moves: int = 0
    frames: int = 0
    returns: list[float] = field(default_factory=list)


class PlaySession:
    """A window showing ``env`` (made with ``render_mode="rgb_array"``) that steps it on key presses."""

    def __init__(self, env: gym.Env, seed: int | None = None, fps: int = 60, title: str = "maze-envs play") -> None:
        if env.render_mode != "rgb_array":
            raise ValueError("PlaySession needs an env made with render_mode='rgb_array'")
        self.env = env
        self.seed = seed
        self.fps = positive_int(fps, name="fps")
        self.window = Window(title, status_px=28)
        try:
            check_display(driver=self.window.pygame.display.get_driver())
        except MazeConfigError:
            self.window.close()
            raise
        self.keys = key_bindings()
        self.show_path = False
        self.result = PlayResult()
        self._status = ""
        self._over = False
        self._frame: np.ndarray | None = None  # redrawn only after a key changed something

    def _new_episode(self) -> None:
        seed = None if self.seed is None else self.seed + self.result.episodes
        self.env.reset(seed=seed)
        self._frame = None
        self.result.episodes += 1
        self.result.returns.append(0.0)
        self._over = False
        self._status = "arrows/WASD move, r reset, p path, q quit"

    def _press(self, command: str | int) -> bool:
        """Apply one key's command; return False to quit."""
        if command == "quit":
            return False
        self._frame = None
        if command == "reset":
            self._new_episode()
        elif command == "path":
            self.show_path = not self.show_path
        elif not self._over:
            _, reward, terminated, truncated, info = self.env.step(move_action(self.env.action_space, int(command)))
            self.result.moves += 1
            self.result.returns[-1] += float(reward)
            self._status = f"steps {info['steps']}  bumps {info['wall_bumps']}"
            if terminated:
                self.result.successes += 1
                self._status = (
                    f"goal reached in {info['steps']} steps (optimal {info['optimal_length']}) - r for a new maze"
                )
            elif truncated:
                self._status = f"out of steps after {info['steps']} - r for a new maze"
            self._over = terminated or truncated
        return True

    def run(self, max_frames: int | None = None, presses: Iterable[int] = ()) -> PlayResult:
        """Show the env and play until quit (or ``max_frames`` frames); return what happened.

        ``presses`` are pygame key codes pressed one per frame, as a player would, before the keyboard's own."""
        import pygame

        unwrapped = self.env.unwrapped
        scripted = iter(presses)
        self._new_episode()
        running = True
        while running and (max_frames is None or self.result.frames < max_frames):
            key = next(scripted, None)
            if key is not None:
                pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key))
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    running = False
                elif event.type == pygame.KEYDOWN and event.key in self.keys:
                    running = self._press(self.keys[event.key]) and running
            if self._frame is None:
                route = unwrapped.shortest_route() if self.show_path else ()
                self._frame = unwrapped.render_frame(route)
            self.window.show(self._frame, self.fps, self._status)
            self.result.frames += 1
        self.window.close()
        return self.result


# SDL's drivers that show nothing: SDL falls back to offscreen when it finds no display, and a player would wait for
# ever on a window nobody sees. Chosen on purpose through SDL_VIDEODRIVER (scripted play, tests), they are fine.
HEADLESS_DRIVERS = frozenset({"offscreen", "dummy"})
_DISPLAY_VARIABLES = ("DISPLAY", "WAYLAND_DISPLAY")


def check_display(environ: Mapping[str, str] = os.environ, platform: str = sys.platform,
                  driver: str | None = None) -> None:
    """Return None when a play window can be seen: ``SDL_VIDEODRIVER`` chooses a driver, or (on X11/Wayland
    systems) ``DISPLAY`` or ``WAYLAND_DISPLAY`` is set, and the ``driver`` SDL picked (when known) shows windows.

    Raises ``MazeConfigError`` saying there is no display otherwise, before SDL starts (so that it prints nothing).
    """
    if environ.get("SDL_VIDEODRIVER"):
        return
    advice = "run it in a desktop session, or set SDL_VIDEODRIVER=dummy to play headless from a script"
    unix_desktop = not platform.startswith(("win", "darwin", "cygwin", "emscripten"))
    if unix_desktop and not any(environ.get(name) for name in _DISPLAY_VARIABLES):
        raise MazeConfigError(f"no display to open the play window on (DISPLAY and WAYLAND_DISPLAY are unset); "
                              f"{advice}")
    if driver in HEADLESS_DRIVERS:
        raise MazeConfigError(f"no display to open the play window on (SDL found none and chose its {driver!r} "
                              f"driver); {advice}")


def playable_ids() -> list[str]:
    """Return the registered ids whose env is a grid maze env (the ones a person can walk with the keys)."""
    from gymnasium.envs.registration import load_env_creator

    import maze_envs  # noqa: F401  (registers the ids)
    from maze_envs.envs.grid.base import MazeEnvBase

    return [env_id for env_id, spec in gym.registry.items() if isinstance(spec.entry_point, str)
            and spec.entry_point.startswith("maze_envs.")
            and isinstance(creator := load_env_creator(spec.entry_point), type) and issubclass(creator, MazeEnvBase)]


def play_env(env_id: str, *, seed: int | None = None, fps: int = 60, title: str | None = None,
             **env_kwargs) -> PlayResult:
    """Open a window on ``gym.make(env_id, render_mode="rgb_array", **env_kwargs)`` and play until it is closed;
    return what the session did. Raises ``MazeConfigError`` when there is no display to show the window on
    (``check_display``), naming ``env_id`` when it is no grid maze env, and ``visibility`` when it is given to an env
    without a partial view."""
    check_display()
    playable = playable_ids()
    if env_id not in playable:
        raise MazeConfigError(f"cannot play {env_id!r}; playable ids: {', '.join(playable)}")
    if env_kwargs.get("visibility") is not None and "PartialObs" not in env_id:
        raise MazeConfigError(f"applies to the partial-observation env, not {env_id}", parameter="visibility")
    env = gym.make(env_id, render_mode="rgb_array", **env_kwargs)
    try:
        return PlaySession(env, seed=seed, fps=fps, title=title or f"maze-envs play {env_id}").run()
    finally:
        env.close()
