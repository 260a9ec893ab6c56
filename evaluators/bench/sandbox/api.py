"""MazeBench's sandbox HTTP API as a Starlette app: one game per server, so agents in any language can play.

Routes, fields and status codes follow MazeBench (https://github.com/Aileen-90/MazeBench, ``sandbox/api.py``):
``GET /health``, ``GET /mazes``, ``POST /load {maze_name}``, ``POST /reset``, ``POST /step {action}``,
``GET /state``, ``GET /info`` and ``GET /render?show_path=true``. Every route but the first three answers 400
``No maze loaded. Use /load first`` before a maze is loaded. A bad body, a missing field, an unknown action or a
maze file that cannot be read is a 400 and an unknown maze a 404, each with ``{"error": ...}``; nothing a client
sends gives a 500, and no answer shows where the mazes directory is. A file that resolves outside the mazes
directory through a symlink is not listed and not read.

Every protocol's sandbox serves the one route table of ``service_app``: a protocol supplies a ``SandboxService``
(what each route answers) and ``sandbox_app(mazes_dir, protocol)`` builds the app of the protocol's
``SandboxRules.app``; this module's ``DefaultService`` is the default protocol's.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from maze_envs import protocols
from maze_envs.core.errors import MazeEnvsError
from maze_envs.core.mazebench_files import MAZEBENCH_NAME
from maze_envs.core.paths import resolves_inside
from maze_envs.serving.app import HTTPError, json_app, json_response, read_json_body, relative_names
from maze_envs.serving.serial import OneAtATime

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


class SandboxService:
    """What the sandbox routes answer, for one game per server: subclasses build the game and its payloads.
    Every method but ``names`` and ``check_action`` runs in a worker thread, one call at a time (``serial``)."""

    missing_field = "{name} is required"
    loaded_before_body = False  # /step answers "No maze loaded" before it reads the body

    def __init__(self, mazes_dir: str | os.PathLike):
        self.mazes_dir = Path(mazes_dir)
        self.game: Any = None
        self.serial = OneAtATime()

    def loaded(self) -> Any:
        """Return the game; raises HTTP 400 when no maze is loaded."""
        if self.game is None:
            raise HTTPError(400, "No maze loaded. Use /load first")
        return self.game

    def names(self) -> list[str]:
        """Return the names ``/mazes`` lists."""
        raise NotImplementedError

    def load(self, name: Any) -> dict:
        """Load the maze called ``name``; return the ``/load`` payload (HTTP 400/404 for a bad name)."""
        raise NotImplementedError

    def reset(self) -> dict:
        """Reset the game; return the ``/reset`` payload."""
        raise NotImplementedError

    def check_action(self, action: Any) -> dict | None:
        """Return the payload of a 400 for an action that is not a move (or raise ``HTTPError``); None if valid."""
        raise NotImplementedError

    def step(self, action: str) -> dict:
        """Play ``action``; return the ``/step`` payload."""
        raise NotImplementedError

    def state(self) -> dict:
        """Return the ``/state`` payload."""
        game = self.loaded()
        return {"state": game.state(), "available_actions": game.available_actions()}

    def info(self) -> dict:
        """Return the ``/info`` payload."""
        return self.loaded().info()

    def render(self, show_path: str) -> dict:
        """Return the ``/render`` payload for the ``show_path`` query text."""
        raise NotImplementedError


def service_app(service: SandboxService) -> Starlette:
    """Return the sandbox API app of ``service``: the one route table every protocol's sandbox serves."""
    locked = service.serial.run

    async def field(request: Request, name: str) -> Any:
        body = await read_json_body(request, max_bytes=MAX_BODY)
        if not isinstance(body, dict) or name not in body:
            raise HTTPError(400, service.missing_field.format(name=name), param=name)
        return body[name]

    async def health(request: Request):
        return json_response({"status": "healthy", "service": SERVICE})

    async def mazes(request: Request):
        names = await run_in_threadpool(service.names)
        return json_response({"mazes": names, "count": len(names)})

    async def load(request: Request):
        name = await field(request, "maze_name")
        return json_response(await locked(lambda: service.load(name)))

    async def reset(request: Request):
        return json_response(await locked(service.reset))

    async def step(request: Request):
        if service.loaded_before_body:
            await locked(service.loaded)
        action = await field(request, "action")
        invalid = service.check_action(action)
        if invalid is not None:
            return json_response(invalid, 400)
        return json_response(await locked(lambda: service.step(action)))

    async def state(request: Request):
        return json_response(await locked(service.state))

    async def info(request: Request):
        return json_response(await locked(service.info))

    async def render(request: Request):
        show_path = request.query_params.get("show_path", "false")
        return json_response(await locked(lambda: service.render(show_path)))

    return json_app([
        Route("/health", health, methods=["GET"]), Route("/mazes", mazes, methods=["GET"]),
        Route("/load", load, methods=["POST"]), Route("/reset", reset, methods=["POST"]),
        Route("/step", step, methods=["POST"]), Route("/state", state, methods=["GET"]),
        Route("/info", info, methods=["GET"]), Route("/render", render, methods=["GET"]),
    ])


