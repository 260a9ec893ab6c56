"""The render HTTP server around a ``maze_envs.nav`` render service: ``POST /render_gs``, ``GET /ping`` and
``GET /scenes`` on uvicorn + Starlette (``maze_envs.serving.app``).

Bad requests get HTTP 4xx with ``{"error": ...}``; a broken scene on disk gets 500 with the same shape. No answer
shows where the scenes root is (paths under it are written relative to it). Renders in flight hold at most
``pixel_budget`` pixels together (default ``PIXEL_BUDGET``: two of the largest, 4096x4096, about 1.3 GB with depth);
one that does not fit gets 503 with ``Retry-After`` at once. Requests pass ``maze_envs.serving.guard`` (``Host``,
``Origin``, JSON bodies, the optional ``api_key``).
"""

from __future__ import annotations

import os
import threading
from typing import Sequence

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from maze_envs.core.errors import MazeEnvsError
from maze_envs.nav.errors import RenderRequestError
from maze_envs.nav.service import MAX_PIXELS, RenderService

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
    relative_names,
)
from .budget import InFlightBudget

MAX_BODY = 1 << 20  # a render request is two camera lines and a few flags: under 1 KB
PIXEL_BUDGET = 2 * MAX_PIXELS  # a 4096x4096 render with depth peaks at about 640 MB; two may run at once


class RenderServer(LoopbackServer):
    """The render server: a ``LoopbackServer`` answering from ``service``; ``url`` is its base URL."""

    def __init__(self, service: RenderService, host: str, port: int, body_timeout: float,
                 header_timeout: float = HEADER_TIMEOUT, *, budget: InFlightBudget | None = None,
                 allow_hosts: Sequence[str] = (), api_key: str | None = None):
        self.budget = budget or InFlightBudget(PIXEL_BUDGET, "pixels", parameter="pixel_budget")
        super().__init__(_app(service, body_timeout, self.budget), host, port, header_timeout=header_timeout,
                         allow_hosts=allow_hosts, api_key=api_key)
        self.service = service


def _app(service: RenderService, body_timeout: float, budget: InFlightBudget) -> Starlette:
    async def ping(request: Request) -> Response:
        return json_response({"status": "ok", "backend": service.backend})

    async def scenes(request: Request) -> Response:
        return json_response({"scenes": await run_in_threadpool(service.scene_ids)})

    async def render(request: Request) -> Response:
        payload = await read_json_body(request, max_bytes=MAX_BODY, timeout=body_timeout)
        try:
            job = await run_in_threadpool(service.prepare, payload)
            with budget.hold(job.pixels):
                answer = await run_in_threadpool(service.run, job)
        except HTTPError:
            raise
        except RenderRequestError as exc:
            raise HTTPError(400, relative_names(str(exc), service.root)) from None
        except MazeEnvsError as exc:
            raise HTTPError(500, relative_names(str(exc), service.root)) from exc
        return Response(answer.body, media_type=answer.content_type)

    return json_app([Route("/ping", ping), Route("/scenes", scenes), Route("/render_gs", render, methods=["POST"])])


def make_server(scenes_root: str | os.PathLike, host: str = "127.0.0.1", port: int = 7036, backend: str = "auto",
                render_scale: float = 1.0, body_timeout: float = BODY_TIMEOUT,
                header_timeout: float = HEADER_TIMEOUT, sh_degree: int | None = None, *,
                pixel_budget: int = PIXEL_BUDGET, allow_hosts: Sequence[str] = (),
                api_key: str | None = None) -> RenderServer:
    """Return a bound (not yet serving) render server; port 0 picks a free port. A request body that has not
    fully arrived ``body_timeout`` seconds after its headers gets HTTP 408 and its connection is closed; so is
    a connection whose request headers have not all arrived ``header_timeout`` seconds after it opened or
    after its last answer (``maze_envs.serving.deadlines``). ``sh_degree`` caps the spherical-harmonic degree
    of the colours (0 to 3; None: each scene's own degree). Renders in flight hold at most ``pixel_budget``
    pixels (503 beyond); ``allow_hosts`` and ``api_key`` are ``LoopbackServer``'s.

    Raises ``MazeConfigError`` naming the address when the port is out of range or cannot be bound, or the
    parameter at fault.
    """
    check_port(port)
    check_timeout(body_timeout, "body_timeout")
    check_timeout(header_timeout, "header_timeout")
    budget = InFlightBudget(pixel_budget, "pixels", parameter="pixel_budget")
    return RenderServer(RenderService(scenes_root, backend, render_scale, sh_degree), host, port, body_timeout,
                        header_timeout, budget=budget, allow_hosts=allow_hosts, api_key=api_key)


def serve_in_thread(server: RenderServer) -> threading.Thread:
    """Serve ``server`` in a daemon thread and return the thread once it accepts connections (stop it with
    ``server.stop()``)."""
    return server.start("render-server")
