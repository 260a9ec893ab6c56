"""One small chat interface over the ``openai`` package: media, retries with backoff, caching and accounting."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Callable, Iterable, Sequence

from maze_envs.core.maze_tools import ToolCall

from .cache import ResponseCache, cache_key
from .config import ModelConfig
from .errors import LLMAuthError, LLMConnectionError, LLMError, redact, redact_url
from .media import ImageLike, image_part, video_parts
from .responses import responses_input, responses_params

# The local server marks every reply with this ``system_fingerprint`` so reports can say they used it.
LOCAL_FINGERPRINT = "maze-envs-local-embedded"
OPENAI_DEFAULT_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class Usage:
    """Token counts of one reply (zeros when the endpoint reports none)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


@dataclass(frozen=True)
class Reply:
    """A chat reply: ``text``, token ``usage``, ``latency`` in seconds, the ``raw`` response dict,
    whether it came from the cache, how many HTTP attempts it took and the function calls it made
    (``tool_calls``, in order; a request that offers ``tools`` may get them instead of text)."""

    text: str
    usage: Usage
    latency: float
    raw: dict[str, Any]
    cached: bool = False
    attempts: int = 1
    tool_calls: tuple[ToolCall, ...] = ()

    def message(self) -> dict[str, Any]:
        """Return the reply as the Chat Completions assistant message that continues a conversation (its text,
        and its ``tool_calls`` when it made any)."""
        if not self.tool_calls:
            return {"role": "assistant", "content": self.text}
        return {"role": "assistant", "content": self.text or None,
                "tool_calls": [call.to_message_part() for call in self.tool_calls]}

    @property
    def local_server(self) -> bool:
        """Return whether the reply came from maze-envs' local embedded model server."""
        return str(self.raw.get("system_fingerprint") or "").startswith(LOCAL_FINGERPRINT)


@dataclass
class RunStats:
    """Thread-safe totals of a run: requests, cache hits, retries, tokens, cost in USD and latency."""

    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    local_server: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, reply: Reply, config: ModelConfig) -> None:
        """Count ``reply`` (cached replies add no tokens or cost: nothing was spent)."""
        with self._lock:
            self.local_server |= reply.local_server
            if reply.cached:
                self.cache_hits += 1
                return
            self.requests += 1
            self.retries += reply.attempts - 1
            self.prompt_tokens += reply.usage.prompt_tokens
            self.completion_tokens += reply.usage.completion_tokens
            self.cost_usd += (reply.usage.prompt_tokens * config.price_prompt
                              + reply.usage.completion_tokens * config.price_completion) / 1e6
            self.latency_s += reply.latency

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON-ready totals."""
        with self._lock:
            out = {f.name: getattr(self, f.name) for f in fields(self) if not f.name.startswith("_")}
        out["total_tokens"] = out["prompt_tokens"] + out["completion_tokens"]
        out["cost_usd"] = round(out["cost_usd"], 6)
        return out


def sum_usage(usages: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Return the totals of several ``RunStats.to_dict()`` results (numbers added, ``local_server`` or-ed)."""
    total = RunStats().to_dict()
    for usage in usages:
        for key, value in usage.items():
            if key in total:
                total[key] = (total[key] or value) if isinstance(value, bool) else total[key] + value
    total["cost_usd"] = round(total["cost_usd"], 6)
    total["latency_s"] = round(total["latency_s"], 4)
    return total


Message = dict[str, Any]


def build_messages(messages: str | Sequence[Message], images: Sequence[ImageLike] = (), video: Any = None,
                   *, video_frames: int = 16, native_video: bool = False) -> list[Message]:
    """Return chat messages with ``images`` and ``video`` appended to the last user message as content parts.

    ``messages`` may be a plain string (one user message).
    """
    msgs = [{"role": "user", "content": messages}] if isinstance(messages, str) else [dict(m) for m in messages]
    parts: list[dict[str, Any]] = [image_part(img) for img in images]
    if video is not None:
        parts += video_parts(video, video_frames, native=native_video)
    if not parts:
        return msgs
    users = [i for i, m in enumerate(msgs) if m.get("role") == "user"]
    if not users:
        msgs.append({"role": "user", "content": []})
        users = [len(msgs) - 1]
    last = msgs[users[-1]]
    content = last.get("content") or []
    content = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    last["content"] = content + parts
    return msgs


