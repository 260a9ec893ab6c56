"""The sandbox HTTP API under ``--protocol mazebench``: MazeBench's payloads (https://github.com/Aileen-90/MazeBench,
``sandbox/api.py`` over ``sandbox/env.py``) on the same routes, defects included where a client can see them:

- ``/mazes`` lists the stem of every ``*.json`` directly in the mazes directory (any name);
- ``/load {maze_name}`` reads ``<mazes_dir>/<maze_name>.json`` (``maze_name: 123`` is looked up as ``123.json``
  and answers 404); ``{message: "Maze 'x' loaded successfully", maze_info}``;
- ``/step`` answers ``{action, state, info, reward, success}`` with its env's info (``{success, position}``, a wall
  ``{error, position}``, the goal ``{success, message: "Congratulations! ..."}``, then ``{info: "Game ended"}``)
  and its rewards: -1 on an error, 100 whenever the game is done (again after the goal), else -0.1;
- ``/render`` draws walls ``#`` and reads ``show_path`` as true only for the text ``true``;
- ``/info`` is its ``get_info()`` (no ``maze_name``); ``available_actions`` are the moves into free cells.

Not reproduced: MazeBench answers 500 to a body that is not JSON or a maze file it cannot read; here that stays a
400 naming the file relative to the mazes directory, a name with a path separator is not looked up outside the
directory (404), and a file that resolves outside it through a symlink is neither listed nor read (404).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from maze_envs.core.errors import MazeEnvsError
from maze_envs.core.paths import resolves_inside
from maze_envs.serving.app import HTTPError, json_app, json_response, read_json_body, relative_names

from ..mazes import load_bench_maze
from .sandbox import MOVES, MazeBenchEnv

MAX_BODY = 1 << 16
SERVICE = "MazeBench Sandbox API"


def flat_maze_names(mazes_dir: str | os.PathLike) -> list[str]:
    """Return the stems of the ``*.json`` files directly in ``mazes_dir`` (MazeBench's ``list_available_mazes``),
    leaving out any that resolves outside ``mazes_dir`` through a symlink."""
    root = Path(mazes_dir)
    if not root.is_dir():
        return []
    return sorted(p.stem for p in root.glob("*.json") if p.is_file() and resolves_inside(p, root))


def mazebench_sandbox_app(mazes_dir: str | os.PathLike) -> Starlette:
    """Return the sandbox API app with MazeBench's payloads, serving the mazes directly in ``mazes_dir``."""
    root = Path(mazes_dir)
    holder: dict[str, MazeBenchEnv] = {}
    lock = threading.Lock()

    def env() -> MazeBenchEnv:
        if "env" not in holder:
            raise HTTPError(400, "No maze loaded. Use /load first")
        return holder["env"]

    def locked(work):
        def run() -> Any:
            with lock:
                return work()
        return run_in_threadpool(run)

    async def body_field(request: Request, name: str) -> Any:
        body = await read_json_body(request, max_bytes=MAX_BODY)
        if not isinstance(body, dict) or name not in body:
            raise HTTPError(400, f"Missing '{name}' in request body", param=name)
        return body[name]

    async def health(request: Request):
        return json_response({"status": "healthy", "service": SERVICE})

    async def mazes(request: Request):
        names = await run_in_threadpool(flat_maze_names, root)
        return json_response({"mazes": names, "count": len(names)})

    async def load(request: Request):
        name = str(await body_field(request, "maze_name"))

        def work() -> dict:
            path = root / f"{name}.json"
            if ("/" in name or "\\" in name or name in ("", ".", "..") or not path.is_file()
                    or not resolves_inside(path, root)):
                raise HTTPError(404, f"Maze '{name}' not found", param="maze_name")
            try:
                holder["env"] = MazeBenchEnv(load_bench_maze(path, path.parent.name))
            except (MazeEnvsError, OSError) as exc:
                raise HTTPError(400, f"cannot load maze '{name}': {relative_names(str(exc), root)}",
                                param="maze_name") from None
            return {"message": f"Maze '{name}' loaded successfully", "maze_info": holder["env"].info()}
        return json_response(await locked(work))

    async def reset(request: Request):
        def work() -> dict:
            game = env()
            return {"message": "Environment reset", "state": game.reset(), "info": game.info()}
        return json_response(await locked(work))

    async def step(request: Request):
        def check() -> None:
            env()
        await locked(check)
        action = await body_field(request, "action")
        if not isinstance(action, str) or action not in MOVES:
            return json_response({"error": f"Invalid action: {action}", "valid_actions": list(MOVES)}, 400)

        def work() -> dict:
            game = env()
            info = game.step(action)
            if "error" in info:
                reward, success = -1, False
            elif game.done:
                reward, success = 100, True
            else:
                reward, success = -0.1, True
            return {"action": action, "state": game.state(), "info": info, "reward": reward, "success": success}
        return json_response(await locked(work))

    async def state(request: Request):
        def work() -> dict:
            game = env()
            return {"state": game.state(), "available_actions": game.available_actions()}
        return json_response(await locked(work))

    async def info(request: Request):
        return json_response(await locked(lambda: env().info()))

    async def render(request: Request):
        show_path = request.query_params.get("show_path", "false").lower() == "true"
        text = await locked(lambda: env().render_ascii(show_path=show_path))
        return json_response({"render": text, "show_path": show_path})

    return json_app([
        Route("/health", health, methods=["GET"]), Route("/mazes", mazes, methods=["GET"]),
        Route("/load", load, methods=["POST"]), Route("/reset", reset, methods=["POST"]),
        Route("/step", step, methods=["POST"]), Route("/state", state, methods=["GET"]),
        Route("/info", info, methods=["GET"]), Route("/render", render, methods=["GET"]),
    ])