class DefaultService(SandboxService):
    """The default protocol's sandbox: benchmark mazes in size directories (or flat), this project's game."""

    def names(self) -> list[str]:
        """Return the stems of the benchmark maze files (``maze_files``)."""
        return list(maze_files(self.mazes_dir))

    def load(self, name: Any) -> dict:
        """Load a maze by its stem; 400 for a name that is not a string, 404 for an unknown one."""
        if not isinstance(name, str) or not name:
            raise HTTPError(400, "maze_name must be a maze name from /mazes", param="maze_name")
        path = maze_files(self.mazes_dir).get(name)
        if path is None:
            raise HTTPError(404, f"maze {name[:100]!r} not found", param="maze_name")
        try:
            self.game = SandboxGame(load_bench_maze(path, path.parent.name, root=self.mazes_dir))
        except (MazeEnvsError, OSError) as exc:
            raise HTTPError(400, f"cannot load maze {name!r}: {relative_names(str(exc), self.mazes_dir)}",
                            param="maze_name") from None
        return {"message": f"Maze {name} loaded", "maze_info": self.game.info()}

    def reset(self) -> dict:
        """Go back to the start."""
        game = self.loaded()
        return {"message": "Maze reset", "state": game.reset(), "info": game.info()}

    def check_action(self, action: Any) -> dict | None:
        """Raise HTTP 400 unless ``action`` is one of ``ACTIONS``."""
        if action not in ACTIONS:
            raise HTTPError(400, f"invalid action {str(action)[:40]!r}; use one of {', '.join(ACTIONS)}",
                            param="action")
        return None

    def step(self, action: str) -> dict:
        """Play one move."""
        game = self.loaded()
        outcome, reward, moved = game.step(action)
        return {"action": action, "state": game.state(), "info": outcome, "reward": reward, "success": moved}

    def render(self, show_path: str) -> dict:
        """Draw the maze (with the shortest path for ``1``, ``true`` or ``yes``)."""
        show = show_path.lower() in ("1", "true", "yes")
        return {"render": self.loaded().render(show_path=show), "show_path": show}


def default_sandbox_app(mazes_dir: str | os.PathLike) -> Starlette:
    """Return the default protocol's sandbox API app serving the mazes under ``mazes_dir``."""
    return service_app(DefaultService(mazes_dir))


def sandbox_app(mazes_dir: str | os.PathLike, protocol: str = protocols.DEFAULT) -> Starlette:
    """Return the sandbox API app of ``protocol`` (its ``SandboxRules.app``) serving the mazes under ``mazes_dir``;
    raises ``MazeConfigError`` for a protocol without sandbox rules."""
    return protocols.load(protocols.protocol(protocol, "sandbox").sandbox.app)(mazes_dir)
