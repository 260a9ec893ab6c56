"""Both HTTP servers under careless and hostile clients: stalled bodies, fuzzed bodies and paths, and the
malformed requests found in the wild. Every answer to client input is a 4xx with a JSON error, never a 500."""

import base64
import io
import json
import socket
from urllib.parse import quote

import openai
import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from maze_envs.core.errors import MazeConfigError
from maze_envs.datasets import generate_nav_scenes
from maze_envs.llm import ModelServer, OraclePolicy
from maze_envs.nav.camera import colmap_extrinsics, pose_matrix
from maze_envs.nav.procedural import SceneParams
from maze_envs.serving.render import make_server, serve_in_thread

STALL_SECONDS = 5.0
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CHAT = {"model": "m", "messages": [{"role": "user", "content": "Which way?"}]}
RENDER = {"cam_intrinsics": "1 PINHOLE 32 24 15 15 16 12", "cam_extrinsics": colmap_extrinsics(pose_matrix(1, 1, 0.65)),
          "scene_id": "maze_000"}


@pytest.fixture(scope="module")
def model_server():
    with ModelServer(OraclePolicy(), keep_requests=False, body_timeout=STALL_SECONDS) as server:
        yield server


@pytest.fixture(scope="module")
def render_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("scenes")
    generate_nav_scenes(root, 1, 2, 2, seed=1, params=SceneParams(surfel_spacing=0.3, num_landmarks=1,
                                                                   num_trajectories=1))
    server = make_server(root, port=0, backend="cpu", body_timeout=STALL_SECONDS)
    serve_in_thread(server)
    # the first render compiles the kernels (seconds on a busy machine): not what the stall tests time out on
    assert requests.post(server.url + "/render_gs", json=RENDER, timeout=600).status_code == 200
    yield server
    server.stop()


@pytest.fixture(scope="module", params=["model", "render"])
def target(request):
    """(base URL, POST route, a valid body) of each server."""
    if request.param == "model":
        server = request.getfixturevalue("model_server")
        return server.base_url.removesuffix("/v1"), "/v1/chat/completions", CHAT
    server = request.getfixturevalue("render_server")
    return server.url, "/render_gs", RENDER


def assert_client_error_or_success(answer: requests.Response) -> None:
    """Assert ``answer`` is not a server error, and that an error answer is JSON naming what is wrong."""
    assert answer.status_code < 500, answer.text[:500]
    if answer.status_code >= 400:
        error = answer.json()["error"]
        message = error["message"] if isinstance(error, dict) else error
        assert isinstance(message, str) and 0 < len(message) < 2000


