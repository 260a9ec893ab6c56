"""A Python client of the sandbox HTTP API (any language can speak it; this is the reference client)."""

from __future__ import annotations

from typing import Any

import requests

from maze_envs.core.errors import MazeEnvsError


class SandboxAPIError(MazeEnvsError):
    """The sandbox API answered an error: ``status`` and the server's ``message``."""

    def __init__(self, status: int, message: str):
        super().__init__(f"sandbox API: HTTP {status}: {message}")
        self.status = status
        self.message = message


class SandboxClient:
    """Talks to a sandbox API at ``base_url`` (e.g. ``http://127.0.0.1:5000``); every method returns the JSON
    answer and raises ``SandboxAPIError`` on a 4xx/5xx. ``api_key`` is sent as ``Authorization: Bearer`` to a
    server started with ``--require-key-env``."""

    def __init__(self, base_url: str, *, timeout: float = 30.0, api_key: str | None = None):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.session = requests.Session()
        if api_key:
            self.session.headers["Authorization"] = f"Bearer {api_key}"

    def _call(self, method: str, route: str, **kwargs: Any) -> dict[str, Any]:
        answer = self.session.request(method, self.base_url + route, timeout=self.timeout, **kwargs)
        body = answer.json()
        if answer.status_code >= 400:
            raise SandboxAPIError(answer.status_code, str(body.get("error", body)))
        return body

    def health(self) -> dict[str, Any]:
        """Return ``{status, service}``."""
        return self._call("GET", "/health")

    def mazes(self) -> list[str]:
        """Return the names of the mazes the server can load."""
        return self._call("GET", "/mazes")["mazes"]

    def load(self, maze_name: str) -> dict[str, Any]:
        """Load ``maze_name``; return ``{message, maze_info}``."""
        return self._call("POST", "/load", json={"maze_name": maze_name})

    def reset(self) -> dict[str, Any]:
        """Go back to the start; return ``{message, state, info}``."""
        return self._call("POST", "/reset")

    def step(self, action: str) -> dict[str, Any]:
        """Move ``action`` (up/down/left/right); return ``{action, state, info, reward, success}``."""
        return self._call("POST", "/step", json={"action": action})

    def state(self) -> dict[str, Any]:
        """Return ``{state {position, done, steps}, available_actions}``."""
        return self._call("GET", "/state")

    def info(self) -> dict[str, Any]:
        """Return the maze and game facts."""
        return self._call("GET", "/info")

    def render(self, show_path: bool = False) -> str:
        """Return the maze as text (``*`` on the shortest path with ``show_path``)."""
        return self._call("GET", "/render", params={"show_path": str(show_path).lower()})["render"]

    def close(self) -> None:
        """Close the HTTP session; returns nothing."""
        self.session.close()
