"""The chat client against the local server, all through real HTTP with the real ``openai`` client."""

import base64
import json
import os
import socket
import subprocess
import sys
import threading

import cv2
import numpy as np
import openai
import pytest
import requests
from _llm_support import FAST, client_for
from PIL import Image

from maze_envs.core import generate, shortest_path, validate_path
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.maze import as_grid
from maze_envs.core.render import render_text
from maze_envs.core.replies import read_move, read_path
from maze_envs.llm import (
    SERVER_NOTE,
    ChatClient,
    LLMAuthError,
    LLMConnectionError,
    LLMError,
    ModelConfig,
    ModelServer,
    OraclePolicy,
    PolicyReply,
    ScriptedPolicy,
    load_model_config,
)
from maze_envs.llm.policies import ScriptEntry, load_policy
from maze_envs.runs import WorkItem, make_backend


def scripted(*replies):
    return ScriptedPolicy([ScriptEntry(r if isinstance(r, PolicyReply) else PolicyReply(r)) for r in replies])


def test_models_listing_says_local_embedded_server_and_replies_are_marked():
    with ModelServer(scripted("hello"), model_name="local-x") as server:
        models = openai.OpenAI(base_url=server.base_url, api_key="unused").models.list()
        assert [m.id for m in models.data] == ["local-x"]
        assert SERVER_NOTE in models.data[0].owned_by
        reply = client_for(server).chat("hi", temperature=0)
    assert reply.text == "hello" and reply.local_server and reply.usage.total_tokens > 0


def test_oracle_answers_a_correct_shortest_path_and_a_move():
    maze = generate(6, 6, "wilson", 11)
    grid = as_grid(maze)
    with ModelServer(OraclePolicy()) as server:
        client = client_for(server)
        path = read_path(client.chat(f"Give the path from S to G as (r,c) list.\n{render_text(maze)}").text).cells
        route = shortest_path(grid)
        agent = route[2]
        [(move, _)] = read_move(
            client.chat(f"You are A. What is your next move?\n{render_text(maze, agent=agent)}").text
        ).moves
        nothing = client.chat("What is 2 + 2?").text
    assert validate_path(grid, path).valid and len(path) == len(route)
    step = (route[3][0] - agent[0], route[3][1] - agent[1])
    assert {"up": (-1, 0), "right": (0, 1), "down": (1, 0), "left": (0, -1)}[move] == step
    assert "cannot find a text maze" in nothing


