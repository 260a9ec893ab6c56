"""The local model server prices a request before its work and speaks the protocol strictly: a pictured maze of more
cells than the oracle reads is refused before its image is decoded, images in flight share a pixel budget, NaN and
Infinity are refused (every answer is strict JSON), images past PIL's own cap get the documented 400, chat
completions stream to the openai client, Responses errors name ``input[...]``, parameters out of their documented
type or range (a temperature nested 980 deep) get 400, repeated Host/Origin headers are refused, and a key no client
could send is refused when the server is configured."""

import base64
import json
import os
import socket
import subprocess
import sys
import threading

import openai
import pytest
import requests
from _servers import declared_png, pictured_maze_request, png_url
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from maze_envs.core.errors import MazeConfigError
from maze_envs.llm import ModelServer, OraclePolicy
from maze_envs.llm import policies as policies_module
from maze_envs.llm.server import PolicyReply

WHITE_4096 = png_url(Image.new("RGB", (4096, 4096), "white"))


def strict_json(answer: requests.Response):
    def refuse(name):
        raise AssertionError(f"{name} in an answer")
    return json.loads(answer.text, parse_constant=refuse)


@pytest.fixture(scope="module")
def oracle_server():
    with ModelServer(OraclePolicy(), keep_requests=False) as server:
        yield server


def test_a_huge_pictured_maze_is_refused_before_its_image_is_decoded(oracle_server, monkeypatch):
    decoded = []
    real = policies_module.decode_image
    monkeypatch.setattr(policies_module, "decode_image", lambda *a, **k: decoded.append(1) or real(*a, **k))
    answer = requests.post(oracle_server.base_url + "/responses",
                           json=pictured_maze_request("Solve a 4096x4096 maze.", WHITE_4096), timeout=600)
    assert answer.status_code == 400, answer.text
    assert "4096x4096 = 16777216 cells, over the oracle's limit" in strict_json(answer)["error"]["message"]
    assert decoded == []  # priced from the prompt, refused before the picture was decoded


def test_a_small_maze_in_a_big_picture_is_answered(oracle_server):
    answer = requests.post(oracle_server.base_url + "/responses",
                           json=pictured_maze_request("Solve this 64x64 maze.", WHITE_4096), timeout=600)
    assert answer.status_code == 200, answer.text
    assert strict_json(answer)["output"][0]["content"][0]["text"]


class Gate:
    """A policy that holds every request carrying an image until ``release`` is set."""

    def __init__(self):
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, request):
        if request.media_count():
            self.entered.set()
            self.release.wait(600)
        return PolicyReply("ok")


def test_images_in_flight_share_a_pixel_budget_and_text_requests_go_on():
    gate = Gate()
    small = png_url(Image.new("RGB", (64, 64), "white"))
    with ModelServer(gate, keep_requests=False, pixel_budget=64 * 64) as server:
        url = server.base_url + "/chat/completions"
        body = {"model": "m", "messages": [{"role": "user", "content": [
            {"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": small}}]}]}
        first = threading.Thread(target=requests.post, args=(url,), kwargs={"json": body, "timeout": 600})
        first.start()
        assert gate.entered.wait(600)
        busy = requests.post(url, json=body, timeout=600)
        text = requests.post(url, json={"model": "m", "messages": [{"role": "user", "content": "hi"}]}, timeout=600)
        gate.release.set()
        first.join()
        over = requests.post(url, json={"model": "m", "messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": png_url(Image.new("RGB", (65, 64)))}}]}]}, timeout=600)
    assert busy.status_code == 503 and busy.headers["retry-after"] == "1", busy.text
    assert "in flight" in strict_json(busy)["error"]["message"]
    assert text.status_code == 200
    assert over.status_code == 400 and "budget" in strict_json(over)["error"]["message"]


@pytest.mark.parametrize("route", ["/chat/completions", "/responses"])
@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused_and_never_echoed(oracle_server, route, constant):
    body = ('{"model": "m", "input": "hi", "messages": [{"role": "user", "content": "hi"}], '
            f'"temperature": {constant}}}')
    answer = requests.post(oracle_server.base_url + route, data=body, timeout=60,
                           headers={"Content-Type": "application/json"})
    assert answer.status_code == 400
    assert f"{constant.lstrip('-')} is not a JSON number" in strict_json(answer)["error"]["message"]


@pytest.mark.parametrize("route", ["/chat/completions", "/responses"])
def test_an_image_past_pils_own_cap_gets_the_documented_400(oracle_server, route):
    url = "data:image/png;base64," + base64.b64encode(declared_png(20000, 10000)).decode("ascii")
    body = pictured_maze_request("a 3x3 maze", url) if route == "/responses" else {"model": "m", "messages": [
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}]}
    answer = requests.post(oracle_server.base_url + route, json=body, timeout=60)
    assert answer.status_code == 400, answer.text
    error = strict_json(answer)["error"]
    assert "200000000 pixels, over the limit of 16777216" in error["message"]
    assert error["param"] == ("input[0].content[1].image_url" if route == "/responses"
                              else "messages[0].content[0].image_url.url")


