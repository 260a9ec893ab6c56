"""OpenAI's Responses API (``POST /v1/responses``) on the local model server, and its client side.

Server side: ``chat_request`` turns a Responses request body into the server's ``ChatRequest`` (so the same policies
answer both APIs), its errors naming the Responses fields (``input[0].content[1].image_url``): ``instructions``
becomes a system message; ``input`` is a string (one user message) or a list of messages whose content is a string or
parts ``input_text`` / ``output_text`` (text) and ``input_image`` (``image_url``, a URL or data URL);
``max_output_tokens`` is read as ``max_tokens``. Function calling: ``function_call`` input items become an assistant
message's ``tool_calls``, ``function_call_output`` items ``tool`` messages, and ``tools`` (``{"type": "function",
"name", "parameters", ...}``) the Chat Completions format. ``response_object`` is the ``response`` object the
``openai`` client's ``client.responses.create`` parses (a ``message`` output item with one ``output_text`` part when
there is text, a ``function_call`` item per call, ``usage`` in input/output tokens).

Client side: ``responses_input`` turns chat messages (with ``image_url`` parts, ``tool_calls`` and ``tool``
results) into Responses input items and ``responses_params`` the request parameters (``tools`` included);
``ChatClient`` uses them when its ``ModelConfig.api`` is ``responses``.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from maze_envs.core.maze_tools import ToolCall
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


def _string_field(item: dict[str, Any], key: str, at: str) -> str:
    if not isinstance(item.get(key), str):
        raise HTTPError(400, f"{at}.{key}: a string is required", param=f"{at}.{key}")
    return item[key]


def _chat_messages(items: list[Any], pixels: list[int]) -> list[dict[str, Any]]:
    """Return the chat messages of Responses input ``items`` (adding the pixels their images declare to ``pixels``):
    messages, ``function_call`` items (consecutive ones folded into one assistant message's ``tool_calls``) and
    ``function_call_output`` items (``tool`` messages)."""
    out: list[dict[str, Any]] = []
    for i, item in enumerate(items):
        at = f"input[{i}]"
        kind = item.get("type", "message") if isinstance(item, dict) else None
        if kind == "function_call":
            call = ToolCall(_string_field(item, "call_id", at), _string_field(item, "name", at),
                            _string_field(item, "arguments", at)).to_message_part()
            if out and out[-1]["role"] == "assistant" and (i and items[i - 1].get("type") == "function_call"
                                                           or "tool_calls" not in out[-1]):
                out[-1].setdefault("tool_calls", []).append(call)
            else:
                out.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            output = item.get("output")
            if isinstance(output, list):  # output content parts: their text
                output = "".join(p.get("text", "") for p in output if isinstance(p, dict))
            if not isinstance(output, str):
                raise HTTPError(400, f"{at}.output: a string is required", param=f"{at}.output")
            out.append({"role": "tool", "tool_call_id": _string_field(item, "call_id", at), "content": output})
        else:
            out.append(_chat_message(item, at, pixels))
    return out


def _chat_tools(tools: Any) -> list[dict[str, Any]]:
    """Return Responses ``tools`` (function tools) in the Chat Completions format; raises ``HTTPError`` 400."""
    if not isinstance(tools, list):
        raise HTTPError(400, "tools: a list of tool objects is required", param="tools")
    out = []
    for i, tool in enumerate(tools):
        at = f"tools[{i}]"
        if not isinstance(tool, dict) or tool.get("type") != "function":
            raise HTTPError(400, f"{at}.type: only function tools are served", param=f"{at}.type")
        function = {"name": _string_field(tool, "name", at), "parameters": tool.get("parameters") or {}}
        if isinstance(tool.get("description"), str):
            function["description"] = tool["description"]
        out.append({"type": "function", "function": function})
    return out


def _chat_message(item: Any, at: str, pixels: list[int]) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise HTTPError(400, f"{at}: an input message object is required", param=at)
    if item.get("type", "message") != "message":
        raise HTTPError(400, f"{at}.type: message, function_call or function_call_output input items are served, "
                             f"got {item.get('type')!r}", param=f"{at}.type")
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
        messages = _chat_messages(given, pixels)
    else:
        raise HTTPError(400, "input: a string or a non-empty list of input messages is required", param="input")
    if instructions is not None:
        if not isinstance(instructions, str):
            raise HTTPError(400, "instructions: a string is required", param="instructions")
        messages.insert(0, {"role": "system", "content": instructions})
    for old, new in RENAMED_PARAMS.items():
        if old in params:
            params[new] = params.pop(old)
    if "tools" in params:
        params["tools"] = _chat_tools(params["tools"])
    return ChatRequest.checked(params, messages, default_model, api="responses", pixels=sum(pixels))


def response_object(model: str, text: str, usage: dict[str, int], fingerprint: str,
                    params: dict[str, Any], tool_calls: tuple[ToolCall, ...] = ()) -> dict[str, Any]:
    """Return the Responses API ``response`` object of one reply ``text`` and its function calls ``tool_calls``
    (``usage`` in chat terms: prompt_tokens, completion_tokens)."""
    prompt, completion = usage["prompt_tokens"], usage["completion_tokens"]
    output: list[dict[str, Any]] = []
    if text or not tool_calls:
        output.append({"type": "message", "id": f"msg_{uuid.uuid4().hex}", "status": "completed",
                       "role": "assistant", "content": [{"type": "output_text", "text": text, "annotations": []}]})
    output += [{"type": "function_call", "id": f"fc_{uuid.uuid4().hex}", "call_id": call.id, "name": call.name,
                "arguments": call.arguments, "status": "completed"} for call in tool_calls]
    return {
        "id": f"resp_{uuid.uuid4().hex}", "object": "response", "created_at": int(time.time()), "status": "completed",
        "model": model, "system_fingerprint": fingerprint, "error": None, "incomplete_details": None,
        "instructions": None, "metadata": {}, "parallel_tool_calls": bool(params.get("parallel_tool_calls", True)),
        "tool_choice": "auto", "tools": [],
        "temperature": params.get("temperature"), "top_p": params.get("top_p"),
        "max_output_tokens": params.get("max_tokens"),
        "output": output,
        "usage": {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion,
                  "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}},
    }


def responses_input(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return chat ``messages`` as Responses input items (text parts as ``input_text``, or ``output_text`` in
    an assistant's message; ``image_url`` parts as ``input_image``; an assistant's ``tool_calls`` as
    ``function_call`` items after its text, ``tool`` messages as ``function_call_output`` items). Raises
    ``LLMError`` for a part it cannot carry (video, audio, files)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        role = message.get("role", "user")
        if role == "tool":
            out.append({"type": "function_call_output", "call_id": message["tool_call_id"],
                        "output": content if isinstance(content, str) else
                        "".join(p.get("text", "") for p in content or ())})
            continue
        calls = message.get("tool_calls") or ()
        if calls:
            if content:
                out += responses_input([{"role": role, "content": content}])
            out += [{"type": "function_call", "call_id": c["id"], "name": c["function"]["name"],
                     "arguments": c["function"]["arguments"]} for c in calls]
            continue
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
    """Return chat request ``params`` under their Responses API names (``max_tokens`` -> ``max_output_tokens``)
    and formats (function ``tools`` flattened: ``{"type": "function", "name", "description", "parameters"}``)."""
    renamed = {new: old for old, new in RENAMED_PARAMS.items()}
    out = {renamed.get(key, key): value for key, value in params.items()}
    if "tools" in out:
        out["tools"] = [{"type": "function", **t["function"]} if t.get("type") == "function" and "function" in t
                        else t for t in out["tools"]]
    return out
