"""Loopback HTTP plumbing shared by the local model server (``maze_envs.llm``) and the render server
(``maze_envs.serving.render``): stdlib ``http.server`` only, imports nothing of ours but ``maze_envs.core``.

``bind`` creates a ``DaemonHTTPServer`` (threaded, daemon request threads), turning a bad port or a
failed bind into ``MazeConfigError`` naming ``HOST:PORT``; ``start``/``stop`` serve it in a daemon thread
and stop it cleanly. ``JSONHandler`` sends JSON or bytes and reads a size-checked JSON body.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, TypeVar

from maze_envs.core.errors import MazeConfigError

S = TypeVar("S", bound="DaemonHTTPServer")


class BodyError(ValueError):
    """A request body that is empty, too large or not JSON; the message says which (answer it with HTTP 400)."""


class DaemonHTTPServer(ThreadingHTTPServer):
    """A threaded HTTP server whose request threads are daemons; ``start``/``stop`` run it in a daemon thread."""

    daemon_threads = True
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Return the base URL of the bound address, e.g. ``http://127.0.0.1:7036``."""
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def start(self, name: str) -> threading.Thread:
        """Serve in a daemon thread called ``name``; return the thread."""
        self._thread = threading.Thread(target=self.serve_forever, name=name, daemon=True)
        self._thread.start()
        return self._thread

    def stop(self) -> None:
        """Stop serving (when started), release the port and wait for the serving thread; returns nothing."""
        if self._thread is not None:
            self.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self.server_close()


class JSONHandler(BaseHTTPRequestHandler):
    """A keep-alive request handler that answers with JSON or bytes and reads size-checked JSON bodies."""

    protocol_version = "HTTP/1.1"

    def parse_request(self) -> bool:
        """Parse the request line and headers (stdlib); return whether the request may be answered."""
        self._body_read = False
        return super().parse_request()

    @property
    def route(self) -> str:
        """Return the request path without its query string."""
        return self.path.split("?", 1)[0]

    def send_bytes(self, status: int, content_type: str, body: bytes) -> None:
        """Answer with ``status`` and ``body`` of ``content_type``; a client that hung up is ignored.

        A request body left unread closes the connection, so its bytes are never parsed as a next request.
        """
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            if not self._body_read and self.headers.get("Content-Length", "0").strip() not in ("", "0"):
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def send_json(self, status: int, doc: Any) -> None:
        """Answer with ``status`` and ``doc`` as JSON; returns nothing."""
        self.send_bytes(status, "application/json", json.dumps(doc).encode("utf-8"))

    def read_json_body(self, max_bytes: int) -> Any:
        """Return the parsed JSON request body; raise ``BodyError`` when it is empty, over ``max_bytes`` or not JSON."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 < length <= max_bytes:
            raise BodyError(f"a JSON body of 1 to {max_bytes} bytes is required")
        raw = self.rfile.read(length)
        self._body_read = True
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise BodyError(f"invalid JSON body: {exc}") from exc


def check_port(port: Any) -> int:
    """Return ``port`` when it is an int in 0-65535 (0 = a free port); raise ``MazeConfigError`` naming ``port``."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise MazeConfigError(f"must be 0-65535, got {port!r}", parameter="port")
    return port


def bind(server_cls: Callable[..., S], host: str, port: int, *args: Any, verb: str = "listen") -> S:
    """Return ``server_cls((host, port), *args)``, bound but not yet serving.

    Raises ``MazeConfigError``: naming ``port`` when the port is out of range, or saying
    ``cannot <verb> on HOST:PORT`` and why when the address cannot be bound.
    """
    check_port(port)
    try:
        return server_cls((host, port), *args)
    except OSError as exc:
        raise MazeConfigError(f"cannot {verb} on {host}:{port}: {exc.strerror or exc}") from exc
