"""MazeBench's sandbox HTTP API as a Starlette app: one game per server, so agents in any language can play.

Routes, fields and status codes follow MazeBench (https://github.com/Aileen-90/MazeBench, ``sandbox/api.py``):
``GET /health``, ``GET /mazes``, ``POST /load {maze_name}``, ``POST /reset``, ``POST /step {action}``,
``GET /state``, ``GET /info`` and ``GET /render?show_path=true``. Every route but the first three answers 400
``No maze loaded. Use /load first`` before a maze is loaded. A bad body, a missing field, an unknown action or a
maze file that cannot be read is a 400 and an unknown maze a 404, each with ``{"error": ...}``; nothing a client
sends gives a 500, and no answer shows where the mazes directory is. A file that resolves outside the mazes
directory through a symlink is not listed and not read.
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
from maze_envs.core.mazebench_files import MAZEBENCH_NAME
from maze_envs.core.paths import resolves_inside
from maze_envs.serving.app import HTTPError, json_app, json_response, read_json_body, relative_names

from ..mazes import load_bench_maze
from .game import ACTIONS, SandboxGame

MAX_BODY = 1 << 16
SERVICE = "MazeBench Sandbox API"


def maze_files(mazes_dir: str | os.PathLike) -> dict[str, Path]:
    """Return every benchmark maze file under ``mazes_dir`` (one level of size directories, or flat) by stem,
    leaving out any that resolves outside ``mazes_dir`` through a symlink."""
    root = Path(mazes_dir)
    files = sorted(p for pattern in ("*.json", "*/*.json") for p in root.glob(pattern)
                   if MAZEBENCH_NAME.match(p.name) and resolves_inside(p, root))
    return {p.stem: p for p in files}


class SandboxSession:
    """The server's one game and the lock that serialises its requests."""

    def __init__(self, mazes_dir: str | os.PathLike):
        self.mazes_dir = Path(mazes_dir)
        self.game: SandboxGame | None = None
        self.lock = threading.Lock()

    def loaded(self) -> SandboxGame:
        """Return the game; raises HTTP 400 when no maze is loaded."""
        if self.game is None:
            raise HTTPError(400, "No maze loaded. Use /load first")
        return self.game


async def _field(request: Request, name: str) -> Any:
    body = await read_json_body(request, max_bytes=MAX_BODY)
    if not isinstance(body, dict) or name not in body:
        raise HTTPError(400, f"{name} is required", param=name)
    return body[name]


def sandbox_app(mazes_dir: str | os.PathLike, protocol: str = "strict") -> Starlette:
    """Return the sandbox API app serving the mazes under ``mazes_dir`` (``protocol`` ``mazebench``: MazeBench's
    payloads, ``evaluators.bench.mazebench.api``)."""
    if protocol == "mazebench":
        from ..mazebench.api import mazebench_sandbox_app

        return mazebench_sandbox_app(mazes_dir)
    session = SandboxSession(mazes_dir)

    def locked(work):
        def run() -> Any:
            with session.lock:
                return work()
        return run_in_threadpool(run)

    async def health(request: Request):
        return json_response({"status": "healthy", "service": SERVICE})

    async def mazes(request: Request):
        names = list(await run_in_threadpool(maze_files, session.mazes_dir))
        return json_response({"mazes": names, "count": len(names)})

    async def load(request: Request):
        name = await _field(request, "maze_name")
        if not isinstance(name, str) or not name:
            raise HTTPError(400, "maze_name must be a maze name from /mazes", param="maze_name")

        def work() -> dict:
            path = maze_files(session.mazes_dir).get(name)
            if path is None:
                raise HTTPError(404, f"maze {name[:100]!r} not found", param="maze_name")
            try:
                session.game = SandboxGame(load_bench_maze(path, path.parent.name))
            except (MazeEnvsError, OSError) as exc:
                raise HTTPError(400, f"cannot load maze {name!r}: {relative_names(str(exc), session.mazes_dir)}",
                                param="maze_name") from None
            return {"message": f"Maze {name} loaded", "maze_info": session.game.info()}
        return json_response(await locked(work))

    async def reset(request: Request):
        def work() -> dict:
            game = session.loaded()
            return {"message": "Maze reset", "state": game.reset(), "info": game.info()}
        return json_response(await locked(work))

    async def step(request: Request):
        action = await _field(request, "action")
        if action not in ACTIONS:
            raise HTTPError(400, f"invalid action {str(action)[:40]!r}; use one of {', '.join(ACTIONS)}",
                            param="action")

        def work() -> dict:
            game = session.loaded()
            outcome, reward, moved = game.step(action)
            return {"action": action, "state": game.state(), "info": outcome, "reward": reward, "success": moved}
        return json_response(await locked(work))

    async def state(request: Request):
        def work() -> dict:
            game = session.loaded()
            return {"state": game.state(), "available_actions": game.available_actions()}
        return json_response(await locked(work))

    async def info(request: Request):
        return json_response(await locked(lambda: session.loaded().info()))

    async def render(request: Request):
        show_path = request.query_params.get("show_path", "false").lower() in ("1", "true", "yes")
        text = await locked(lambda: session.loaded().render(show_path=show_path))
        return json_response({"render": text, "show_path": show_path})

    return json_app([
        Route("/health", health, methods=["GET"]), Route("/mazes", mazes, methods=["GET"]),
        Route("/load", load, methods=["POST"]), Route("/reset", reset, methods=["POST"]),
        Route("/step", step, methods=["POST"]), Route("/state", state, methods=["GET"]),
        Route("/info", info, methods=["GET"]), Route("/render", render, methods=["GET"]),
    ])
