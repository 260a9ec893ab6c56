"""A local OpenAI-compatible chat server on 127.0.0.1 that answers from a pluggable policy.

It implements ``POST /v1/chat/completions`` (also Azure's ``/openai/deployments/<name>/chat/completions``), OpenAI's
Responses API ``POST /v1/responses`` (text and image input parts, ``maze_envs.llm.responses``; the request's
``ChatRequest.api`` says which) and ``GET /v1/models``, well enough for the official ``openai`` client. Chat
completions stream when asked (``stream: true``: server-sent ``chat.completion.chunk`` events, as OpenAI sends them);
the Responses API refuses ``stream`` with 400. A policy may answer with function calls
(``PolicyReply.tool_calls``): they go out as the message's ``tool_calls`` (finish reason ``tool_calls``) or as
Responses ``function_call`` items. Every reply carries ``system_fingerprint = "maze-envs-local-embedded"``
and the model listing says it is the local embedded server, so results produced through it say so. It runs on uvicorn
+ Starlette through ``maze_envs.serving.app``; a request that is not a well-formed chat request gets HTTP 400 with an
OpenAI-style error body ``{"error": {"message", "type", "param", "code"}}`` naming the field in the API's own terms
(``messages[0]``, ``input[0]``, ``temperature``): so does an image part whose header declares more than
``MAX_DECODED_PIXELS`` (refused before decoding; ``maze_envs.llm.chat_request``), and a parameter out of its
documented type or range. What a request's images would cost to decode is priced from their headers before the policy
runs, against ``pixel_budget`` pixels in flight (503 with ``Retry-After`` past it). Bodies over ``MAX_BODY`` get 413;
a foreign ``Host`` or ``Origin``, a non-JSON body or a missing key are refused before any route runs
(``maze_envs.serving.guard``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import uuid
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Callable, Iterator, Sequence, Union

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from maze_envs.core.images import MAX_DECODED_PIXELS
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
from maze_envs.serving.budget import InFlightBudget
from maze_envs.serving.guard import check_api_key

from .chat_request import ChatRequest
from .client import LOCAL_FINGERPRINT
from .responses import chat_request, response_object

SERVER_NOTE = "maze-envs local embedded server (offline policy, not a hosted model)"
# The largest chat request the project sends: a video as 16 sampled frames (the default video_frames), each a
# 1024x1024 RGB PNG that does not compress at all (3 MiB), in base64 (4/3): 16 x 4 MiB = 64 MiB.
MAX_BODY = 64 << 20
# The decoded pixels the images of the requests in flight may declare together: two of the largest allowed each.
PIXEL_BUDGET = 2 * MAX_DECODED_PIXELS
log = logging.getLogger(__name__)


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


def _sse(doc: Any) -> bytes:
    return b"data: " + json.dumps(doc, allow_nan=False).encode("ascii") + b"\n\n"


def completion_chunks(request: ChatRequest, completion: dict[str, Any]) -> Iterator[bytes]:
    """Return the server-sent events of ``completion`` streamed as OpenAI does (``stream: true``): a
    ``chat.completion.chunk`` with the role, one with the content, one with the function calls (if any), one with
    the finish reason, one with the usage when ``stream_options.include_usage`` asks for it, then
    ``data: [DONE]``."""
    head = {key: completion[key] for key in ("id", "created", "model", "system_fingerprint")}
    head["object"] = "chat.completion.chunk"
    choice = completion["choices"][0]
    content, calls = choice["message"]["content"], choice["message"].get("tool_calls", [])

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return _sse({**head, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]})

    yield chunk({"role": "assistant", "content": ""})
    if content:
        yield chunk({"content": content})
    if calls:
        yield chunk({"tool_calls": [{"index": i, **call} for i, call in enumerate(calls)]})
    yield chunk({}, choice["finish_reason"])
    options = request.params.get("stream_options") or {}
    if options.get("include_usage") is True:
        yield _sse({**head, "choices": [], "usage": completion["usage"]})
    yield b"data: [DONE]\n\n"


def _app(owner: "ModelServer") -> Starlette:
    async def list_models(request: Request) -> Response:
        return json_response(_models(owner))

    async def answer(request: Request, api: str) -> Response:
        """Answer one request of ``api`` (``chat`` or ``responses``) through the same checks and policy."""
        body = await read_json_body(request, max_bytes=owner.max_body, timeout=owner.body_timeout)
        if api == "responses":
            chat = await run_in_threadpool(chat_request, body, owner.model_name)
        else:
            chat = await run_in_threadpool(ChatRequest.from_body, body, owner.model_name)
        with owner.pixel_budget.hold(chat.pixels):
            reply = await _reply(chat)
        completion = _completion(chat, reply)
        if api == "responses":
            return json_response(response_object(chat.model, reply.text, completion["usage"], LOCAL_FINGERPRINT,
                                                 chat.params, reply.tool_calls))
        if chat.params.get("stream"):
            return StreamingResponse(completion_chunks(chat, completion), media_type="text/event-stream",
                                     headers={"Cache-Control": "no-cache"})
        return json_response(completion)

    async def _reply(chat: ChatRequest) -> PolicyReply:
        """Return the policy's reply to ``chat``; raise ``HTTPError`` with the status it chose, or 500 when it
        failed."""
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
            return reply
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
    manager to stop it. The requests in flight may declare at most ``pixel_budget`` decoded image pixels together
    (``ChatRequest.pixels``, priced from the images' headers before any is decoded): one that does not fit beside
    them gets HTTP 503 with ``Retry-After``, one over the budget alone 400 (``maze_envs.serving.budget``).
    """

    def __init__(self, policy: Policy, *, host: str = "127.0.0.1", port: int = 0, model_name: str = "maze-envs-local",
                 policy_name: str | None = None, api_key: str | None = None, keep_requests: bool = True,
                 body_timeout: float = BODY_TIMEOUT, header_timeout: float = HEADER_TIMEOUT,
                 allow_hosts: Sequence[str] = (), max_body: int = MAX_BODY, pixel_budget: int = PIXEL_BUDGET):
        self.policy = policy
        self.policy_name = policy_name or getattr(policy, "name", None) or getattr(policy, "__name__", "custom")
        self.model_name = model_name
        self.api_key = check_api_key(api_key)
        self.host, self.port = host, port
        self.keep_requests = keep_requests
        self.body_timeout = check_timeout(body_timeout, "body_timeout")
        self.header_timeout = check_timeout(header_timeout, "header_timeout")
        self.allow_hosts = tuple(allow_hosts)
        self.max_body = check_size(max_body, "max_body")
        self.pixel_budget = InFlightBudget(pixel_budget, "pixels", parameter="pixel_budget")
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
