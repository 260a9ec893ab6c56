"""Plumbing shared by the project's HTTP servers: a Starlette app served by uvicorn on a loopback socket.

The project keeps only its routes and handlers; keep-alive, concurrency and HTTP parsing come from uvicorn
and Starlette. What this module adds:

- ``json_app(routes, error_body=...)`` returns a Starlette app whose every error is JSON: an ``HTTPError``
  (status, message, param, kind) raised by a handler, an unknown route (404), a wrong method (405) and a
  bug (500, logged with its traceback by uvicorn). ``error_body`` shapes the body (default
  ``{"error": message}``; the model server gives the OpenAI shape). ``json_response(doc, status)``
  answers with JSON.
- ``read_json_body(request, max_bytes=..., timeout=...)`` returns the parsed JSON body or raises ``HTTPError``: 413
  over ``max_bytes``, 408 when the whole body has not arrived within ``timeout`` seconds (default ``BODY_TIMEOUT``, 30
  s; so a client that promises a body and stalls cannot hold the request forever), 400 when it is empty or not JSON
  (including nesting too deep to parse, integers past Python's digit limit, and ``NaN``/``Infinity``). What
  ``json_response`` writes is always strict JSON. The body is parsed in the thread pool, off the event loop.
- ``LoopbackServer(app, host, port, header_timeout=..., allow_hosts=..., api_key=...)`` binds at once through
  ``bind_socket`` (port 0 = a free port, reported by ``port``/``url``; a bad port or a failed bind raises
  ``MazeConfigError``), then ``start()`` serves in a background thread and returns once it accepts
  connections, ``serve_forever()`` serves in the calling thread (Ctrl-C and SIGTERM stop it gracefully), and
  ``stop()`` stops it, waits for its thread and releases the port. Its connections keep the deadlines of
  ``maze_envs.serving.deadlines``: headers within ``header_timeout`` seconds (default 10), and a connection is
  closed after any answer sent before its request body was read to the end. Its requests pass
  ``maze_envs.serving.guard.RequestGuard``: a foreign ``Host`` (400) or ``Origin`` (403), a missing ``api_key``
  (401) and a non-JSON body (415) are refused.
- ``relative_names(text, root)`` rewrites the paths under ``root`` in an error message relative to it.
- ``HTTPError`` (``maze_envs.serving.errors``) is what a handler raises to answer with a status.

A handler runs on the server's event loop: blocking work (a model policy, a render, disk reads) goes
through ``starlette.concurrency.run_in_threadpool`` so that it does not hold up other requests.

Example::

    async def echo(request):
        return json_response({"got": await read_json_body(request, max_bytes=1 << 20)})

    with LoopbackServer(json_app([Route("/echo", echo, methods=["POST"])])) as server:
        requests.post(server.url + "/echo", json=[1, 2])
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.validate import integer, number

from .deadlines import HEADER_TIMEOUT, CloseUnreadBody, header_deadline_protocol
from .errors import HTTPError
from .guard import RequestGuard, allowed_hosts, check_api_key

BODY_TIMEOUT = 30.0
STOP_GRACE = 2


def json_response(doc: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """Return a response carrying ``doc`` as ASCII JSON (any string a client sent, lone surrogates included,
    can be echoed); a NaN or infinity in ``doc`` raises ``ValueError`` (it is not JSON, and no client reads it)."""
    return Response(json.dumps(doc, allow_nan=False).encode("ascii"), status, headers, media_type="application/json")


def plain_error_body(error: HTTPError) -> dict[str, Any]:
    """Return ``{"error": message}``, the default JSON error body."""
    return {"error": error.message}


def json_app(routes: Sequence[BaseRoute],
             error_body: Callable[[HTTPError], Any] = plain_error_body) -> Starlette:
    """Return a Starlette app serving ``routes`` whose every error answer is ``error_body(HTTPError)`` as JSON."""

    def answer(error: HTTPError, headers: dict[str, str] | None = None) -> Response:
        return json_response(error_body(error), error.status, {**error.headers, **(headers or {})})

    async def on_http_error(request: Request, exc: Exception) -> Response:
        return answer(exc)

    async def on_starlette_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code
        message = f"no route {request.method} {request.url.path}" if status == 404 else exc.detail
        return answer(HTTPError(status, message), exc.headers)

    async def on_bug(request: Request, exc: Exception) -> Response:
        return answer(HTTPError(500, f"internal server error: {type(exc).__name__}"))

    app = Starlette(routes=list(routes), exception_handlers={
        HTTPError: on_http_error, HTTPException: on_starlette_error, Exception: on_bug})
    app.state.answer_error = answer
    return app


async def read_json_body(request: Request, *, max_bytes: int, timeout: float = BODY_TIMEOUT) -> Any:
    """Return the parsed JSON body of ``request``, parsed in the thread pool so that a big body does not hold up
    the event loop.

    Raises ``HTTPError``: 413 when it is (or announces) more than ``max_bytes`` bytes, 408 when it has not
    fully arrived within ``timeout`` seconds, 400 when it is empty, cut off or not JSON.
    """
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise HTTPError(413, f"the request body is {declared} bytes, over the limit of {max_bytes}")
    chunks: list[bytes] = []
    size = 0

    async def receive_all() -> None:
        nonlocal size
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_bytes:
                raise HTTPError(413, f"the request body is over the limit of {max_bytes} bytes")
            chunks.append(chunk)

    try:
        await asyncio.wait_for(receive_all(), timeout)
    except asyncio.TimeoutError:
        raise HTTPError(408, f"the request body did not arrive within {timeout:g} s") from None
    except ClientDisconnect:
        raise HTTPError(400, "the client closed the connection before sending the whole body") from None
    raw = b"".join(chunks)
    chunks.clear()
    return await run_in_threadpool(parse_json_body, raw)


def _not_json_constant(name: str) -> Any:
    raise HTTPError(400, f"invalid JSON body: {name} is not a JSON number (RFC 8259)")


def parse_json_body(raw: bytes) -> Any:
    """Return the JSON value of the request body ``raw``; raises ``HTTPError`` 400 saying why it is not one
    (``NaN`` and ``Infinity``, which Python's reader takes, are refused: no answer could echo them as JSON)."""
    if not raw.strip():
        raise HTTPError(400, "a JSON request body is required")
    try:
        return json.loads(raw, parse_constant=_not_json_constant)
    except RecursionError:
        raise HTTPError(400, "invalid JSON body: arrays or objects nested too deeply") from None
    except ValueError as exc:  # not JSON, not UTF-8, or an integer past Python's digit limit
        raise HTTPError(400, f"invalid JSON body: {str(exc)[:200]}") from None


def check_timeout(seconds: Any, parameter: str = "body_timeout") -> float:
    """Return ``seconds`` as a float when it is a finite number above 0; raise ``MazeConfigError`` naming
    ``parameter``."""
    return float(number(seconds, 0, low_open=True, parameter=parameter))


def check_size(value: Any, parameter: str) -> int:
    """Return ``value`` when it is a whole number above 0 (a byte or pixel limit); raise ``MazeConfigError`` naming
    ``parameter``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise MazeConfigError(f"must be a whole number above 0, got {value!r}", parameter=parameter)
    return value


def check_port(port: Any) -> int:
    """Return ``port`` when it is an int in 0-65535 (0 = a free port); raise ``MazeConfigError`` naming ``port``."""
    return integer(port, 0, 65535, parameter="port")


def bind_socket(host: str, port: int, verb: str = "listen") -> socket.socket:
    """Return a TCP socket bound to ``host``:``port`` (0 = a free port) and listening, so that connections
    made before serving starts wait in its backlog.

    Raises ``MazeConfigError`` naming ``port`` when it is out of range, or saying ``cannot <verb> on
    HOST:PORT`` and why when the address cannot be resolved or bound.
    """
    check_port(port)
    try:
        # proto IPPROTO_TCP (not 0) lets asyncio set TCP_NODELAY on accepted connections; without it a
        # response written in two parts waits out the client's delayed ACK (about 40 ms a request)
        family, kind, proto = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0][:3]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise MazeConfigError(f"cannot {verb} on {host}:{port}: {exc.strerror or exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise MazeConfigError(f"cannot {verb} on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def _error_answer(app: Any) -> Callable[[HTTPError], Response]:
    """Return how ``app`` answers an ``HTTPError`` (what ``json_app`` made it with; else ``{"error": message}``)."""
    state = getattr(app, "state", None)
    return getattr(state, "answer_error", None) or (
        lambda error: json_response(plain_error_body(error), error.status, error.headers))


def relative_names(text: str, root: str | os.PathLike) -> str:
    """Return ``text`` with every path under ``root`` written relative to it (``root`` itself as ``.``), so that an
    answer to a client names a file without showing where the server keeps its files."""
    for form in {str(Path(root)), str(Path(root).resolve())}:
        if form not in (".", ""):
            text = text.replace(form + os.sep, "").replace(form, ".")
    return text


class LoopbackServer:
    """``app`` served by uvicorn on ``host``:``port``, bound at construction; ``url`` is its base URL.

    ``stop_grace`` is how many seconds ``stop()`` lets requests in flight finish before cancelling them. A
    connection whose request headers have not all arrived ``header_timeout`` seconds after it opened (or after
    its last answer) is closed, with a 408 when part of them came; one answered before its request body was
    read to the end is closed after the answer (``maze_envs.serving.deadlines``). Every request passes
    ``maze_envs.serving.guard.RequestGuard`` first: a ``Host`` or ``Origin`` other than ``host`` (its loopback
    names when it is a loopback or wildcard address) or one of ``allow_hosts`` (``*`` = any) is refused, so is a
    body that is not JSON, and, with ``api_key``, a request without ``Authorization: Bearer <api_key>``. Use as a
    context manager to start and stop it.
    """

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0, *, verb: str = "listen",
                 stop_grace: int = STOP_GRACE, header_timeout: float = HEADER_TIMEOUT,
                 allow_hosts: Sequence[str] = (), api_key: str | None = None):
        self.app = app
        self.host = host
        self.header_timeout = check_timeout(header_timeout, "header_timeout")
        check_api_key(api_key)
        guard = RequestGuard(app, allowed_hosts(host, allow_hosts), _error_answer(app), api_key)
        self._socket: socket.socket | None = bind_socket(host, port, verb)
        self.port: int = self._socket.getsockname()[1]
        self._config = uvicorn.Config(CloseUnreadBody(guard), http=header_deadline_protocol(self.header_timeout),
                                      log_config=None, access_log=False, lifespan="off", server_header=False,
                                      timeout_graceful_shutdown=stop_grace)
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Return the base URL of the bound address, e.g. ``http://127.0.0.1:7036``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def _serve(self) -> None:
        if self._socket is None:
            raise RuntimeError("the server was stopped; make a new one")
        self._server = uvicorn.Server(self._config)
        try:
            self._server.run(sockets=[self._socket])
        finally:
            self._close_socket()

    def start(self, name: str = "maze-envs-http") -> threading.Thread:
        """Serve in a daemon thread called ``name``; return the thread once the server accepts connections.

        Raises ``RuntimeError`` when the server does not come up within 30 seconds.
        """
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not (self._server is not None and self._server.started):
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the HTTP server on {self.url} did not start")
            time.sleep(0.005)
        return self._thread

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted (Ctrl-C or SIGTERM in the main thread); returns nothing."""
        self._serve()

    def stop(self) -> None:
        """Stop serving (when started), wait for the serving thread and release the port; returns nothing."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._server = None
        self._close_socket()

    def _close_socket(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    def __enter__(self) -> "LoopbackServer":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
