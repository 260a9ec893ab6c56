"""The render HTTP server around a ``maze_envs.nav`` render service: ``POST /render_gs``, ``GET /ping`` and
``GET /scenes`` on uvicorn + Starlette (``maze_envs.serving.app``).

Bad requests get HTTP 4xx with ``{"error": ...}``; a broken scene on disk gets 500 with the same shape.
"""

from __future__ import annotations

import os
import threading

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from maze_envs.core.errors import MazeEnvsError
from maze_envs.nav.errors import RenderRequestError
from maze_envs.nav.service import RenderService

from .app import (
    BODY_TIMEOUT,
    HEADER_TIMEOUT,
    HTTPError,
    LoopbackServer,
    check_port,
    check_timeout,
    json_app,
    json_response,
    read_json_body,
)

MAX_BODY = 1 << 20


class RenderServer(LoopbackServer):
    """The render server: a ``LoopbackServer`` answering from ``service``; ``url`` is its base URL."""

    def __init__(self, service: RenderService, host: str, port: int, body_timeout: float,
                 header_timeout: float = HEADER_TIMEOUT):
        super().__init__(_app(service, body_timeout), host, port, header_timeout=header_timeout)
        self.service = service


def _app(service: RenderService, body_timeout: float) -> Starlette:
    async def ping(request: Request) -> Response:
        return json_response({"status": "ok", "backend": service.backend})

    async def scenes(request: Request) -> Response:
        return json_response({"scenes": await run_in_threadpool(service.scene_ids)})

    async def render(request: Request) -> Response:
        payload = await read_json_body(request, max_bytes=MAX_BODY, timeout=body_timeout)
        try:
            answer = await run_in_threadpool(service.handle, payload)
        except RenderRequestError as exc:
            raise HTTPError(400, str(exc)) from None
        except MazeEnvsError as exc:
            raise HTTPError(500, str(exc)) from exc
        return Response(answer.body, media_type=answer.content_type)

    return json_app([Route("/ping", ping), Route("/scenes", scenes), Route("/render_gs", render, methods=["POST"])])


def make_server(scenes_root: str | os.PathLike, host: str = "127.0.0.1", port: int = 7036, backend: str = "auto",
                render_scale: float = 1.0, body_timeout: float = BODY_TIMEOUT,
                header_timeout: float = HEADER_TIMEOUT, sh_degree: int | None = None) -> RenderServer:
    """Return a bound (not yet serving) render server; port 0 picks a free port. A request body that has not
    fully arrived ``body_timeout`` seconds after its headers gets HTTP 408 and its connection is closed; so is
    a connection whose request headers have not all arrived ``header_timeout`` seconds after it opened or
    after its last answer (``maze_envs.serving.deadlines``). ``sh_degree`` caps the spherical-harmonic degree
    of the colours (0 to 3; None: each scene's own degree).

    Raises ``MazeConfigError`` naming the address when the port is out of range or cannot be bound.
    """
    check_port(port)
    check_timeout(body_timeout, "body_timeout")
    check_timeout(header_timeout, "header_timeout")
    return RenderServer(RenderService(scenes_root, backend, render_scale, sh_degree), host, port, body_timeout,
                        header_timeout)


def serve_in_thread(server: RenderServer) -> threading.Thread:
    """Serve ``server`` in a daemon thread and return the thread once it accepts connections (stop it with
    ``server.stop()``)."""
    return server.start("render-server")