def test_chat_completions_stream_to_the_openai_client(oracle_server):
    client = openai.OpenAI(base_url=oracle_server.base_url, api_key="unused", max_retries=0, timeout=60)
    maze = "#####\n#S..#\n###.#\n#G..#\n#####"
    messages = [{"role": "user", "content": f"Solve this maze:\n{maze}"}]
    whole = client.chat.completions.create(model="m", messages=messages).choices[0].message.content
    chunks = list(client.chat.completions.create(model="m", messages=messages, stream=True,
                                                 stream_options={"include_usage": True}))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == whole
    assert chunks[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0
    assert all(c.object == "chat.completion.chunk" and c.id == chunks[0].id for c in chunks)


@pytest.mark.parametrize(("content", "param"), [
    ([{"type": "input_image", "image_url": "data:image/png;base64,@@@"}], "input[0].content[0].image_url"),
    ([{"type": "input_image", "image_url": "x", "detail": "huge"}], "input[0].content[0].detail"),
    ([{"type": "input_text"}], "input[0].content[0].text"),
])
def test_responses_errors_name_the_input_fields(oracle_server, content, param):
    answer = requests.post(oracle_server.base_url + "/responses", timeout=60,
                           json={"model": "m", "input": [{"role": "user", "content": content}]})
    assert answer.status_code == 400
    error = strict_json(answer)["error"]
    assert error["param"] == param and "messages" not in error["message"], error


@pytest.mark.parametrize("route", ["/chat/completions", "/responses"])
@pytest.mark.parametrize(("name", "value"), [
    ("temperature", "[" * 980 + "0.5" + "]" * 980), ("temperature", '{"a": 1}'), ("temperature", "9"),
    ("top_p", '"high"'), ("temperature", "true"), ("top_p", "1" * 400), ("metadata", "[1]"), ("stream", '"yes"'),
    ("user", "5"),
])
def test_parameters_out_of_their_type_or_range_get_400_naming_them(oracle_server, route, name, value):
    body = f'{{"model": "m", "input": "hi", "messages": [{{"role": "user", "content": "hi"}}], "{name}": {value}}}'
    answer = requests.post(oracle_server.base_url + route, data=body, timeout=60,
                           headers={"Content-Type": "application/json"})
    assert answer.status_code == 400, answer.text
    assert strict_json(answer)["error"]["param"] == name


@pytest.mark.parametrize(("route", "name", "value"), [
    ("/chat/completions", "max_tokens", 0), ("/chat/completions", "n", 1000), ("/chat/completions", "stop", [1]),
    ("/responses", "max_output_tokens", -1), ("/responses", "max_output_tokens", 2.5),
])
def test_each_apis_own_parameters_are_checked_by_their_own_names(oracle_server, route, name, value):
    body = {"model": "m", "input": "hi", "messages": [{"role": "user", "content": "hi"}], name: value}
    answer = requests.post(oracle_server.base_url + route, json=body, timeout=60)
    assert answer.status_code == 400 and strict_json(answer)["error"]["param"] == name, answer.text


def raw_request(port: int, head: str, body: bytes = b"") -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(head.encode("latin-1") + body)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


@pytest.mark.parametrize("repeated", ["Host: 127.0.0.1\r\nHost: evil.example",
                                      "Host: 127.0.0.1\r\nHost: 127.0.0.1",
                                      "Host: 127.0.0.1\r\nOrigin: http://127.0.0.1\r\nOrigin: http://evil.example"])
def test_repeated_host_or_origin_headers_are_refused(oracle_server, repeated):
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
    head = (f"POST /v1/chat/completions HTTP/1.1\r\n{repeated}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")
    received = raw_request(oracle_server._http.port, head, body)
    status = int(received.split(b" ", 2)[1])
    assert status == 400, received[:300]
    assert b"more than once" in received


@pytest.mark.parametrize("key", ["secret\n", " secret", "secret\t", "se\x00cret", "s\u00e9cret"])
def test_a_key_no_client_could_send_is_refused_when_the_server_is_configured(key):
    with pytest.raises(MazeConfigError, match="^api_key: the key") as error:
        ModelServer(OraclePolicy(), api_key=key)
    assert "secret" not in str(error.value)


leaves = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30))
values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                                         max_size=3), max_leaves=8)
params = st.dictionaries(st.sampled_from(["temperature", "top_p", "max_tokens", "max_output_tokens", "n", "stop",
                                          "stream", "stream_options", "seed", "metadata", "user", "instructions"]),
                         values, max_size=4)
inputs = st.text(max_size=30) | st.lists(st.fixed_dictionaries({"role": st.sampled_from(["user", "x"]) | values},
                                                               optional={"content": values}), max_size=2) | values


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(route=st.sampled_from(["/chat/completions", "/responses"]), extra=params, given_input=inputs)
def test_fuzzed_parameters_get_a_4xx_or_an_answer_and_always_strict_json(oracle_server, route, extra, given_input):
    body = {"model": "m", "input": given_input, "messages": [{"role": "user", "content": "hi"}], **extra}
    answer = requests.post(oracle_server.base_url + route, data=json.dumps(body), timeout=60,
                           headers={"Content-Type": "application/json"})
    assert answer.status_code < 500, answer.text[:300]
    if answer.headers["content-type"].startswith("text/event-stream"):
        events = [line[6:] for line in answer.text.splitlines() if line.startswith("data: ")]
        assert events[-1] == "[DONE]" and all(isinstance(json.loads(e), dict) for e in events[:-1])
    else:
        strict_json(answer)


def test_serve_model_refuses_a_key_with_a_trailing_newline_in_one_line():
    done = subprocess.run([sys.executable, "-m", "maze_envs", "serve-model", "--port", "0", "--require-key-env",
                           "MAZE_TEST_KEY"], env={**os.environ, "MAZE_TEST_KEY": "abc\n"}, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--require-key-env MAZE_TEST_KEY: the key has whitespace" in done.stderr
    assert "abc" not in done.stderr