def test_images_go_as_base64_data_urls_and_video_as_timestamped_frames(tmp_path):
    png = tmp_path / "a.png"
    Image.fromarray(np.arange(48, dtype=np.uint8).reshape(4, 4, 3)).save(png)
    video = tmp_path / "v.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 10, (32, 24))
    for i in range(30):
        writer.write(np.full((24, 32, 3), 8 * i, np.uint8))
    writer.release()
    with ModelServer(scripted("a", "b", "c")) as server:
        client = client_for(server, video_frames=4)
        client.chat("look", images=[png])
        client.chat([{"role": "system", "content": "judge"}, {"role": "user", "content": "watch"}], video=video)
        client_for(server, video_mode="native").chat("watch natively", video=video)
        first, second, third = server.requests
    url = first.messages[0]["content"][1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,") and base64.b64decode(url.split(",", 1)[1]) == png.read_bytes()
    parts = second.messages[1]["content"]
    assert second.messages[0] == {"role": "system", "content": "judge"} and second.media_count() == 4
    assert "4 frames" in parts[1]["text"] and "0.00s, 1.00s, 1.90s, 2.90s" in parts[1]["text"]
    assert [p["text"] for p in parts if p["type"] == "text"][-1] == "Frame at 2.90s:"
    assert third.messages[0]["content"][1]["video_url"]["url"].startswith("data:video/mp4;base64,")


def test_retry_on_500_and_on_429_then_success():
    with ModelServer(scripted(PolicyReply("boom", status=500), PolicyReply("slow down", status=429), "fine")) as server:
        reply = client_for(server).chat("x")
        assert server.request_count == 3
    assert reply.text == "fine" and reply.attempts == 3


def test_retry_on_timeout_then_success():
    # The late reply waits far past the timeout, and the timeout leaves the prompt reply a wide margin on a busy
    # machine.
    with ModelServer(scripted(PolicyReply("late", delay=8.0), "on time")) as server:
        reply = client_for(server, timeout=2.0).chat("x")
        assert server.request_count == 2
    assert reply.text == "on time" and reply.attempts == 2


def test_backoff_doubles_and_retries_are_bounded():
    waits = []
    with ModelServer(scripted(*[PolicyReply("down", status=503)] * 5)) as server:
        client = ChatClient(ModelConfig(model="m", base_url=server.base_url, max_retries=3, backoff_base=0.5,
                                        backoff_max=1.5), sleep=waits.append)
        with pytest.raises(LLMError) as err:
            client.chat("x")
        assert server.request_count == 4
    assert waits == [0.5, 1.0, 1.5]
    assert "HTTP 503" in str(err.value) and "gave up after 4 attempts" in str(err.value) and "\n" not in str(err.value)


def test_unreachable_endpoint_is_one_clear_line():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = ChatClient(ModelConfig(model="m", base_url=f"http://127.0.0.1:{port}/v1", **FAST))
    with pytest.raises(LLMConnectionError) as err:
        client.chat("x")
    message = str(err.value)
    assert f"127.0.0.1:{port}" in message and "cannot connect" in message and "\n" not in message


def test_rejected_key_names_the_variable_never_the_key(monkeypatch):
    monkeypatch.setenv("MY_TEST_KEY", "sk-wrong-123456")
    with ModelServer(scripted("x"), api_key="sk-right-654321") as server:
        with pytest.raises(LLMAuthError) as err:
            client_for(server, api_key_env="MY_TEST_KEY").chat("x")
        monkeypatch.setenv("MY_TEST_KEY", "sk-right-654321")
        assert client_for(server, api_key_env="MY_TEST_KEY").chat("x").text == "x"
    assert "$MY_TEST_KEY" in str(err.value) and "HTTP 401" in str(err.value)
    assert "sk-wrong" not in str(err.value) and "sk-right" not in str(err.value)


def test_a_bad_request_is_not_retried_and_its_message_is_redacted(monkeypatch):
    monkeypatch.setenv("MY_TEST_KEY", "sk-leaky-999")
    policy = lambda request: PolicyReply("you sent sk-leaky-999, which is invalid here", status=400)  # noqa: E731
    with ModelServer(policy) as server:
        with pytest.raises(LLMError) as err:
            client_for(server, api_key_env="MY_TEST_KEY").chat("x")
        assert server.request_count == 1
    assert "HTTP 400" in str(err.value) and "sk-leaky-999" not in str(err.value) and "***" in str(err.value)


def test_azure_provider_talks_to_the_deployment_route(monkeypatch):
    monkeypatch.setenv("MAZE_ENVS_TEST_AZURE_KEY", "azure-key")
    with ModelServer(scripted("from azure"), api_key="azure-key") as server:
        root = server.base_url.removesuffix("/v1")
        client = ChatClient(ModelConfig(model="my-deployment", base_url=root, provider="azure",
                                        api_key_env="MAZE_ENVS_TEST_AZURE_KEY", **FAST))
        reply = client.chat("x")
        assert server.requests[0].model == "my-deployment"
    assert reply.text == "from azure"


def test_cache_hit_sends_nothing_and_no_cache_bypasses(tmp_path):
    with ModelServer(scripted("one", "two", "three")) as server:
        client = client_for(server, tmp_path / "cache")
        first = client.chat("same question", temperature=0)
        again = client.chat("same question", temperature=0)
        assert server.request_count == 1 and again.cached and again.text == first.text == "one"
        other = client.chat("same question", temperature=0.5)
        assert server.request_count == 2 and other.text == "two"
        fresh = client.chat("same question", temperature=0, use_cache=False)
        assert server.request_count == 3 and fresh.text == "three"
    stats = client.stats.to_dict()
    assert stats["requests"] == 3 and stats["cache_hits"] == 1


def test_token_and_cost_accounting():
    with ModelServer(scripted("a" * 40, "b" * 80)) as server:
        client = client_for(server, price_prompt=2.0, price_completion=10.0)
        replies = [client.chat("q" * 400), client.chat("q" * 400)]
    stats = client.stats.to_dict()
    assert stats["prompt_tokens"] == 200 and stats["completion_tokens"] == 30
    assert stats["completion_tokens"] == sum(r.usage.completion_tokens for r in replies)
    assert stats["cost_usd"] == pytest.approx((200 * 2.0 + 30 * 10.0) / 1e6)


def test_workers_run_requests_concurrently():
    barrier = threading.Barrier(3, timeout=10)

    def policy(request):
        barrier.wait()  # only passes when three requests are in flight at once
        return request.text()

    with ModelServer(policy) as server:
        client = client_for(server, timeout=15)
        backend = make_backend("threads", 3, "io")
        items = [WorkItem(str(i), f"item {i}") for i in range(6)]
        try:
            outcomes = list(backend.run(lambda text: {"text": client.chat(text).text}, iter(items)))
        finally:
            backend.close()
        assert server.max_in_flight == 3
    assert sorted(o.record["text"] for o in outcomes) == [f"item {i}" for i in range(6)]
    assert all(o.error is None for o in outcomes)


def test_model_config_from_yaml_env_and_flags(tmp_path, monkeypatch):
    monkeypatch.setenv("MAZE_ENVS_MODEL", "env-model")
    monkeypatch.setenv("MAZE_ENVS_BASE_URL", "http://env.example/v1")
    path = tmp_path / "model.yaml"
    path.write_text("model: yaml-model\ntimeout: 5\nprice_prompt: 1.5\n")
    config = load_model_config(path, timeout=7.0, provider=None)   # flag > environment > file > default
    assert (config.model, config.base_url, config.timeout, config.price_prompt, config.provider) == \
        ("env-model", "http://env.example/v1", 7.0, 1.5, "openai")
    path.write_text("model: m\napi_key: sk-in-a-file\n")
    with pytest.raises(Exception, match="api_key.*not allowed"):
        load_model_config(path)
    path.write_text("model: m\ntemprature: 1\n")
    with pytest.raises(Exception, match="unknown field"):
        load_model_config(path)
    path.write_text("model: m\ntimeout: soon\n")
    with pytest.raises(MazeConfigError, match=r"model\.yaml: timeout: must be a number, got 'soon'"):
        load_model_config(path)
    path.write_text("model: [m\n")
    with pytest.raises(MazeConfigError, match="cannot read model config") as err:
        load_model_config(path)
    assert "\n" not in str(err.value)


def test_policy_loading_by_name_and_module_callable(tmp_path):
    script = tmp_path / "replies.jsonl"
    script.write_text(json.dumps("first") + "\n" + json.dumps({"text": "matched", "match": "special"}) + "\n")
    policy = load_policy("scripted", script=script)
    custom = load_policy("_llm_support:problem_index")
    assert custom.__name__ == "problem_index"
    with ModelServer(policy) as server:
        client = client_for(server)
        assert client.chat("a special request").text == "matched"
        assert client.chat("plain").text == "first"
        with pytest.raises(LLMError, match="no reply left"):
            client.chat("plain again")
    with pytest.raises(Exception, match="unknown policy"):
        load_policy("nonsense")
    script.write_text('{"txt": 1}\n')
    with pytest.raises(Exception, match="line 1"):
        load_policy("scripted", script=script)


def test_serve_model_command_serves_the_oracle(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "maze_envs", "serve-model", "--port", "0"],
                            stdout=subprocess.PIPE, text=True, cwd=os.getcwd())
    try:
        line = proc.stdout.readline()
        base_url = line.split("serving ")[1].split(" ")[0]
        listing = requests.get(f"{base_url}/models", timeout=10).json()
        assert "local embedded server" in listing["data"][0]["owned_by"]
        maze = generate(3, 4, "dfs", 5)
        reply = openai.OpenAI(base_url=base_url, api_key="unused").chat.completions.create(
            model="maze-envs-local", messages=[{"role": "user", "content": f"Solve:\n{render_text(maze)}"}])
        assert validate_path(as_grid(maze), read_path(reply.choices[0].message.content).cells).valid
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_hosted_default_endpoint_needs_a_key_before_any_request(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMAuthError, match=r"needs an API key: set \$OPENAI_API_KEY"):
        ChatClient(ModelConfig(model="gpt-test")).chat("x")


def test_oracle_finds_a_maze_given_in_the_system_message():
    maze = generate(3, 3, "prim", 2)
    with ModelServer(OraclePolicy(mode="path")) as server:
        text = client_for(server).chat([{"role": "system", "content": f"The maze:\n{render_text(maze)}"},
                                        {"role": "user", "content": "Your path?"}]).text
    assert validate_path(as_grid(maze), read_path(text).cells).valid


def test_serve_model_reports_an_address_it_cannot_bind_on_one_line(capsys):
    from maze_envs.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve-model", "--port", str(port)]) == 2
    assert main(["serve-model", "--port", "70000"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and f"cannot serve on 127.0.0.1:{port}" in lines[0] and "--port" in lines[1]


def test_a_server_without_a_request_log_still_counts_requests():
    with ModelServer(scripted("a", "b"), keep_requests=False) as server:
        client = client_for(server)
        assert [client.chat("x").text, client.chat("y").text] == ["a", "b"]
        assert server.request_count == 2 and server.requests == []