class ChatClient:
    """Chat with one configured endpoint. ``chat`` is safe to call from many threads at once.

    ``cache`` (None = no caching) stores replies by ``cache_key``; ``stats`` sums every reply;
    ``sleep`` waits between retries (replaceable for tests of backoff).
    """

    def __init__(self, config: ModelConfig, *, cache: ResponseCache | None = None, stats: RunStats | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        self.config = config.validated()
        self.cache = cache
        self.stats = stats if stats is not None else RunStats()
        self._sleep = sleep
        self._client: Any = None
        self._lock = threading.Lock()

    def counted_apart(self) -> "ChatClient":
        """Return a client of the same endpoint and cache whose ``stats`` count only its own replies."""
        return ChatClient(self.config, cache=self.cache, sleep=self._sleep)

    def __getstate__(self) -> dict[str, Any]:
        """Return the picklable state (for worker processes and Ray tasks): no connection, lock or totals."""
        state = self.__dict__.copy()
        state.update(_client=None, _lock=None, stats=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _lock=threading.Lock(), stats=RunStats())

    @property
    def base_url(self) -> str:
        """Return the endpoint URL requests go to, with any credential in it shown as ``***``."""
        return redact_url(self._endpoint)

    @property
    def _endpoint(self) -> str:
        return self.config.base_url or OPENAI_DEFAULT_URL

    def _secrets(self) -> tuple[str, ...]:
        key = self.config.api_key()
        return (key,) if key else ()

    def _openai(self) -> Any:
        with self._lock:
            if self._client is None:
                import openai

                key = self.config.api_key()
                if key is None and self.config.base_url is None:
                    raise LLMAuthError(f"{self.base_url} needs an API key: set ${self.config.key_env}")
                key = key or "no-key-set"
                common = dict(api_key=key, timeout=self.config.timeout, max_retries=0)
                if self.config.provider == "azure":
                    self._client = openai.AzureOpenAI(azure_endpoint=self.config.base_url,
                                                      api_version=self.config.api_version or "2024-10-21", **common)
                else:
                    self._client = openai.OpenAI(base_url=self._endpoint, **common)
            return self._client

    def messages(self, messages: str | Sequence[Message], *, images: Sequence[ImageLike] = (),
                 video: Any = None) -> list[Message]:
        """Return ``messages`` with media attached as this endpoint takes them (see ``build_messages``)."""
        return build_messages(messages, images, video, video_frames=self.config.video_frames,
                              native_video=self.config.video_mode == "native")

    def chat(self, messages: str | Sequence[Message], *, images: Sequence[ImageLike] = (), video: Any = None,
             use_cache: bool = True, **params: Any) -> Reply:
        """Return the model's reply to ``messages`` with ``images`` / ``video`` attached.

        ``params`` go to ``chat.completions.create`` (temperature, max_tokens, ``tools`` in the Chat Completions
        format, ...), or ``responses.create`` under their Responses names and formats when ``config.api`` is
        ``responses``; ``messages`` may continue a function-calling conversation (assistant messages with
        ``tool_calls``, ``tool`` messages with their results) and the reply's ``tool_calls`` are read from either
        API. With
        ``use_cache=False`` the cached reply is not read, and the fresh reply replaces it. Raises
        ``LLMAuthError`` when the key is rejected, ``LLMConnectionError`` when the endpoint stays
        unreachable or keeps timing out, ``LLMError`` for other failures.
        """
        msgs = self.messages(messages, images=images, video=video)
        key = cache_key(self.config.model, msgs, params)
        if self.cache is not None and use_cache:
            entry = self.cache.get(key)
            if entry is not None:
                reply = Reply(entry["text"], Usage(**entry.get("usage", {})), 0.0, entry.get("raw", {}), cached=True,
                              tool_calls=tuple(ToolCall(**c) for c in entry.get("tool_calls", ())))
                self.stats.add(reply, self.config)
                return reply
        reply = self._request(msgs, params)
        if self.cache is not None:
            self.cache.put(key, {"model": self.config.model, "text": reply.text, "usage": asdict(reply.usage),
                                 "raw": reply.raw, "tool_calls": [c.to_dict() for c in reply.tool_calls]})
        self.stats.add(reply, self.config)
        return reply

    def _request(self, msgs: list[Message], params: dict[str, Any]) -> Reply:
        import openai

        client, where = self._openai(), f"{self.base_url} (model {self.config.model})"
        failure = ""
        unreachable = False
        for attempt in range(self.config.max_retries + 1):
            if attempt:
                self._sleep(min(self.config.backoff_max, self.config.backoff_base * 2 ** (attempt - 1)))
            began = time.perf_counter()
            try:
                resp = API_CALLS[self.config.api][0](client, self.config.model, msgs, params)
            except openai.APITimeoutError:
                failure, unreachable = f"timed out after {self.config.timeout:g}s", True
                continue
            except openai.APIConnectionError as exc:
                failure, unreachable = f"cannot connect ({_one_line(exc.__cause__ or exc)})", True
                if _unresolvable_host(exc):
                    raise LLMConnectionError(redact(f"{where}: {failure}", self._secrets())) from None
                continue
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                sent = f"rejected the API key from ${self.config.key_env}" if self.config.api_key() else \
                    f"rejected the request: no API key was sent (${self.config.key_env} is unset)"
                raise LLMAuthError(redact(f"{where} {sent} (HTTP {exc.status_code})", self._secrets())) from None
            except openai.APIStatusError as exc:
                failure, unreachable = f"HTTP {exc.status_code}: {_one_line(exc.message)}", False
                if exc.status_code == 429 or exc.status_code >= 500:
                    continue
                raise LLMError(redact(f"{where}: {failure}", self._secrets())) from None
            latency = time.perf_counter() - began
            text, counts, calls = API_CALLS[self.config.api][1](resp, where)
            return Reply(text, counts, latency, resp.model_dump(mode="json"), attempts=attempt + 1, tool_calls=calls)
        kind = LLMConnectionError if unreachable else LLMError
        raise kind(redact(f"{where}: {failure} (gave up after {self.config.max_retries + 1} attempts)",
                          self._secrets()))


def _chat_create(client: Any, model: str, msgs: list[Message], params: dict[str, Any]) -> Any:
    return client.chat.completions.create(model=model, messages=msgs, **params)


def _chat_read(resp: Any, where: str) -> tuple[str, Usage, tuple[ToolCall, ...]]:
    """Return the text, usage and function calls of a chat completion; raises ``LLMError`` naming ``where`` when it
    has no choice."""
    if not resp.choices:
        raise LLMError(f"{where}: reply has no choices")
    usage = resp.usage
    counts = Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0, usage.total_tokens or 0) \
        if usage is not None else Usage()
    message = resp.choices[0].message
    calls = tuple(ToolCall(c.id, c.function.name, c.function.arguments or "")
                  for c in message.tool_calls or () if getattr(c, "function", None) is not None)
    return message.content or "", counts, calls


