"""The error a handler raises to answer with an HTTP status and a JSON body."""

from __future__ import annotations

from maze_envs.core.errors import MazeEnvsError


class HTTPError(MazeEnvsError):
    """An error answered with HTTP ``status`` and a JSON body: ``message``, the request ``param`` at fault
    (or None) and its ``kind`` (``invalid_request_error`` for 4xx, ``server_error`` for 5xx); ``headers`` are
    sent with it (``Retry-After``, ``WWW-Authenticate``)."""

    def __init__(self, status: int, message: str, *, param: str | None = None, kind: str | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param
        self.kind = kind or ("server_error" if status >= 500 else "invalid_request_error")
        self.headers = dict(headers or {})
