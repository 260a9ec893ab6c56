"""Who may talk to the three servers (model, render, sandbox in both protocols), on real loopback ports with the
real clients: a forged ``Host`` (DNS rebinding), a cross-site ``Origin``, a non-JSON body (a web page's simple
request) and a body over the limit are refused before any route runs; an optional bearer key guards each server,
from the library and from the command line."""

from __future__ import annotations

import json
import socket

import pytest
import requests
from _servers import CHAT, LOAD, RENDER, CliServer, error_message, make_mazes, make_scenes
from starlette.routing import Route

from maze_envs.core.errors import MazeConfigError
from maze_envs.evaluators.bench.sandbox import SandboxAPIError, SandboxClient, sandbox_app
from maze_envs.evaluators.bench.sandbox import api as sandbox_api
from maze_envs.llm import ModelServer, OraclePolicy
from maze_envs.llm import server as model_module
from maze_envs.nav.camera import pose_matrix
from maze_envs.nav.client import GaussianRenderer
from maze_envs.nav.errors import RenderFailureError
from maze_envs.serving import render as render_module
from maze_envs.serving.app import LoopbackServer, json_app, json_response
from maze_envs.serving.render import make_server

SERVERS = ["model", "render", "sandbox", "sandbox-mazebench"]


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    return make_scenes(tmp_path_factory.mktemp("scenes"))


@pytest.fixture(scope="module")
def mazes(tmp_path_factory):
    return make_mazes(tmp_path_factory.mktemp("mazes"))


@pytest.fixture(scope="module")
def running(scenes, mazes):
    """Each server, started, by name."""
    servers = {"model": ModelServer(OraclePolicy(), keep_requests=False),
               "render": make_server(scenes, port=0, backend="cpu"),
               "sandbox": LoopbackServer(sandbox_app(mazes)),
               "sandbox-mazebench": LoopbackServer(sandbox_app(mazes, "mazebench"))}
    for server in servers.values():
        server.start()
    yield servers
    for server in servers.values():
        server.stop()


@pytest.fixture(scope="module", params=SERVERS)
def target(request, running):
    """(base URL, port, a POST route reading JSON, a valid body for it, a GET route, its body limit)."""
    server = running[request.param]
    if request.param == "model":
        url = server.base_url.removesuffix("/v1")
        return url, server._http.port, "/v1/chat/completions", CHAT, "/v1/models", model_module.MAX_BODY
    if request.param == "render":
        return server.url, server.port, "/render_gs", RENDER, "/scenes", render_module.MAX_BODY
    return server.url, server.port, "/load", LOAD, "/health", sandbox_api.MAX_BODY


def test_valid_requests_pass(target):
    url, port, post, body, get, _ = target
    assert requests.get(url + get, timeout=60).status_code == 200
    assert requests.post(url + post, json=body, timeout=600).status_code == 200
    for host in (f"localhost:{port}", "LOCALHOST", f"127.0.0.1:{port}", "localhost."):
        assert requests.get(url + get, headers={"Host": host}, timeout=60).status_code == 200, host


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1.evil.example", "10.0.0.1",
                                  "[::2]:{port}"])
def test_a_forged_host_is_refused(target, host):
    url, port, post, body, get, _ = target
    host = host.format(port=port)
    for answer in (requests.get(url + get, headers={"Host": host}, timeout=60),
                   requests.post(url + post, json=body, headers={"Host": host}, timeout=60)):
        assert answer.status_code == 400 and "is not this server's" in error_message(answer)
        assert "--allow-host" in error_message(answer)


@pytest.mark.parametrize("kind", ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
                                  "multipart/form-data; boundary=x", "application/xml"])
def test_a_body_that_is_not_json_gets_415(target, kind):
    url, _, post, body, _, _ = target
    answer = requests.post(url + post, data=json.dumps(body), headers={"Content-Type": kind}, timeout=60)
    assert answer.status_code == 415 and "not JSON" in error_message(answer)


def test_json_media_types_pass(target):
    url, _, post, body, _, _ = target
    for kind in ("application/json; charset=utf-8", "Application/JSON", "application/vnd.api+json"):
        answer = requests.post(url + post, data=json.dumps(body), headers={"Content-Type": kind}, timeout=600)
        assert answer.status_code == 200, (kind, answer.text[:300])


@pytest.mark.parametrize("origin", ["http://evil.example", "https://evil.example:443", "null",
                                    "http://127.0.0.1.evil.example"])
def test_a_cross_site_origin_is_refused(target, origin):
    url, _, post, body, _, _ = target
    answer = requests.post(url + post, json=body, headers={"Origin": origin}, timeout=60)
    assert answer.status_code == 403 and "cross-origin" in error_message(answer)
    empty = requests.post(url + post, headers={"Origin": origin}, timeout=60)  # a body-less POST, e.g. /reset
    assert empty.status_code == 403


def test_a_same_machine_origin_passes(target):
    url, port, post, body, _, _ = target
    answer = requests.post(url + post, json=body, headers={"Origin": f"http://localhost:{port}"}, timeout=600)
    assert answer.status_code == 200


