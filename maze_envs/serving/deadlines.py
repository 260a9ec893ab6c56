"""Connection deadlines uvicorn lacks: a client may hold a connection only while it is sending a request on time.

uvicorn bounds neither the time to receive a request's headers (its ``timeout_keep_alive`` only covers a
connection idle between requests and is cancelled by the first byte of the next one, so a client trickling
a byte at a time holds it forever; https://github.com/encode/uvicorn/issues/157) nor what happens to a
connection whose request body was never read. Two small pieces close both gaps:

- ``header_deadline_protocol(seconds)``: uvicorn's httptools protocol with a deadline on each request's
  headers, counted from when the connection opens or its last response ends. A connection past it is
  closed: silently when no byte of a next request arrived (an idle keep-alive connection), else after a
  ``408`` with a JSON ``{"error": ...}`` body.
- ``CloseUnreadBody(app)``: ASGI middleware adding ``Connection: close`` to any response that starts before
  the request body has been read to its end (a 404, 405, 401, 413 or 408 sent while the client still owes
  body bytes), so uvicorn closes the connection once the response is written instead of waiting for them.

The body's own deadline is ``read_json_body``'s ``timeout`` (``maze_envs.serving.app``).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HEADER_TIMEOUT = 10.0


def _timeout_response(seconds: float) -> bytes:
    body = json.dumps({"error": f"the request headers did not arrive within {seconds:g} s"}).encode("ascii")
    return (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
            b"content-length: %d\r\n\r\n%s" % (len(body), body))


def header_deadline_protocol(seconds: float) -> type[HttpToolsProtocol]:
    """Return a uvicorn HTTP protocol class (httptools) that closes a connection whose next request's headers have
    not all arrived ``seconds`` after the connection opened or its last response ended (408 when some did)."""

    class HeaderDeadlineProtocol(HttpToolsProtocol):
        _deadline: asyncio.TimerHandle | None = None
        _begun = False

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(seconds, self._expire)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                if self._begun:
                    self.transport.write(_timeout_response(seconds))
                self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def on_message_begin(self) -> None:
            self._begun = True
            super().on_message_begin()

        def on_headers_complete(self) -> None:
            self._disarm()
            self._begun = False  # until the first byte of the next request
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            idle = self.cycle is None or self.cycle.response_complete  # no pipelined request already under way
            if idle and not self.transport.is_closing():
                self._arm()

    return HeaderDeadlineProtocol


class CloseUnreadBody:
    """ASGI middleware: a response that starts before the request body was read to its end says
    ``Connection: close``, so the server closes the connection after it instead of waiting for the body."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Run the wrapped app on ``scope``; returns when it has answered."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        read = b"transfer-encoding" not in headers and headers.get(b"content-length", b"0").strip() == b"0"

        async def receiving() -> dict[str, Any]:
            nonlocal read
            message = await receive()
            if message["type"] == "http.request" and not message.get("more_body", False):
                read = True
            return message

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and not read:
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"]
                message = {**message, "headers": [*kept, (b"connection", b"close")]}
            await send(message)

        await self.app(scope, receiving, sending)
