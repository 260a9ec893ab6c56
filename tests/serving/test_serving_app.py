"""The shared HTTP plumbing (maze_envs.serving.app) with a real uvicorn server and the real requests client."""

import socket
import threading
import time

import pytest
import requests
from starlette.routing import Route

from maze_envs.core.errors import MazeConfigError
from maze_envs.serving.app import HTTPError, LoopbackServer, json_app, json_response, read_json_body


async def echo(request):
    return json_response({"got": await read_json_body(request, max_bytes=64, timeout=1.0)})


async def broken(request):
    raise KeyError("a bug")


async def teapot(request):
    raise HTTPError(418, "no coffee", param="pot")


APP = json_app([Route("/echo", echo, methods=["POST"]), Route("/broken", broken), Route("/teapot", teapot)])


@pytest.fixture
def server():
    with LoopbackServer(APP) as srv:
        yield srv


def test_json_bodies_are_read_and_bad_ones_get_a_json_400(server):
    url = server.url + "/echo"
    assert requests.post(url, json={"a": [1, 2]}, timeout=10).json() == {"got": {"a": [1, 2]}}
    for body, reason in [(b"", "body is required"), (b"{oops", "invalid JSON body"),
                         (b"[" * 60, "invalid JSON body"), (b"\xff\xfe{", "invalid JSON body")]:
        answer = requests.post(url, data=body, timeout=10)
        assert answer.status_code == 400 and reason in answer.json()["error"]


def test_deep_nesting_and_huge_integers_get_400_not_500():
    with LoopbackServer(json_app([Route("/echo", echo_big, methods=["POST"])])) as srv:
        deep = requests.post(srv.url + "/echo", data=b"[" * 200_000 + b"]" * 200_000, timeout=30)
        assert deep.status_code == 400 and "nested too deeply" in deep.json()["error"]
        huge = requests.post(srv.url + "/echo", data=b"9" * 5000, timeout=30)
        assert huge.status_code == 400 and "digits" in huge.json()["error"]


async def echo_big(request):
    return json_response({"got": await read_json_body(request, max_bytes=1 << 20)})


def test_an_oversized_body_gets_413_and_the_connection_is_closed(server):
    big = requests.post(server.url + "/echo", json={"x": "y" * 100}, timeout=10)
    assert big.status_code == 413 and "over the limit of 64" in big.json()["error"]
    assert big.headers["connection"] == "close"
    chunked = requests.post(server.url + "/echo", data=iter([b"[1,", b"2" * 100, b"]"]), timeout=10)
    assert chunked.status_code == 413


def test_routes_methods_errors_and_bugs_all_answer_json(server):
    missing = requests.get(server.url + "/nope", timeout=10)
    assert missing.status_code == 404 and missing.json() == {"error": "no route GET /nope"}
    wrong_method = requests.get(server.url + "/echo", timeout=10)
    assert wrong_method.status_code == 405 and "error" in wrong_method.json()
    assert requests.get(server.url + "/teapot", timeout=10).json() == {"error": "no coffee"}
    bug = requests.get(server.url + "/broken", timeout=10)
    assert bug.status_code == 500 and bug.json() == {"error": "internal server error: KeyError"}


def test_error_bodies_take_the_shape_the_app_asks_for():
    app = json_app([Route("/teapot", teapot)], error_body=lambda e: {"error": {"message": e.message, "param": e.param,
                                                                              "type": e.kind, "code": e.status}})
    with LoopbackServer(app) as srv:
        answer = requests.get(srv.url + "/teapot", timeout=10)
        assert answer.status_code == 418
        assert answer.json() == {"error": {"message": "no coffee", "param": "pot", "type": "invalid_request_error",
                                           "code": 418}}


def test_an_unread_body_does_not_spoil_the_kept_alive_connection(server):
    with requests.Session() as session:
        assert session.post(server.url + "/nope", json={"a": 1}, timeout=10).status_code == 404
        assert session.post(server.url + "/echo", json=[3], timeout=10).json() == {"got": [3]}
        assert session.post(server.url + "/echo", json={"x": "y" * 100}, timeout=10).status_code == 413
        assert session.post(server.url + "/echo", json=[4], timeout=10).json() == {"got": [4]}


def test_a_stalled_body_gets_408_and_its_connection_is_closed(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as sock:
        sock.sendall(b"POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50\r\n\r\n[1,")
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408") and b"connection: close" in head.lower()
    assert b"did not arrive within 1 s" in body


def test_bind_names_the_port_or_the_address():
    with pytest.raises(MazeConfigError, match="^port: must be an integer from 0 to 65535, got 70000"):
        LoopbackServer(APP, port=70000)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(MazeConfigError, match=f"cannot serve on 127.0.0.1:{port}"):
            LoopbackServer(APP, port=port, verb="serve")
    with pytest.raises(MazeConfigError, match="cannot listen on no-such-host.invalid:0"):
        LoopbackServer(APP, "no-such-host.invalid")


def test_stop_releases_the_port_and_leaves_no_thread():
    before = set(threading.enumerate())
    first = LoopbackServer(APP)
    port = first.port
    first.start("test-first")
    assert requests.post(first.url + "/echo", json=1, timeout=10).json() == {"got": 1}
    first.stop()
    first.stop()  # a second stop is harmless
    deadline = time.monotonic() + 15  # a JSON body is parsed on AnyIO's worker threads, which end 10 s after use
    while not set(threading.enumerate()) <= before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert set(threading.enumerate()) <= before
    again = LoopbackServer(APP, port=port)
    again.stop()  # bound, never started: only the port is released
