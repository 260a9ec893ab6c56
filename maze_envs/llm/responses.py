"""OpenAI's Responses API (``POST /v1/responses``) on the local model server, and its client side.

Server side: ``chat_request`` turns a Responses request body into the server's ``ChatRequest`` (so the same policies
answer both APIs), its errors naming the Responses fields (``input[0].content[1].image_url``): ``instructions``
becomes a system message; ``input`` is a string (one user message) or a list of messages whose content is a string or
parts ``input_text`` / ``output_text`` (text) and ``input_image`` (``image_url``, a URL or data URL);
``max_output_tokens`` is read as ``max_tokens``. ``response_object`` is the ``response`` object the ``openai``
client's ``client.responses.create`` parses (one ``message`` output item with one ``output_text`` part, ``usage`` in
input/output tokens).

Client side: ``responses_input`` turns chat messages (with ``image_url`` parts) into Responses input items, and
``reply_text`` reads a parsed response's text; ``ChatClient`` uses them when its ``ModelConfig.api`` is
``responses``.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from maze_envs.serving.errors import HTTPError

from .chat_request import IMAGE_DETAILS, ChatRequest, check_image_url, check_params
from .errors import LLMError

ROLES = ("system", "user", "assistant", "developer")
TEXT_PARTS = ("input_text", "output_text")
RENAMED_PARAMS = {"max_output_tokens": "max_tokens"}


def _chat_part(part: Any, at: str, pixels: list[int]) -> dict[str, Any]:
    """Return the chat content part of a Responses content part (adding the pixels an image declares to
    ``pixels``); raise ``HTTPError`` 400 naming ``at``."""
    if not isinstance(part, dict) or not isinstance(part.get("type"), str):
        raise HTTPError(400, f"{at}: a content part object with a string type is required", param=at)
    kind = part["type"]
    if kind in TEXT_PARTS:
        if not isinstance(part.get("text"), str):
            raise HTTPError(400, f"{at}.text: a string is required", param=f"{at}.text")
        return {"type": "text", "text": part["text"]}
    if kind == "input_image":
        url = part.get("image_url")
        if not isinstance(url, str):
            raise HTTPError(400, f"{at}.image_url: a URL string is required (file_id is not served)",
                            param=f"{at}.image_url")
        if part.get("detail", "auto") not in IMAGE_DETAILS:
            raise HTTPError(400, f"{at}.detail: one of {', '.join(IMAGE_DETAILS)} is required", param=f"{at}.detail")
        pixels.append(check_image_url(url, f"{at}.image_url"))
        image = {"url": url, **({"detail": part["detail"]} if "detail" in part else {})}
        return {"type": "image_url", "image_url": image}
    raise HTTPError(400, f"{at}.type: one of {', '.join((*TEXT_PARTS, 'input_image'))} is required, got {kind!r}",
                    param=f"{at}.type")


def _chat_message(item: Any, at: str, pixels: list[int]) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise HTTPError(400, f"{at}: an input message object is required", param=at)
    if item.get("type", "message") != "message":
        raise HTTPError(400, f"{at}.type: only message input items are served, got {item.get('type')!r}",
                        param=f"{at}.type")
    if item.get("role") not in ROLES:
        raise HTTPError(400, f"{at}.role: one of {', '.join(ROLES)} is required", param=f"{at}.role")
    content = item.get("content")
    if isinstance(content, str):
        return {"role": item["role"], "content": content}
    if not isinstance(content, list):
        raise HTTPError(400, f"{at}.content: a string or a list of content parts is required",
                        param=f"{at}.content")
    return {"role": item["role"],
            "content": [_chat_part(p, f"{at}.content[{i}]", pixels) for i, p in enumerate(content)]}


def chat_request(doc: Any, default_model: str) -> ChatRequest:
    """Return the ``ChatRequest`` (``api="responses"``) equivalent to the Responses request body ``doc``: its
    ``input`` as messages, ``instructions`` as a system message first, ``max_output_tokens`` as ``max_tokens``.

    Raises ``HTTPError`` 400 naming the Responses field at fault (``input[0].role``, ``temperature``, ...), the
    image checks and parameter ranges of ``maze_envs.llm.chat_request`` included.
    """
    if not isinstance(doc, dict):
        raise HTTPError(400, "the request body must be a JSON object")
    check_params(doc, "responses")
    params = dict(doc)
    if params.pop("stream", False):
        raise HTTPError(400, "stream: streaming responses are not served", param="stream")
    given = params.pop("input", None)
    instructions = params.pop("instructions", None)
    pixels: list[int] = []
    if isinstance(given, str):
        messages = [{"role": "user", "content": given}]
    elif isinstance(given, list) and given:
        messages = [_chat_message(item, f"input[{i}]", pixels) for i, item in enumerate(given)]
    else:
        raise HTTPError(400, "input: a string or a non-empty list of input messages is required", param="input")
    if instructions is not None:
        if not isinstance(instructions, str):
            raise HTTPError(400, "instructions: a string is required", param="instructions")
        messages.insert(0, {"role": "system", "content": instructions})
    for old, new in RENAMED_PARAMS.items():
        if old in params:
            params[new] = params.pop(old)
    return ChatRequest.checked(params, messages, default_model, api="responses", pixels=sum(pixels))


def response_object(model: str, text: str, usage: dict[str, int], fingerprint: str,
                    params: dict[str, Any]) -> dict[str, Any]:
    """Return the Responses API ``response`` object of one reply ``text`` (``usage`` in chat terms:
    prompt_tokens, completion_tokens)."""
    prompt, completion = usage["prompt_tokens"], usage["completion_tokens"]
    return {
        "id": f"resp_{uuid.uuid4().hex}", "object": "response", "created_at": int(time.time()), "status": "completed",
        "model": model, "system_fingerprint": fingerprint, "error": None, "incomplete_details": None,
        "instructions": None, "metadata": {}, "parallel_tool_calls": False, "tool_choice": "auto", "tools": [],
        "temperature": params.get("temperature"), "top_p": params.get("top_p"),
        "max_output_tokens": params.get("max_tokens"),
        "output": [{"type": "message", "id": f"msg_{uuid.uuid4().hex}", "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}],
        "usage": {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion,
                  "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}},
    }


def responses_input(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return chat ``messages`` as Responses input messages (text parts as ``input_text``, or ``output_text`` in
    an assistant's message; ``image_url`` parts as ``input_image``). Raises ``LLMError`` for a part it cannot
    carry (video, audio, files)."""
    out = []
    for message in messages:
        content = message.get("content")
        role = message.get("role", "user")
        if isinstance(content, str):
            out.append({"role": role, "content": content})
            continue
        text_type = "output_text" if role == "assistant" else "input_text"
        parts = []
        for part in content or []:
            if part.get("type") == "text":
                parts.append({"type": text_type, "text": part["text"]})
            elif part.get("type") == "image_url":
                image = part["image_url"]
                parts.append({"type": "input_image", "image_url": image["url"], "detail": image.get("detail", "auto")})
            else:
                raise LLMError(f"the Responses API cannot carry a {part.get('type')!r} content part "
                               "(use api='chat')")
        out.append({"role": role, "content": parts})
    return out


def responses_params(params: dict[str, Any]) -> dict[str, Any]:
    """Return chat request ``params`` under their Responses API names (``max_tokens`` -> ``max_output_tokens``)."""
    renamed = {new: old for old, new in RENAMED_PARAMS.items()}
    return {renamed.get(key, key): value for key, value in params.items()}
