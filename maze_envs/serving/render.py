"""The render HTTP server around a ``maze_envs.nav`` render service: ``POST /render_gs``, ``GET /ping`` and
``GET /scenes`` over stdlib HTTP (threaded).

Bad requests get HTTP 400 with ``{"error": ...}``; a broken scene on disk gets 500 with the same shape.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from maze_envs.core.errors import MazeEnvsError
from maze_envs.nav.errors import RenderRequestError
from maze_envs.nav.service import RenderService

from .http import BodyError, DaemonHTTPServer, JSONHandler, bind, check_port

MAX_BODY = 1 << 20
log = logging.getLogger(__name__)


class RenderHTTPServer(DaemonHTTPServer):
    """A threaded HTTP server holding one ``RenderService``; ``url`` is its base URL."""

    def __init__(self, address: tuple[str, int], service: RenderService):
        super().__init__(address, RenderHandler)
        self.service = service


class RenderHandler(JSONHandler):
    """Answers the render protocol's three routes."""

    server: RenderHTTPServer

    def do_GET(self) -> None:  # noqa: N802 (http.server naming)
        """Answer ``/ping`` and ``/scenes``."""
        if self.route == "/ping":
            self.send_json(200, {"status": "ok", "backend": self.server.service.backend})
        elif self.route == "/scenes":
            self.send_json(200, {"scenes": self.server.service.scene_ids()})
        else:
            self.send_json(404, {"error": f"no route {self.route}"})

    def do_POST(self) -> None:  # noqa: N802
        """Answer ``/render_gs``."""
        if self.route != "/render_gs":
            self.send_json(404, {"error": f"no route {self.route}"})
            return
        try:
            answer = self.server.service.handle(self.read_json_body(MAX_BODY))
        except (BodyError, RenderRequestError) as exc:
            self.send_json(400, {"error": str(exc)})
        except MazeEnvsError as exc:
            self.send_json(500, {"error": str(exc)})
        except Exception as exc:  # a render bug must answer, not hang the client
            log.exception("render failed")
            self.send_json(500, {"error": f"{type(exc).__name__}: {exc}"})
        else:
            self.send_bytes(200, answer.content_type, answer.body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        log.debug("%s " + format, self.address_string(), *args)


def make_server(scenes_root: str | os.PathLike, host: str = "127.0.0.1", port: int = 7036, backend: str = "auto",
                render_scale: float = 1.0) -> RenderHTTPServer:
    """Return a bound (not yet serving) render server; port 0 picks a free port.

    Raises ``MazeConfigError`` naming the address when the port is out of range or cannot be bound.
    """
    check_port(port)
    return bind(RenderHTTPServer, host, port, RenderService(scenes_root, backend, render_scale))


def serve_in_thread(server: RenderHTTPServer) -> threading.Thread:
    """Start ``server.serve_forever`` in a daemon thread and return the thread (stop with ``server.stop()``,
    or ``server.shutdown()`` then ``server.server_close()``)."""
    return server.start("render-server")
