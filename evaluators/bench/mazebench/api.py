"""The sandbox HTTP API under ``--protocol mazebench``: MazeBench's payloads (https://github.com/Aileen-90/MazeBench,
``sandbox/api.py`` over ``sandbox/env.py``) on the same routes, defects included where a client can see them:

- ``/mazes`` lists the stem of every ``*.json`` directly in the mazes directory (any name), in the folder's
  order (a glob, unsorted);
- ``/load {maze_name}`` reads ``<mazes_dir>/<maze_name>.json``, in a subfolder too (``sub/maze_9x9_1``;
  ``maze_name: 123`` is looked up as ``123.json`` and answers 404);
  ``{message: "Maze 'x' loaded successfully", maze_info}``;
- ``/step`` answers ``{action, state, info, reward, success}`` with its env's info (``{success, position}``, a wall
  ``{error, position}``, the goal ``{success, message: "Congratulations! ..."}``, then ``{info: "Game ended"}``)
  and its rewards: -1 on an error, 100 whenever the game is done (again after the goal), else -0.1;
- ``/render`` draws walls ``#`` and reads ``show_path`` as true only for the text ``true``;
- ``/info`` is its ``get_info()`` (no ``maze_name``); ``available_actions`` are the moves into free cells.

Not reproduced: MazeBench answers 500 to a body that is not JSON or a maze file it cannot read; here that stays a
400 naming the file relative to the mazes directory, a name that leads outside the directory (``../x``) is not
looked up (404), and a file that resolves outside it through a symlink is neither listed nor read (404).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from starlette.applications import Starlette

from maze_envs.core.errors import MazeEnvsError
from maze_envs.core.paths import resolves_inside
from maze_envs.serving.app import HTTPError, relative_names

from ..mazes import load_bench_maze
from ..sandbox.api import SandboxService, service_app
from .sandbox import MOVES, MazeBenchEnv


def flat_maze_names(mazes_dir: str | os.PathLike) -> list[str]:
    """Return the stems of the ``*.json`` files directly in ``mazes_dir`` in the folder's own order, unsorted (as
    MazeBench's ``list_available_mazes`` globs them), leaving out any that resolves outside ``mazes_dir`` through a
    symlink."""
    root = Path(mazes_dir)
    if not root.is_dir():
        return []
    return [p.stem for p in root.glob("*.json") if p.is_file() and resolves_inside(p, root)]


class MazeBenchService(SandboxService):
    """MazeBench's sandbox payloads on the shared route table (see the module docstring)."""

    missing_field = "Missing '{name}' in request body"
    loaded_before_body = True

    def names(self) -> list[str]:
        """Return the stems of the ``*.json`` files directly in the mazes directory."""
        return flat_maze_names(self.mazes_dir)

    def load(self, name: Any) -> dict:
        """Load ``<mazes_dir>/<name>.json``, a subfolder's too (``sub/maze_9x9_1``); 404 when missing or outside
        the directory, 400 when unreadable. The file's ``shortest_path`` is read as stored."""
        name = str(name)
        root = self.mazes_dir.resolve()
        path = (root / f"{name}.json").resolve()
        if name in ("", ".", "..") or not path.is_relative_to(root) or not path.is_file():
            raise HTTPError(404, f"Maze '{name}' not found", param="maze_name")
        try:
            self.game = MazeBenchEnv(load_bench_maze(path, path.parent.name, stored_path=True, root=root))
        except (MazeEnvsError, OSError) as exc:
            raise HTTPError(400, f"cannot load maze '{name}': {relative_names(str(exc), root)}",
                            param="maze_name") from None
        return {"message": f"Maze '{name}' loaded successfully", "maze_info": self.game.info()}

    def reset(self) -> dict:
        """Go back to the start."""
        game = self.loaded()
        return {"message": "Environment reset", "state": game.reset(), "info": game.info()}

    def check_action(self, action: Any) -> dict | None:
        """Return MazeBench's 400 payload for an action that is not one of its moves."""
        if not isinstance(action, str) or action not in MOVES:
            return {"error": f"Invalid action: {action}", "valid_actions": list(MOVES)}
        return None

    def step(self, action: str) -> dict:
        """Play one move with MazeBench's rewards: -1 on an error, 100 whenever the game is done, else -0.1."""
        game = self.loaded()
        info = game.step(action)
        if "error" in info:
            reward, success = -1, False
        elif game.done:
            reward, success = 100, True
        else:
            reward, success = -0.1, True
        return {"action": action, "state": game.state(), "info": info, "reward": reward, "success": success}

    def render(self, show_path: str) -> dict:
        """Draw the maze with ``#`` walls (the path only for the text ``true``)."""
        show = show_path.lower() == "true"
        return {"render": self.loaded().render_ascii(show_path=show), "show_path": show}


def mazebench_sandbox_app(mazes_dir: str | os.PathLike) -> Starlette:
    """Return the sandbox API app with MazeBench's payloads, serving the mazes directly in ``mazes_dir``."""
    return service_app(MazeBenchService(mazes_dir))