def _responses_create(client: Any, model: str, msgs: list[Message], params: dict[str, Any]) -> Any:
    return client.responses.create(model=model, input=responses_input(msgs), **responses_params(params))


def _responses_read(resp: Any, where: str) -> tuple[str, Usage, tuple[ToolCall, ...]]:
    """Return the text, usage and function calls of a Responses API response; raises ``LLMError`` naming ``where``
    when it failed."""
    if getattr(resp, "error", None) is not None:
        raise LLMError(f"{where}: response failed: {resp.error.message}")
    usage = resp.usage
    counts = Usage(usage.input_tokens or 0, usage.output_tokens or 0, usage.total_tokens or 0) \
        if usage is not None else Usage()
    calls = tuple(ToolCall(item.call_id, item.name, item.arguments or "")
                  for item in resp.output or () if getattr(item, "type", None) == "function_call")
    return resp.output_text or "", counts, calls


# ModelConfig.api -> (send the request, read the reply)
API_CALLS = {"chat": (_chat_create, _chat_read), "responses": (_responses_create, _responses_read)}


def _one_line(text: object) -> str:
    return " ".join(str(text).split())[:300]


def _unresolvable_host(exc: BaseException) -> bool:
    """Return whether a connection error was caused by a host name that DNS cannot resolve (retrying won't help)."""
    seen = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, socket.gaierror):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False
