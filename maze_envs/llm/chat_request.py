"""What the local model server was asked: a chat request read from a request body, every field checked before any
work, and the pixels its images declare (what decoding them would cost), priced from their headers.

``ChatRequest.from_body`` reads a chat-completions body; the Responses API reads its own shape
(``maze_envs.llm.responses``) with ``check_image_url`` and ``check_params`` from here, so that its errors name its
own fields (``input[0]``, ``max_output_tokens``) and both APIs refuse the same things. Every refusal is
``HTTPError`` 400 naming the field at fault.
"""

from __future__ import annotations

import base64
import binascii
import math
from dataclasses import dataclass, field
from typing import Any

from maze_envs.core.errors import MazeFormatError, brief_repr
from maze_envs.core.images import MAX_DECODED_PIXELS, ImageTooLargeError, check_pixels, image_size
from maze_envs.serving.errors import HTTPError

ROLES = ("system", "user", "assistant", "tool", "developer")
# Each content part type with the field that carries it: None = a string; else the object's required string keys.
CONTENT_PARTS: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "text": ("text", None), "refusal": ("refusal", None), "image_url": ("image_url", ("url",)),
    "video_url": ("video_url", ("url",)), "input_audio": ("input_audio", ("data", "format")), "file": ("file", ()),
}
IMAGE_DETAILS = ("auto", "low", "high")

# The request parameters each API documents with a type and a range (OpenAI's API reference); null is allowed for
# each. ``kind`` is number, integer, boolean, string, object or stop (a string or a list of up to 4 strings).
_NUMBER, _INTEGER, _BOOLEAN, _STRING, _OBJECT, _STOP = "number", "integer", "boolean", "string", "object", "stop"
_COMMON = {"temperature": (_NUMBER, 0, 2), "top_p": (_NUMBER, 0, 1), "stream": (_BOOLEAN, None, None),
           "user": (_STRING, None, None), "metadata": (_OBJECT, None, None)}
PARAMS: dict[str, dict[str, tuple[str, float | None, float | None]]] = {
    "chat": {**_COMMON, "max_tokens": (_INTEGER, 1, None), "max_completion_tokens": (_INTEGER, 1, None),
             "n": (_INTEGER, 1, 128), "presence_penalty": (_NUMBER, -2, 2), "frequency_penalty": (_NUMBER, -2, 2),
             "seed": (_INTEGER, None, None), "logprobs": (_BOOLEAN, None, None), "top_logprobs": (_INTEGER, 0, 20),
             "stream_options": (_OBJECT, None, None), "stop": (_STOP, None, None)},
    "responses": {**_COMMON, "max_output_tokens": (_INTEGER, 1, None)},
}


def _check_value(value: Any, name: str, kind: str, low: float | None, high: float | None) -> None:
    if value is None:
        return
    if kind == _STOP:
        if isinstance(value, str) or (isinstance(value, list) and len(value) <= 4
                                      and all(isinstance(v, str) for v in value)):
            return
        raise HTTPError(400, f"{name}: a string or a list of up to 4 strings is required", param=name)
    types = {_NUMBER: (int, float), _INTEGER: (int,), _BOOLEAN: (bool,), _STRING: (str,), _OBJECT: (dict,)}[kind]
    if not isinstance(value, types) or (isinstance(value, bool) and kind != _BOOLEAN):
        raise HTTPError(400, f"{name}: {'an' if kind[0] in 'aeiou' else 'a'} {kind} is required, got "
                             f"{type(value).__name__}", param=name)
    if kind in (_NUMBER, _INTEGER) and ((low is not None and value < low) or (high is not None and value > high)
                                        or not math.isfinite(value)):
        shown = brief_repr(value)
        bounds = f"between {low:g} and {high:g}" if high is not None else f"at least {low:g}"
        raise HTTPError(400, f"{name}: must be {bounds}, got {shown}", param=name)


def check_params(params: dict[str, Any], api: str) -> None:
    """Return None when each documented parameter of ``api`` (``chat`` or ``responses``) in ``params`` has its
    documented type and range (or is null); raise ``HTTPError`` 400 naming the first that has not. Parameters not in
    ``PARAMS`` are left alone (a model server ignores what it does not use)."""
    for name, (kind, low, high) in PARAMS[api].items():
        if name in params:
            _check_value(params[name], name, kind, low, high)