def test_a_body_over_the_limit_gets_413_before_it_is_sent(target):
    _, port, post, _, _, limit = target
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(f"POST {post} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {limit + 1}\r\n\r\n{{".encode())
        answer = b""
        while chunk := sock.recv(65536):  # the head and the body can come in two segments; the server then closes
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 413") and f"over the limit of {limit}".encode() in answer


async def _ok(request):
    return json_response({"ok": True})


def test_allow_hosts_adds_names_and_a_star_allows_any():
    app = json_app([Route("/", _ok)])
    with LoopbackServer(app, allow_hosts=["maze.test", "Other.Test."]) as server:
        for host, status in [("maze.test", 200), ("maze.test:9", 200), ("other.test", 200), ("evil.test", 400),
                             ("localhost", 200)]:
            assert requests.get(server.url, headers={"Host": host}, timeout=30).status_code == status, host
        assert requests.get(server.url, headers={"Origin": "http://maze.test:3000"}, timeout=30).status_code == 200
    with LoopbackServer(app, allow_hosts=["*"]) as server:
        assert requests.get(server.url, headers={"Host": "anything.example"}, timeout=30).status_code == 200
    for bad in ["a/b", "", "  ", "with space"]:
        with pytest.raises(MazeConfigError, match="^allow_hosts: expected a host name"):
            LoopbackServer(app, allow_hosts=[bad])
    with pytest.raises(MazeConfigError, match="^api_key: must be a non-empty string"):
        LoopbackServer(app, api_key="")


def test_a_server_bound_to_a_wildcard_accepts_loopback_names_only_unless_told():
    app = json_app([Route("/", _ok)])
    with LoopbackServer(app, "0.0.0.0", allow_hosts=["box.lan"]) as server:
        base = f"http://127.0.0.1:{server.port}"
        assert [requests.get(base, headers={"Host": h}, timeout=30).status_code
                for h in ("localhost", "box.lan", "other.lan")] == [200, 200, 400]


def test_the_render_server_takes_a_bearer_key(scenes):
    server = make_server(scenes, port=0, backend="cpu", api_key="render-secret")
    server.start()
    try:
        refused = requests.get(server.url + "/ping", timeout=30)
        assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
        wrong = requests.get(server.url + "/ping", headers={"Authorization": "Bearer nope"}, timeout=30)
        assert wrong.status_code == 401 and "render-secret" not in wrong.text
        images = GaussianRenderer(server.url + "/render_gs", num_views=1, timeout=600,
                                  api_key="render-secret").render_at_pose(pose_matrix(1, 1, 0.65), "maze_000")
        assert images[0].size == (720, 640)
        with pytest.raises(RenderFailureError, match="HTTP 401"):
            GaussianRenderer(server.url + "/render_gs", num_views=1, max_retries=0).render_at_pose(
                pose_matrix(1, 1, 0.65), "maze_000")
    finally:
        server.stop()


@pytest.mark.parametrize("protocol", ["strict", "mazebench"])
def test_the_sandbox_server_takes_a_bearer_key(mazes, protocol):
    with LoopbackServer(sandbox_app(mazes, protocol), api_key="box-secret") as server:
        assert SandboxClient(server.url, api_key="box-secret").health()["status"] == "healthy"
        assert requests.get(server.url + "/health", headers={"api-key": "box-secret"}, timeout=30).status_code == 200
        with pytest.raises(SandboxAPIError, match="401"):
            SandboxClient(server.url).load("maze_3x3_0")


def test_the_server_commands_take_allow_host_and_require_key_env(mazes, tmp_path):
    key = {"SANDBOX_TEST_KEY": "cli-secret"}
    args = ["sandbox", "api", "--mazes-dir", str(mazes), "--port", "0", "--allow-host", "maze.test",
            "--require-key-env", "SANDBOX_TEST_KEY"]
    with CliServer(args, tmp_path / "sandbox.log", key) as server:
        authorised = {"Authorization": "Bearer cli-secret"}
        assert requests.get(server.url + "/health", headers={**authorised, "Host": "maze.test"},
                            timeout=30).status_code == 200
        assert requests.get(server.url + "/health", headers={**authorised, "Host": "evil.test"},
                            timeout=30).status_code == 400
        assert requests.get(server.url + "/health", timeout=30).status_code == 401
    for command in (["sandbox", "api", "--mazes-dir", str(mazes)], ["serve-render", "--scenes-root", str(mazes)],
                    ["serve-model"]):
        with pytest.raises(RuntimeError, match=r"--require-key-env: environment variable UNSET_TEST_KEY is not set"):
            with CliServer([*command, "--port", "0", "--require-key-env", "UNSET_TEST_KEY"], tmp_path / "x.log"):
                pass
    with pytest.raises(RuntimeError, match=r"--allow-host: expected a host name"):
        with CliServer(["serve-model", "--port", "0", "--allow-host", "a/b"], tmp_path / "y.log"):
            pass
