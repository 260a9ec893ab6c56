"""A local OpenAI-compatible chat server on 127.0.0.1 that answers from a pluggable policy.

It implements ``POST /v1/chat/completions`` (also Azure's ``/openai/deployments/<name>/chat/completions``)
and ``GET /v1/models``, well enough for the official ``openai`` client, without streaming. Every reply
carries ``system_fingerprint = "maze-envs-local-embedded"`` and the model listing says it is the local
embedded server, so results produced through it say so.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Callable, Union

from maze_envs.serving.http import DaemonHTTPServer, JSONHandler, bind

from .client import LOCAL_FINGERPRINT

SERVER_NOTE = "maze-envs local embedded server (offline policy, not a hosted model)"
MAX_BODY = 256 << 20  # chat requests carry base64 images and videos


@dataclass(frozen=True)
class ChatRequest:
    """What the server was asked: the model name, the messages and the other request parameters."""

    model: str
    messages: list[dict[str, Any]]
    params: dict[str, Any] = field(default_factory=dict)

    def text(self, *, last_user_only: bool = True) -> str:
        """Return the text parts of the last user message (or of every message), joined by newlines."""
        msgs = self.messages
        if last_user_only:
            users = [m for m in msgs if m.get("role") == "user"]
            msgs = users[-1:]
        chunks = []
        for msg in msgs:
            content = msg.get("content")
            if isinstance(content, str):
                chunks.append(content)
            elif isinstance(content, list):
                chunks += [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        return "\n".join(chunks)

    def media_count(self) -> int:
        """Return how many image or video parts the messages carry."""
        return sum(1 for m in self.messages if isinstance(m.get("content"), list)
                   for p in m["content"] if isinstance(p, dict) and p.get("type") in ("image_url", "video_url"))


@dataclass(frozen=True)
class PolicyReply:
    """A policy's answer: reply ``text``, or an HTTP error ``status`` with ``text`` as its message;
    ``delay`` seconds to wait first (to exercise client timeouts)."""

    text: str = ""
    status: int = 200
    delay: float = 0.0


Policy = Callable[[ChatRequest], Union[PolicyReply, str]]


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


class _Handler(JSONHandler):
    server: "_HTTPServer"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return

    def _error(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        self.send_json(status, {"error": {"message": message, "type": kind, "code": status}})

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        owner = self.server.owner
        if self.route.rstrip("/") in ("/v1/models", "/models"):
            self.send_json(200, {"object": "list", "data": [{
                "id": owner.model_name, "object": "model", "created": 0,
                "owned_by": SERVER_NOTE, "description": f"{SERVER_NOTE}; policy: {owner.policy_name}"}]})
            return
        self._error(404, f"no route GET {self.path}")

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        owner = self.server.owner
        if not self.route.rstrip("/").endswith("/chat/completions"):
            self._error(404, f"no route POST {self.path}")
            return
        if owner.api_key is not None:
            given = self.headers.get("api-key") or self.headers.get("Authorization", "").removeprefix("Bearer ")
            if given != owner.api_key:
                self._error(401, "invalid API key", "authentication_error")
                return
        try:
            doc = self.read_json_body(MAX_BODY)
            if not isinstance(doc, dict):
                raise ValueError("the body must be a JSON object")
            messages = doc.pop("messages")
            if not isinstance(messages, list):
                raise ValueError("'messages' must be a list")
        except (ValueError, KeyError) as exc:
            self._error(400, f"bad request body: {exc}")
            return
        request = ChatRequest(str(doc.pop("model", owner.model_name)), messages, doc)
        owner._enter(request)
        try:
            try:
                answer = owner.policy(request)
            except Exception as exc:  # the policy is user code: report its failure as a server error
                self._error(500, f"policy {owner.policy_name} failed: {type(exc).__name__}: {exc}", "server_error")
                return
            reply = PolicyReply(answer) if isinstance(answer, str) else answer
            if reply.delay:
                time.sleep(reply.delay)
            if reply.status != 200:
                self._error(reply.status, reply.text or HTTPStatus(reply.status).phrase,
                            "server_error" if reply.status >= 500 else "invalid_request_error")
                return
            prompt_tokens = _estimate_tokens(request.text(last_user_only=False)) + 85 * request.media_count()
            completion_tokens = _estimate_tokens(reply.text)
            self.send_json(200, {
                "id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
                "model": request.model, "system_fingerprint": LOCAL_FINGERPRINT,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": reply.text}}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                          "total_tokens": prompt_tokens + completion_tokens}})
        finally:
            owner._leave()


class _HTTPServer(DaemonHTTPServer):
    owner: "ModelServer"


class ModelServer:
    """The local model server; ``start()`` serves in a background thread and returns its base URL.

    ``api_key`` (None = accept any) is the key clients must send. ``request_count`` and ``max_in_flight``
    count the chat requests received; with ``keep_requests`` (for tests) ``requests`` also keeps each one,
    media included, so long-running servers leave it off. Use as a context manager to stop it.
    """

    def __init__(self, policy: Policy, *, host: str = "127.0.0.1", port: int = 0, model_name: str = "maze-envs-local",
                 policy_name: str | None = None, api_key: str | None = None, keep_requests: bool = True):
        self.policy = policy
        self.policy_name = policy_name or getattr(policy, "name", None) or getattr(policy, "__name__", "custom")
        self.model_name = model_name
        self.api_key = api_key
        self.host, self.port = host, port
        self.keep_requests = keep_requests
        self.requests: list[ChatRequest] = []
        self.request_count = 0
        self.max_in_flight = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._httpd: _HTTPServer | None = None

    @property
    def base_url(self) -> str:
        """Return the OpenAI-style base URL, ``http://host:port/v1``."""
        if self._httpd is None:
            raise RuntimeError("server is not started")
        return f"http://{self.host}:{self._httpd.server_address[1]}/v1"

    def _enter(self, request: ChatRequest) -> None:
        with self._lock:
            self.request_count += 1
            if self.keep_requests:
                self.requests.append(request)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def bind(self) -> str:
        """Bind the socket (port 0 = a free port) without serving yet; return the base URL.

        Raises ``MazeConfigError`` naming the address when it cannot be bound.
        """
        if self._httpd is None:
            self._httpd = bind(_HTTPServer, self.host, self.port, _Handler, verb="serve")
            self._httpd.owner = self
        return self.base_url

    def start(self) -> str:
        """Bind, serve in a daemon thread, and return the base URL."""
        self.bind()
        self._httpd.start("maze-envs-model-server")
        return self.base_url

    def serve_forever(self) -> None:
        """Bind if needed and serve in the calling thread until interrupted."""
        self.bind()
        try:
            self._httpd.serve_forever()
        finally:
            self._httpd.server_close()

    def stop(self) -> None:
        """Stop serving and release the port."""
        if self._httpd is not None:
            self._httpd.stop()

    def __enter__(self) -> "ModelServer":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
