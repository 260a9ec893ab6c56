"""The shared loopback HTTP plumbing (maze_envs.serving.http) with a real server and the real requests client."""

import socket

import pytest
import requests

from maze_envs.core.errors import MazeConfigError
from maze_envs.serving.http import BodyError, DaemonHTTPServer, JSONHandler, bind


class EchoHandler(JSONHandler):
    def do_POST(self) -> None:  # noqa: N802
        if self.route != "/echo":
            self.send_json(404, {"error": f"no route {self.route}"})
            return
        try:
            self.send_json(200, {"got": self.read_json_body(64)})
        except BodyError as exc:
            self.send_json(400, {"error": str(exc)})

    def log_message(self, format, *args):  # noqa: A002
        return


@pytest.fixture
def server():
    srv = bind(DaemonHTTPServer, "127.0.0.1", 0, EchoHandler)
    srv.start("test-echo")
    yield srv
    srv.stop()


def test_json_bodies_are_read_and_bad_ones_get_400(server):
    url = server.url + "/echo"
    assert requests.post(url, json={"a": [1, 2]}, timeout=10).json() == {"got": {"a": [1, 2]}}
    too_big = requests.post(url, json={"x": "y" * 100}, timeout=10)
    assert too_big.status_code == 400 and "1 to 64 bytes" in too_big.json()["error"]
    assert requests.post(url, data=b"", timeout=10).status_code == 400
    bad = requests.post(url, data=b"{oops", timeout=10)
    assert bad.status_code == 400 and "invalid JSON body" in bad.json()["error"]


def test_an_unread_body_does_not_spoil_the_kept_alive_connection(server):
    with requests.Session() as session:
        assert session.post(server.url + "/nope", json={"a": 1}, timeout=10).status_code == 404
        assert session.post(server.url + "/echo", json=[3], timeout=10).json() == {"got": [3]}
        assert session.post(server.url + "/echo", json={"x": "y" * 100}, timeout=10).status_code == 400
        assert session.post(server.url + "/echo", json=[4], timeout=10).json() == {"got": [4]}


def test_bind_names_the_port_or_the_address():
    with pytest.raises(MazeConfigError, match="^port: must be 0-65535, got 70000"):
        bind(DaemonHTTPServer, "127.0.0.1", 70000, EchoHandler)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(MazeConfigError, match=f"cannot serve on 127.0.0.1:{port}"):
            bind(DaemonHTTPServer, "127.0.0.1", port, EchoHandler, verb="serve")


def test_stop_releases_the_port_so_it_can_be_bound_again():
    first = bind(DaemonHTTPServer, "127.0.0.1", 0, EchoHandler)
    port = first.server_address[1]
    first.start("test-first")
    assert requests.post(first.url + "/echo", json=1, timeout=10).json() == {"got": 1}
    first.stop()
    first.stop()  # a second stop is harmless
    again = bind(DaemonHTTPServer, "127.0.0.1", port, EchoHandler)
    again.stop()  # bound, never started: only the port is released
