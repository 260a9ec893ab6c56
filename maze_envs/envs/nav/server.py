"""The render server: ``POST /render_gs``, ``GET /ping`` and ``GET /scenes`` over stdlib HTTP (threaded).

Bad requests get HTTP 400 with ``{"error": ...}``; a broken scene on disk gets 500 with the same shape.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from maze_envs.core.errors import MazeConfigError, MazeEnvsError

from .errors import RenderRequestError
from .service import RenderService

MAX_BODY = 1 << 20
log = logging.getLogger(__name__)


class RenderHTTPServer(ThreadingHTTPServer):
    """A threaded HTTP server holding one ``RenderService``."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], service: RenderService):
        super().__init__(address, RenderHandler)
        self.service = service

    @property
    def url(self) -> str:
        """Return the base URL, e.g. ``http://127.0.0.1:7036``."""
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"


class RenderHandler(BaseHTTPRequestHandler):
    """Answers the render protocol's three routes."""

    server: RenderHTTPServer
    protocol_version = "HTTP/1.1"

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, doc: Any) -> None:
        self._send(status, "application/json", json.dumps(doc).encode("utf-8"))

    def do_GET(self) -> None:  # noqa: N802 (http.server naming)
        """Answer ``/ping`` and ``/scenes``."""
        path = self.path.split("?", 1)[0]
        if path == "/ping":
            self._json(200, {"status": "ok", "backend": self.server.service.backend})
        elif path == "/scenes":
            self._json(200, {"scenes": self.server.service.scene_ids()})
        else:
            self._json(404, {"error": f"no route {path}"})

    def do_POST(self) -> None:  # noqa: N802
        """Answer ``/render_gs``."""
        path = self.path.split("?", 1)[0]
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if path != "/render_gs":
            self._json(404, {"error": f"no route {path}"})
            return
        if not 0 < length <= MAX_BODY:
            self.close_connection = True
            self._json(400, {"error": f"a JSON body of 1 to {MAX_BODY} bytes is required"})
            return
        try:
            payload = json.loads(self.rfile.read(length))
            answer = self.server.service.handle(payload)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            self._json(400, {"error": f"invalid JSON body: {exc}"})
        except RenderRequestError as exc:
            self._json(400, {"error": str(exc)})
        except MazeEnvsError as exc:
            self._json(500, {"error": str(exc)})
        except Exception as exc:  # a render bug must answer, not hang the client
            log.exception("render failed")
            self._json(500, {"error": f"{type(exc).__name__}: {exc}"})
        else:
            self._send(200, answer.content_type, answer.body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        log.debug("%s " + format, self.address_string(), *args)


def make_server(scenes_root: str | os.PathLike, host: str = "127.0.0.1", port: int = 7036, backend: str = "auto",
                render_scale: float = 1.0) -> RenderHTTPServer:
    """Return a bound (not yet serving) render server; port 0 picks a free port.

    Raises ``MazeConfigError`` naming the address when the port is out of range or cannot be bound.
    """
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise MazeConfigError(f"--port must be 0-65535, got {port!r}")
    service = RenderService(scenes_root, backend, render_scale)
    try:
        return RenderHTTPServer((host, port), service)
    except OSError as exc:
        raise MazeConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc


def serve_in_thread(server: RenderHTTPServer) -> threading.Thread:
    """Start ``server.serve_forever`` in a daemon thread and return the thread (stop with ``server.shutdown()``)."""
    thread = threading.Thread(target=server.serve_forever, name="render-server", daemon=True)
    thread.start()
    return thread
