"""The local model server's Responses API (``POST /v1/responses``) with the real ``openai`` client, and the chat
client speaking it (``ModelConfig.api="responses"``)."""

from __future__ import annotations

import numpy as np
import openai
import pytest

from maze_envs.core.errors import MazeConfigError
from maze_envs.llm import ChatClient, ModelConfig, ModelServer

PIXEL = "data:image/png;base64,iVBORw0KGgo="


def echo(request) -> str:
    """Answer with the API asked, the last user text and how many images came."""
    return f"{request.api}|{request.text()}|{request.media_count()}"


def test_openai_client_parses_the_servers_responses():
    with ModelServer(echo) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="local")
        response = client.responses.create(model="m", instructions="be brief", max_output_tokens=9, input=[
            {"role": "user", "content": [{"type": "input_text", "text": "solve"},
                                         {"type": "input_image", "image_url": PIXEL}]}])
        plain = client.responses.create(model="m", input="hello")
        request = server.requests[0]
    assert response.output_text == "responses|solve|1" and response.status == "completed"
    assert response.usage.output_tokens > 0 and response.usage.input_tokens >= 85
    assert plain.output_text == "responses|hello|0"
    assert request.messages[0] == {"role": "system", "content": "be brief"} and request.params == {"max_tokens": 9}


def test_malformed_responses_requests_get_400_naming_the_field():
    with ModelServer(echo) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="local", max_retries=0)
        with pytest.raises(openai.BadRequestError, match=r"input\[0\]\.content\[0\]\.type"):
            client.responses.create(model="m", input=[{"role": "user", "content": [{"type": "input_file",
                                                                                      "file_id": "f"}]}])
        with pytest.raises(openai.BadRequestError, match="input: a string"):
            client.responses.create(model="m", input=[])


def test_chat_client_speaks_either_api():
    with ModelServer(echo) as server:
        replies = {api: ChatClient(ModelConfig(model="m", base_url=server.base_url, api=api)).chat(
            "go", images=[np.zeros((4, 4, 3), np.uint8)], max_tokens=5) for api in ("chat", "responses")}
        sent = [(r.api, r.params) for r in server.requests]
    assert replies["chat"].text == "chat|go|1" and replies["responses"].text == "responses|go|1"
    assert replies["responses"].local_server and replies["responses"].usage.completion_tokens > 0
    assert sent == [("chat", {"max_tokens": 5}), ("responses", {"max_tokens": 5})]
    with pytest.raises(MazeConfigError, match="api"):
        ModelConfig(model="m", api="completions").validated()
