"""Connection deadlines of every server (model server, render server, the shared LoopbackServer), seen through raw
sockets: stalled or trickled headers get a 408 and a closed connection, idle connections are closed, and any
answer sent before the request body was read closes the connection instead of waiting for the missing bytes."""

import json
import socket
import time

import pytest
import requests
from starlette.routing import Route

from maze_envs.core.errors import MazeConfigError
from maze_envs.llm import ModelServer, OraclePolicy
from maze_envs.serving.app import LoopbackServer, json_app, json_response
from maze_envs.serving.render import make_server

DEADLINE = 1.0  # header and body deadline of the servers under test, in seconds
PATIENCE = 30  # a socket read waits this long before the test calls the connection held open


@pytest.fixture(scope="module")
def model_server():
    with ModelServer(OraclePolicy(), keep_requests=False, api_key="key", body_timeout=DEADLINE,
                     header_timeout=DEADLINE) as server:
        yield server


@pytest.fixture(scope="module")
def render_server(tmp_path_factory):
    server = make_server(tmp_path_factory.mktemp("scenes"), port=0, backend="cpu", body_timeout=DEADLINE,
                         header_timeout=DEADLINE)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module", params=["model", "render"])
def target(request):
    """(port, a POST route that reads a JSON body, a GET route, extra request headers) of each server."""
    if request.param == "model":
        server = request.getfixturevalue("model_server")
        return server._http.port, "/v1/chat/completions", "/v1/models", "Authorization: Bearer key\r\n"
    server = request.getfixturevalue("render_server")
    return server.port, "/render_gs", "/ping", ""


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)


def read_until_closed(sock: socket.socket) -> bytes:
    """Return everything the server sent until it closed the connection (a socket timeout fails the test)."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def responses(raw: bytes) -> list[tuple[int, dict[str, str], bytes]]:
    """Return (status, headers, body) of each HTTP/1.1 response with a Content-Length in ``raw``."""
    out = []
    while raw:
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        size = int(headers["content-length"])
        out.append((int(lines[0].split()[1]), headers, rest[:size]))
        raw = rest[size:]
    return out


def test_stalled_headers_get_408_and_a_closed_connection(target):
    port, post, _, _ = target
    with connect(port) as sock:
        sock.sendall(f"POST {post} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty".encode())
        [(status, headers, body)] = responses(read_until_closed(sock))
    assert status == 408 and headers["connection"] == "close"
    assert json.loads(body) == {"error": f"the request headers did not arrive within {DEADLINE:g} s"}


def test_trickled_headers_do_not_postpone_the_deadline(target):
    port, _, get, _ = target
    with connect(port) as sock:
        sock.sendall(f"GET {get} HTTP/1.1\r\n".encode())
        sent = 0
        try:
            # one header byte every 0.2 s, far longer than the deadline; `sent` is read after the loop
            for sent in range(int(PATIENCE / 0.2)):  # noqa: B007
                sock.sendall(b"X")
                time.sleep(0.2)
        except OSError:  # the server closed the connection
            pass
        assert sent < int(PATIENCE / 0.2) - 1
        assert responses(read_until_closed(sock))[0][0] == 408


def test_an_idle_connection_is_closed_without_an_answer(target):
    with connect(target[0]) as sock:
        assert read_until_closed(sock) == b""


def test_a_kept_alive_connection_gets_the_deadline_again_after_each_answer(target):
    port, _, get, auth = target
    request = f"GET {get} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}\r\n".encode()
    with connect(port) as sock:
        sock.sendall(request)
        time.sleep(DEADLINE / 2)
        sock.sendall(request + request[:10])  # a second request, then the start of a third that never ends
        answers = responses(read_until_closed(sock))
    assert [status for status, _, _ in answers] == [200, 200, 408]


def test_a_stalled_body_gets_408_and_a_closed_connection(target):
    port, post, _, auth = target
    with connect(port) as sock:
        sock.sendall(f"POST {post} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Content-Length: 1000\r\n\r\n"
                     "0123456789".encode())
        [(status, headers, body)] = responses(read_until_closed(sock))
    assert status == 408 and headers["connection"] == "close" and b"did not arrive" in body


@pytest.mark.parametrize("route", ["/no-such-route", "GET"])
def test_an_answer_before_the_body_was_read_closes_the_connection(target, route):
    port, _, get, auth = target
    line = f"POST {route}" if route != "GET" else f"PUT {get}"  # 404, or 405 for a wrong method
    with connect(port) as sock:
        sock.sendall(f"{line} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Content-Length: 1000\r\n\r\n0123456789".encode())
        sock.sendall(b"x")  # body bytes still trickling in do not keep the connection
        [(status, headers, _)] = responses(read_until_closed(sock))
    assert status in (404, 405) and headers["connection"] == "close"


def test_a_rejected_key_before_the_body_closes_the_connection(model_server):
    with connect(model_server._http.port) as sock:
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{")
        [(status, headers, _)] = responses(read_until_closed(sock))
    assert status == 401 and headers["connection"] == "close"


def test_answers_to_whole_requests_keep_the_connection(target):
    port, post, get, auth = target
    with requests.Session() as session:
        url = f"http://127.0.0.1:{port}"
        headers = {"Authorization": "Bearer key"} if auth else {}
        for _ in range(3):
            answer = session.get(url + get, headers=headers, timeout=PATIENCE)
            assert answer.status_code == 200 and answer.headers.get("connection") != "close"
        bad = session.post(url + post, data=b"{oops", headers=headers, timeout=PATIENCE)  # read, then refused
        assert bad.status_code == 400 and bad.headers.get("connection") != "close"


def test_twenty_stalled_connections_do_not_block_a_normal_request(target):
    port, post, get, auth = target
    stalled = [connect(port) for _ in range(20)]
    try:
        for i, sock in enumerate(stalled):
            sock.sendall(f"POST {post} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode() if i % 2 else
                         f"POST {post} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Content-Length: 1000\r\n\r\n{{".encode())
        headers = {"Authorization": "Bearer key"} if auth else {}
        assert requests.get(f"http://127.0.0.1:{port}{get}", headers=headers, timeout=PATIENCE).status_code == 200
        for sock in stalled:
            assert responses(read_until_closed(sock))[0][0] == 408
    finally:
        for sock in stalled:
            sock.close()


def test_the_header_deadline_is_configurable_and_checked():
    async def ok(request):
        return json_response({"ok": True})

    with pytest.raises(MazeConfigError, match="^header_timeout: must be a finite positive number"):
        LoopbackServer(json_app([Route("/", ok)]), header_timeout=0)
    with pytest.raises(MazeConfigError, match="^header_timeout"):
        ModelServer(OraclePolicy(), header_timeout=float("inf"))
    with LoopbackServer(json_app([Route("/", ok)]), header_timeout=0.5) as server, connect(server.port) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\n")
        [(status, _, body)] = responses(read_until_closed(sock))
    assert status == 408 and b"within 0.5 s" in body