def stall(port: int, route: str) -> socket.socket:
    """Return a connection inside a POST to ``route`` that promised 1000 body bytes and sent one."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(f"POST {route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 "Content-Length: 1000\r\n\r\n{".encode())
    return sock


def test_stalled_bodies_neither_block_others_nor_stay_open(target):
    url, route, body = target
    port = int(url.rsplit(":", 1)[1])
    stalled = [stall(port, route) for _ in range(20)]
    try:
        assert requests.post(url + route, json=body, timeout=STALL_SECONDS - 1).status_code == 200
        for sock in stalled:  # still held when the normal request was answered
            sock.setblocking(False)
            with pytest.raises(BlockingIOError):
                sock.recv(1)
            sock.settimeout(30)
        for sock in stalled:
            answer = b""
            while chunk := sock.recv(4096):
                answer += chunk
            head, _, error = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 408") and b"did not arrive" in error
    finally:
        for sock in stalled:
            sock.close()


@pytest.mark.parametrize("body", [b"[" * 100_000 + b"]" * 100_000, b'{"a": ' + b"9" * 5000 + b"}",
                                  b"{" * 50_000, b"\xff\xfe\x00", b"null", b"   "])
def test_hostile_json_bodies_get_400(target, body):
    url, route, _ = target
    answer = requests.post(url + route, data=body, timeout=30)
    assert answer.status_code == 400
    assert_client_error_or_success(answer)


def test_a_body_over_the_limit_gets_413(render_server):
    answer = requests.post(render_server.url + "/render_gs", data=b" " * (2 << 20), timeout=30)
    assert answer.status_code == 413 and "over the limit" in answer.json()["error"]


@pytest.mark.parametrize("scene_id", ["a" * 5000, "a" * 256, "maze_000" * 40, "\u00e9t\u00e9"])
def test_scene_ids_the_file_system_refuses_get_400(render_server, scene_id):
    answer = requests.post(render_server.url + "/render_gs", json={**RENDER, "scene_id": scene_id}, timeout=30)
    assert answer.status_code == 400 and "scene_id" in answer.json()["error"]
    assert len(answer.json()["error"]) < 400


@pytest.mark.parametrize("body, param", [
    ({"messages": [1, 2]}, "messages[0]"),
    ({"messages": []}, "messages"),
    ({"messages": "hi"}, "messages"),
    ({}, "messages"),
    ({"messages": [{"content": "hi"}]}, "messages[0].role"),
    ({"messages": [{"role": "wizard", "content": "hi"}]}, "messages[0].role"),
    ({"messages": [{"role": 5, "content": "hi"}]}, "messages[0].role"),
    ({"messages": [{"role": "user"}]}, "messages[0].content"),
    ({"messages": [{"role": "user", "content": 7}]}, "messages[0].content"),
    ({"messages": [{"role": "user", "content": [1]}]}, "messages[0].content[0]"),
    ({"messages": [{"role": "user", "content": [{"text": "x"}]}]}, "messages[0].content[0]"),
    ({"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]}, "messages[0].content[0].text"),
    ({"model": 3, "messages": [{"role": "user", "content": "hi"}]}, "model"),
    ({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": 5}]}]},
     "messages[0].content[0].image_url"),
    ({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": "data:,"}]}]},
     "messages[0].content[0].image_url"),
    ({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}, "messages[0].content[0].image_url"),
    ({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": 1}}]}]},
     "messages[0].content[0].image_url.url"),
    ({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:,", "detail": 3}}]}]},
     "messages[0].content[0].image_url.detail"),
    ({"messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,not base64!"}}]}]},
     "messages[0].content[0].image_url.url"),
    ({"messages": [{"role": "user", "content": [{"type": "video_url", "video_url": [1]}]}]},
     "messages[0].content[0].video_url"),
    ({"messages": [{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "AA=="}}]}]},
     "messages[0].content[0].input_audio.format"),
    ({"messages": [{"role": "user", "content": [{"type": "file", "file": "x"}]}]}, "messages[0].content[0].file"),
    ({"messages": [{"role": "assistant", "content": [{"type": "refusal", "refusal": None}]}]},
     "messages[0].content[0].refusal"),
    ({"messages": [{"role": "user", "content": [{"type": "hologram"}]}]}, "messages[0].content[0].type"),
])
def test_malformed_chat_requests_get_an_openai_style_400(model_server, body, param):
    answer = requests.post(model_server.base_url + "/chat/completions", json=body, timeout=30)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["param"] == param and error["type"] == "invalid_request_error" and error["code"] == 400
    assert error["message"].startswith(param)


def test_well_formed_variants_are_accepted(model_server):
    for messages in ([{"role": "system", "content": "be brief"}, {"role": "user", "content": [
                         {"type": "text", "text": "hi"}, {"type": "image_url", "image_url": {"url": "data:,"}}]}],
                     [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None, "tool_calls": []},
                      {"role": "tool", "content": "42"}, {"role": "developer", "content": "go on"}],
                     [{"role": "user", "content": [
                         {"type": "text", "text": "a 999999999x999999999 maze; and one 0x0"},
                         {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "low"}},
                         {"type": "video_url", "video_url": {"url": "https://example.invalid/v.mp4"}},
                         {"type": "input_audio", "input_audio": {"data": "AA==", "format": "wav"}},
                         {"type": "file", "file": {"file_id": "f"}}]},
                      {"role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]},
                      {"role": "user", "content": [{"type": "text", "text": "a 3x3 maze"}, {"type": "image_url",
                                                   "image_url": {"url": "data:image/png;base64,aGVsbG8="}}]}]):
        answer = requests.post(model_server.base_url + "/chat/completions", json={"messages": messages}, timeout=30)
        assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("size", ["0x0", "999999999x999999999", "5x5"])
def test_the_oracle_answers_pictures_it_cannot_read_without_a_server_error(model_server, size):
    png = io.BytesIO()
    Image.new("RGB", (4, 4), "white").save(png, format="PNG")
    url = "data:image/png;base64," + base64.b64encode(png.getvalue()).decode()
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": f"Solve this {size} maze."},
                                                      {"type": "image_url", "image_url": {"url": url}}]}]}
    answer = requests.post(model_server.base_url + "/chat/completions", json=body, timeout=30)
    assert answer.status_code == 200 and "cannot find" in answer.json()["choices"][0]["message"]["content"]


def test_the_openai_client_sees_a_bad_request(model_server):
    client = openai.OpenAI(base_url=model_server.base_url, api_key="unused", max_retries=0)
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="m", messages=[{"role": "wizard", "content": "hi"}])
    assert info.value.status_code == 400 and "messages[0].role" in str(info.value)


def test_a_body_timeout_must_be_a_positive_number(render_server):
    with pytest.raises(MazeConfigError, match="^body_timeout: must be a finite positive number"):
        ModelServer(OraclePolicy(), body_timeout=0)
    with pytest.raises(MazeConfigError, match="^body_timeout"):
        make_server(render_server.service.root, port=0, backend="cpu", body_timeout=float("nan"))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12)
message_like = st.fixed_dictionaries({}, optional={
    "role": st.sampled_from(["user", "system", "assistant", "tool", "developer", "x"]) | json_values,
    "content": st.text(max_size=60) | json_values | st.lists(st.fixed_dictionaries({}, optional={
        "type": st.sampled_from(["text", "image_url", "video_url"]) | json_values,
        "text": st.text(max_size=40) | json_values, "image_url": json_values}), max_size=3)})
chat_bodies = st.fixed_dictionaries({}, optional={
    "model": st.text(max_size=20) | json_values, "messages": st.lists(message_like, max_size=3) | json_values,
    "temperature": json_values, "max_tokens": json_values})


@FUZZ
@given(body=chat_bodies | json_values)
def test_fuzzed_chat_bodies_never_get_a_server_error(model_server, body):
    answer = requests.post(model_server.base_url + "/chat/completions", data=json.dumps(body), timeout=30)
    assert_client_error_or_success(answer)


render_fields = st.fixed_dictionaries({}, optional={
    "cam_intrinsics": st.text(max_size=40) | json_values | st.just(RENDER["cam_intrinsics"]),
    "cam_extrinsics": st.text(max_size=60) | json_values | st.just(RENDER["cam_extrinsics"]),
    "scene_id": st.text(max_size=300) | json_values | st.just("maze_000"),
    "render_scale": json_values, "return_depth_img": json_values, "return_depth_npz": json_values})


@FUZZ
@given(change=render_fields)
def test_fuzzed_render_bodies_never_get_a_server_error(render_server, change):
    answer = requests.post(render_server.url + "/render_gs", data=json.dumps({**RENDER, **change}), timeout=60)
    assert_client_error_or_success(answer)


@FUZZ
@given(body=st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_fuzzed_raw_bodies_never_get_a_server_error(target, body):
    url, route, _ = target
    assert_client_error_or_success(requests.post(url + route, data=body, timeout=30))


@FUZZ
@given(path=st.text(max_size=80), method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "HEAD"]))
def test_fuzzed_paths_and_methods_never_get_a_server_error(target, path, method):
    url, _, body = target
    answer = requests.request(method, url + "/" + quote(path, safe="/"), json=body, timeout=30,
                              allow_redirects=False)
    assert answer.status_code < 500
    if answer.status_code >= 400 and method != "HEAD":
        assert_client_error_or_success(answer)
