"""A local OpenAI-compatible chat server on 127.0.0.1 that answers from a pluggable policy.

It implements ``POST /v1/chat/completions`` (also Azure's ``/openai/deployments/<name>/chat/completions``),
OpenAI's Responses API ``POST /v1/responses`` (text and image input parts, ``maze_envs.llm.responses``; the
request's ``ChatRequest.api`` says which) and ``GET /v1/models``, well enough for the official ``openai``
client, without streaming. A policy may answer with function calls (``PolicyReply.tool_calls``): they go out as the
message's ``tool_calls`` (finish reason ``tool_calls``) or as Responses ``function_call`` items. Every reply
carries ``system_fingerprint = "maze-envs-local-embedded"`` and the
model listing says it is the local embedded server, so results produced through it say so. It runs on
uvicorn + Starlette through ``maze_envs.serving.app``; a request that is not a well-formed chat request gets
HTTP 400 with an OpenAI-style error body ``{"error": {"message", "type", "param", "code"}}``: so does an image part
whose header declares more than ``MAX_DECODED_PIXELS`` (refused before decoding). Bodies over ``MAX_BODY`` get 413;
a foreign ``Host`` or ``Origin``, a non-JSON body or a missing key are refused before any route runs
(``maze_envs.serving.guard``).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
import threading
import time
import uuid
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Callable, Sequence, Union

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from maze_envs.core.errors import MazeFormatError, brief_repr
from maze_envs.core.images import MAX_DECODED_PIXELS, check_pixels, image_size
from maze_envs.core.maze_tools import ToolCall
from maze_envs.serving.app import (
    BODY_TIMEOUT,
    HEADER_TIMEOUT,
    HTTPError,
    LoopbackServer,
    check_size,
    check_timeout,
    json_app,
    json_response,
    read_json_body,
)

from .client import LOCAL_FINGERPRINT
from .responses import chat_body, response_object

SERVER_NOTE = "maze-envs local embedded server (offline policy, not a hosted model)"
# The largest chat request the project sends: a video as 16 sampled frames (the default video_frames), each a
# 1024x1024 RGB PNG that does not compress at all (3 MiB), in base64 (4/3): 16 x 4 MiB = 64 MiB.
MAX_BODY = 64 << 20
ROLES = ("system", "user", "assistant", "tool", "developer")
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChatRequest:
    """What the server was asked: the model name, the messages and the other request parameters, and through
    which ``api`` (``chat`` completions or ``responses``; a Responses request is read as its chat equivalent)."""

    model: str
    messages: list[dict[str, Any]]
    params: dict[str, Any] = field(default_factory=dict)
    api: str = "chat"

    @classmethod
    def from_body(cls, doc: Any, default_model: str, *, api: str = "chat") -> "ChatRequest":
        """Return the request of an OpenAI chat request body ``doc`` (``model`` defaults to ``default_model``).

        Raises ``HTTPError`` 400 naming the field at fault unless ``doc`` is an object whose ``messages`` is a
        non-empty list of objects, each with a ``role`` in ``ROLES`` and a ``content`` that is a string or a
        list of content parts (objects whose ``type`` is one of ``CONTENT_PARTS``, carrying that type's field:
        ``text`` a string, ``image_url`` an object with a string ``url``, ...); only an assistant message may
        leave out its content (it may carry tool calls instead).
        """
        if not isinstance(doc, dict):
            raise HTTPError(400, "the request body must be a JSON object")
        params = dict(doc)
        model = params.pop("model", default_model)
        if not isinstance(model, str):
            raise HTTPError(400, "model: a string is required", param="model")
        messages = params.pop("messages", None)
        if not isinstance(messages, list) or not messages:
            raise HTTPError(400, "messages: a non-empty list of message objects is required", param="messages")
        for index, message in enumerate(messages):
            _check_message(message, f"messages[{index}]")
        return cls(model, messages, params, api)

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

    @property
    def tool_names(self) -> tuple[str, ...]:
        """Return the names of the functions the request offers (``tools``, Chat Completions format), in order."""
        tools = self.params.get("tools")
        return tuple(t["function"]["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("function"), dict)
                     and isinstance(t["function"].get("name"), str)) if isinstance(tools, list) else ()

    def media_count(self) -> int:
        """Return how many image or video parts the messages carry."""
        return sum(1 for m in self.messages if isinstance(m.get("content"), list)
                   for p in m["content"] if isinstance(p, dict) and p.get("type") in ("image_url", "video_url"))


# Each content part type with the field that carries it: None = a string; else the object's required string keys.
CONTENT_PARTS: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "text": ("text", None), "refusal": ("refusal", None), "image_url": ("image_url", ("url",)),
    "video_url": ("video_url", ("url",)), "input_audio": ("input_audio", ("data", "format")), "file": ("file", ()),
}
IMAGE_DETAILS = ("auto", "low", "high")


def _check_message(message: Any, where: str) -> None:
    """Return None when ``message`` is a well-formed chat message; raise ``HTTPError`` 400 naming ``where``."""
    if not isinstance(message, dict):
        raise HTTPError(400, f"{where}: a message object is required", param=where)
    if message.get("role") not in ROLES:
        raise HTTPError(400, f"{where}.role: one of {', '.join(ROLES)} is required", param=f"{where}.role")
    content = message.get("content")
    if isinstance(content, str) or (content is None and message["role"] == "assistant"):
        return
    if not isinstance(content, list):
        raise HTTPError(400, f"{where}.content: a string or a list of content parts is required",
                        param=f"{where}.content")
    for index, part in enumerate(content):
        _check_part(part, f"{where}.content[{index}]")


def _check_part(part: Any, at: str) -> None:
    """Return None when ``part`` is a content part of a type in ``CONTENT_PARTS`` with the fields that type needs
    (a data URL with well-formed base64); raise ``HTTPError`` 400 naming the field at fault under ``at``."""
    if not isinstance(part, dict) or not isinstance(part.get("type"), str):
        raise HTTPError(400, f"{at}: a content part object with a string type is required", param=at)
    if part["type"] not in CONTENT_PARTS:
        raise HTTPError(400, f"{at}.type: one of {', '.join(CONTENT_PARTS)} is required, got "
                             f"{brief_repr(part['type'])}", param=f"{at}.type")
    name, keys = CONTENT_PARTS[part["type"]]
    value, at = part.get(name), f"{at}.{name}"
    if keys is None:
        if not isinstance(value, str):
            raise HTTPError(400, f"{at}: a string is required", param=at)
        return
    if not isinstance(value, dict):
        raise HTTPError(400, f"{at}: an object is required", param=at)
    for key in keys:
        if not isinstance(value.get(key), str):
            raise HTTPError(400, f"{at}.{key}: a string is required", param=f"{at}.{key}")
    if part["type"] == "image_url" and "detail" in value and value["detail"] not in IMAGE_DETAILS:
        raise HTTPError(400, f"{at}.detail: one of {', '.join(IMAGE_DETAILS)} is required", param=f"{at}.detail")
    url = value.get("url")
    if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
        try:
            data = base64.b64decode(url.split(";base64,", 1)[1], validate=True)
        except (binascii.Error, ValueError):
            raise HTTPError(400, f"{at}.url: the data URL's base64 payload is malformed", param=f"{at}.url") from None
        if part["type"] == "image_url":
            _check_image_pixels(data, f"{at}.url")


def _check_image_pixels(data: bytes, at: str) -> None:
    """Return None unless ``data`` is an image whose header declares more than ``MAX_DECODED_PIXELS``; then raise
    ``HTTPError`` 400 naming ``at`` (bytes that are no image are left to the policy)."""
    try:
        width, height = image_size(data, source=at)
    except MazeFormatError:
        return
    try:
        check_pixels(width, height, MAX_DECODED_PIXELS, source=at)
    except MazeFormatError as exc:
        raise HTTPError(400, str(exc), param=at) from None


@dataclass(frozen=True)
class PolicyReply:
    """A policy's answer: reply ``text`` and function calls ``tool_calls`` (in order), or an HTTP error ``status``
    with ``text`` as its message; ``delay`` seconds to wait first (to exercise client timeouts)."""

    text: str = ""
    status: int = 200
    delay: float = 0.0
    tool_calls: tuple[ToolCall, ...] = ()


Policy = Callable[[ChatRequest], Union[PolicyReply, str]]


def _estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


def _openai_error_body(error: HTTPError) -> dict[str, Any]:
    return {"error": {"message": error.message, "type": error.kind, "param": error.param, "code": error.status}}


def _models(owner: "ModelServer") -> dict[str, Any]:
    return {"object": "list", "data": [{
        "id": owner.model_name, "object": "model", "created": 0,
        "owned_by": SERVER_NOTE, "description": f"{SERVER_NOTE}; policy: {owner.policy_name}"}]}


def _completion(request: ChatRequest, reply: PolicyReply) -> dict[str, Any]:
    prompt_tokens = _estimate_tokens(request.text(last_user_only=False)) + 85 * request.media_count()
    completion_tokens = _estimate_tokens(reply.text) + sum(_estimate_tokens(c.name + c.arguments)
                                                           for c in reply.tool_calls)
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.tool_calls:
        message.update(content=reply.text or None, tool_calls=[c.to_message_part() for c in reply.tool_calls])
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
        "model": request.model, "system_fingerprint": LOCAL_FINGERPRINT,
        "choices": [{"index": 0, "finish_reason": "tool_calls" if reply.tool_calls else "stop", "message": message}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens}}


def _app(owner: "ModelServer") -> Starlette:
    async def list_models(request: Request) -> Response:
        return json_response(_models(owner))

    async def answer(request: Request, api: str) -> Response:
        """Answer one request of ``api`` (``chat`` or ``responses``) through the same checks and policy."""
        body = await read_json_body(request, max_bytes=owner.max_body, timeout=owner.body_timeout)
        chat = await run_in_threadpool(ChatRequest.from_body, chat_body(body) if api == "responses" else body,
                                       owner.model_name, api=api)
        owner._enter(chat)
        try:
            try:
                answer = await run_in_threadpool(owner.policy, chat)
            except Exception as exc:  # the policy is user code: its failure is a server error, its text is logged
                log.exception("policy %s failed", owner.policy_name)
                raise HTTPError(500, f"policy {owner.policy_name} failed ({type(exc).__name__}); the server log "
                                     "has the details") from exc
            reply = PolicyReply(answer) if isinstance(answer, str) else answer
            if reply.delay:
                await asyncio.sleep(reply.delay)
            if reply.status != 200:
                raise HTTPError(reply.status, reply.text or HTTPStatus(reply.status).phrase)
            completion = _completion(chat, reply)
            if api == "responses":
                return json_response(response_object(chat.model, reply.text, completion["usage"], LOCAL_FINGERPRINT,
                                                     chat.params, reply.tool_calls))
            return json_response(completion)
        finally:
            owner._leave()

    async def chat_completions(request: Request) -> Response:
        return await answer(request, "chat")

    async def responses(request: Request) -> Response:
        return await answer(request, "responses")

    post = ["POST"]
    return json_app([
        Route("/v1/models", list_models), Route("/models", list_models),
        Route("/v1/chat/completions", chat_completions, methods=post),
        Route("/chat/completions", chat_completions, methods=post),
        Route("/openai/deployments/{deployment}/chat/completions", chat_completions, methods=post),
        Route("/v1/responses", responses, methods=post), Route("/responses", responses, methods=post),
    ], error_body=_openai_error_body)


class ModelServer:
    """The local model server; ``start()`` serves in a background thread and returns its base URL.

    ``api_key`` (None = accept any) is the key clients must send (``Authorization: Bearer`` or ``api-key``) on
    every route; ``allow_hosts`` are host names accepted in ``Host`` besides the bound address (and its loopback
    names; ``maze_envs.serving.guard``). A request body over ``max_body`` bytes gets HTTP 413.
    ``request_count`` and ``max_in_flight``
    count the chat requests received; with ``keep_requests`` (for tests) ``requests`` also keeps each one,
    media included, so long-running servers leave it off. A request body that has not fully arrived
    ``body_timeout`` seconds after its headers gets HTTP 408 and its connection is closed; so is a connection
    whose request headers have not all arrived ``header_timeout`` seconds after it opened or after its last
    answer, and one answered before its body was read (``maze_envs.serving.deadlines``). Use as a context
    manager to stop it.
    """

    def __init__(self, policy: Policy, *, host: str = "127.0.0.1", port: int = 0, model_name: str = "maze-envs-local",
                 policy_name: str | None = None, api_key: str | None = None, keep_requests: bool = True,
                 body_timeout: float = BODY_TIMEOUT, header_timeout: float = HEADER_TIMEOUT,
                 allow_hosts: Sequence[str] = (), max_body: int = MAX_BODY):
        self.policy = policy
        self.policy_name = policy_name or getattr(policy, "name", None) or getattr(policy, "__name__", "custom")
        self.model_name = model_name
        self.api_key = api_key
        self.host, self.port = host, port
        self.keep_requests = keep_requests
        self.body_timeout = check_timeout(body_timeout, "body_timeout")
        self.header_timeout = check_timeout(header_timeout, "header_timeout")
        self.allow_hosts = tuple(allow_hosts)
        self.max_body = check_size(max_body, "max_body")
        self.requests: list[ChatRequest] = []
        self.request_count = 0
        self.max_in_flight = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._http: LoopbackServer | None = None

    @property
    def base_url(self) -> str:
        """Return the OpenAI-style base URL, ``http://host:port/v1``."""
        if self._http is None:
            raise RuntimeError("server is not started")
        return f"{self._http.url}/v1"

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
        if self._http is None:
            self._http = LoopbackServer(_app(self), self.host, self.port, verb="serve",
                                        header_timeout=self.header_timeout, allow_hosts=self.allow_hosts,
                                        api_key=self.api_key)
        return self.base_url

    def start(self) -> str:
        """Bind, serve in a daemon thread, and return the base URL."""
        self.bind()
        self._http.start("maze-envs-model-server")
        return self.base_url

    def serve_forever(self) -> None:
        """Bind if needed and serve in the calling thread until interrupted (Ctrl-C or SIGTERM)."""
        self.bind()
        self._http.serve_forever()

    def stop(self) -> None:
        """Stop serving and release the port."""
        if self._http is not None:
            self._http.stop()

    def __enter__(self) -> "ModelServer":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