def check_image_url(url: str, at: str, *, image: bool = True) -> int:
    """Return the pixels an image's data URL ``url`` declares in its header (0 for a URL that is not a base64 data
    URL, for ``image=False`` (a video) and for bytes that are no image, which are left to the policy).

    Raises ``HTTPError`` 400 naming ``at`` when the base64 payload is malformed or the image declares more than
    ``MAX_DECODED_PIXELS`` (refused before a pixel is decoded).
    """
    if not (url.startswith("data:") and ";base64," in url):
        return 0
    try:
        data = base64.b64decode(url.split(";base64,", 1)[1], validate=True)
    except (binascii.Error, ValueError):
        raise HTTPError(400, f"{at}: the data URL's base64 payload is malformed", param=at) from None
    if not image:
        return 0
    try:
        width, height = image_size(data, source=at)
        check_pixels(width, height, MAX_DECODED_PIXELS, source=at)
    except ImageTooLargeError as exc:
        raise HTTPError(400, str(exc), param=at) from None
    except MazeFormatError:
        return 0
    return width * height


def _check_part(part: Any, at: str) -> int:
    """Return the pixels ``part`` declares when it is a content part of a type in ``CONTENT_PARTS`` with the fields
    that type needs; raise ``HTTPError`` 400 naming the field at fault under ``at``."""
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
        return 0
    if not isinstance(value, dict):
        raise HTTPError(400, f"{at}: an object is required", param=at)
    for key in keys:
        if not isinstance(value.get(key), str):
            raise HTTPError(400, f"{at}.{key}: a string is required", param=f"{at}.{key}")
    if part["type"] == "image_url" and "detail" in value and value["detail"] not in IMAGE_DETAILS:
        raise HTTPError(400, f"{at}.detail: one of {', '.join(IMAGE_DETAILS)} is required", param=f"{at}.detail")
    url = value.get("url")
    if not isinstance(url, str):
        return 0
    return check_image_url(url, f"{at}.url", image=part["type"] == "image_url")


def _check_message(message: Any, where: str) -> int:
    """Return the pixels ``message`` declares when it is a well-formed chat message; raise ``HTTPError`` 400 naming
    ``where``."""
    if not isinstance(message, dict):
        raise HTTPError(400, f"{where}: a message object is required", param=where)
    if message.get("role") not in ROLES:
        raise HTTPError(400, f"{where}.role: one of {', '.join(ROLES)} is required", param=f"{where}.role")
    content = message.get("content")
    if isinstance(content, str) or (content is None and message["role"] == "assistant"):
        return 0
    if not isinstance(content, list):
        raise HTTPError(400, f"{where}.content: a string or a list of content parts is required",
                        param=f"{where}.content")
    return sum(_check_part(part, f"{where}.content[{index}]") for index, part in enumerate(content))


@dataclass(frozen=True)
class ChatRequest:
    """What the server was asked: the model name, the messages and the other request parameters, through which
    ``api`` (``chat`` completions or ``responses``; a Responses request is read as its chat equivalent), and the
    ``pixels`` its images declare (what decoding them all would take)."""

    model: str
    messages: list[dict[str, Any]]
    params: dict[str, Any] = field(default_factory=dict)
    api: str = "chat"
    pixels: int = 0

    @classmethod
    def from_body(cls, doc: Any, default_model: str, *, api: str = "chat") -> "ChatRequest":
        """Return the request of an OpenAI chat request body ``doc`` (``model`` defaults to ``default_model``).

        Raises ``HTTPError`` 400 naming the field at fault unless ``doc`` is an object whose ``messages`` is a
        non-empty list of objects, each with a ``role`` in ``ROLES`` and a ``content`` that is a string or a
        list of content parts (objects whose ``type`` is one of ``CONTENT_PARTS``, carrying that type's field:
        ``text`` a string, ``image_url`` an object with a string ``url``, ...), whose images declare at most
        ``MAX_DECODED_PIXELS`` each, and whose documented parameters (``PARAMS``) have their types and ranges;
        only an assistant message may leave out its content (it may carry tool calls instead).
        """
        if not isinstance(doc, dict):
            raise HTTPError(400, "the request body must be a JSON object")
        messages = doc.get("messages")
        if not isinstance(messages, list) or not messages:
            raise HTTPError(400, "messages: a non-empty list of message objects is required", param="messages")
        pixels = sum(_check_message(message, f"messages[{index}]") for index, message in enumerate(messages))
        params = {key: value for key, value in doc.items() if key != "messages"}
        check_params(params, "chat")
        return cls.checked(params, messages, default_model, api=api, pixels=pixels)

    @classmethod
    def checked(cls, params: dict[str, Any], messages: list[dict[str, Any]], default_model: str, *,
                api: str = "chat", pixels: int = 0) -> "ChatRequest":
        """Return the request of ``messages`` already checked and ``params`` (``model`` among them, defaulting to
        ``default_model``); raises ``HTTPError`` 400 when the model is not a string."""
        params = dict(params)
        model = params.pop("model", default_model)
        if not isinstance(model, str):
            raise HTTPError(400, "model: a string is required", param="model")
        return cls(model, messages, params, api, pixels)

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
