"""Hostile-client probe of both loopback HTTP servers (the model server and the render server) over raw sockets.

Scenarios, on each server, all run at once:

- ``stalled body``: a POST that declares Content-Length 1000 and sends 10 bytes (answer: 408 after the body
  deadline, then the connection closes);
- ``stalled headers``: a request line and half a header, then nothing (408 after the header deadline);
- ``trickled headers``: one header byte every 0.5 s (the header deadline is not postponed);
- ``idle``: a connection that sends nothing (closed silently after the header deadline);
- ``answer before body``: a POST to an unknown route with 10 of 1000 body bytes, then more trickling (404,
  closed at once);
- ``20 stalled + normal``: 10 stalled bodies and 10 stalled headers held open, then a normal request, which
  must be answered while they are held; then how long each of the 20 took to be closed;
- ``bad input``: malformed requests (bad JSON, bad content parts, absurd Content-Length) must get a 4xx.

Prints one line per connection group: seconds until the server closed it, the answer's status, and the ratio
of that time to the deadline in force; exits non-zero when a connection stayed open past ``--patience`` or
any client input got a 5xx.

Run: python3 benchmarks/server_probe.py [--header-timeout 10] [--body-timeout 30] [--patience 60]
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maze_envs.datasets import generate_nav_scenes
from maze_envs.llm import ModelServer, OraclePolicy
from maze_envs.nav import SceneParams
from maze_envs.nav.camera import colmap_extrinsics, pose_matrix
from maze_envs.serving.app import BODY_TIMEOUT, HEADER_TIMEOUT
from maze_envs.serving.render import make_server

CHAT = {"model": "probe", "messages": [{"role": "user", "content": "Which way?"}]}
RENDER = {"cam_intrinsics": "1 PINHOLE 32 24 15 15 16 12", "cam_extrinsics": colmap_extrinsics(pose_matrix(1, 1, 0.65)),
          "scene_id": "maze_000"}


@dataclass
class Target:
    """One server under probe: its port, a POST route that reads a JSON body, and a valid body for it."""

    name: str
    port: int
    route: str
    body: dict


@dataclass
class Closed:
    """What one connection saw: the first status answered (0 = none) and seconds until the server closed it
    (None = still open after the patience)."""

    status: int
    seconds: float | None


def watch(sock: socket.socket, began: float, patience: float, trickle: bool = False) -> Closed:
    """Return what ``sock`` receives until the server closes it (giving up ``patience`` s after ``began``); with
    ``trickle``, send one more byte every 0.5 s while waiting."""
    received = b""
    sock.settimeout(0.5)
    while time.monotonic() < began + patience:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            if trickle:
                try:
                    sock.sendall(b"x")
                except OSError:
                    return Closed(_status(received), time.monotonic() - began)
            continue
        except OSError:  # reset by the server
            chunk = b""
        if not chunk:
            return Closed(_status(received), time.monotonic() - began)
        received += chunk
    return Closed(_status(received), None)


def _status(received: bytes) -> int:
    head = received.split(b"\r\n", 1)[0].split()
    return int(head[1]) if len(head) > 1 and head[1].isdigit() else 0


def _open(target: Target, data: bytes) -> tuple[socket.socket, float]:
    sock = socket.create_connection(("127.0.0.1", target.port))
    if data:
        sock.sendall(data)
    return sock, time.monotonic()


def stalled_body(target: Target) -> bytes:
    """Return a POST head promising 1000 body bytes, with 10 of them."""
    return (f"POST {target.route} HTTP/1.1\r\nHost: probe\r\nContent-Type: application/json\r\n"
            "Content-Length: 1000\r\n\r\n0123456789").encode()


def stalled_headers(target: Target) -> bytes:
    """Return a request line and half a header."""
    return f"POST {target.route} HTTP/1.1\r\nHost: probe\r\nContent-Ty".encode()


def one(target: Target, data: bytes, patience: float, trickle: bool = False) -> Closed:
    """Return what one connection sending ``data`` (then ``trickle``) sees."""
    sock, began = _open(target, data)
    with sock:
        return watch(sock, began, patience, trickle)


def crowd(target: Target, patience: float) -> tuple[int, float, int, list[Closed]]:
    """Hold 20 stalled connections (watched from the start), make a normal request; return its status, its
    seconds, how many of the 20 were still open when it was answered, and the 20 closings."""
    held = [_open(target, stalled_body(target) if i % 2 else stalled_headers(target)) for i in range(20)]
    with ThreadPoolExecutor(20) as pool:
        watching = [pool.submit(watch, sock, began, patience) for sock, began in held]
        began = time.monotonic()
        answer = requests.post(f"http://127.0.0.1:{target.port}{target.route}", json=target.body, timeout=patience)
        normal = time.monotonic() - began
        still_open = sum(not job.done() for job in watching)
        closings = [job.result() for job in watching]
    for sock, _ in held:
        sock.close()
    return answer.status_code, normal, still_open, closings


def bad_input(target: Target) -> list[int]:
    """Return the statuses of malformed requests to ``target``'s POST route and of an unknown method."""
    url = f"http://127.0.0.1:{target.port}{target.route}"
    bodies = [b"{oops", b"[" * 100_000, b"null", json.dumps({"messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": 5}]}]}).encode(), json.dumps({"scene_id": "../../etc"}).encode()]
    statuses = [requests.post(url, data=body, timeout=60).status_code for body in bodies]
    statuses.append(requests.request("PATCH", url, timeout=60).status_code)
    absurd = f"POST {target.route} HTTP/1.1\r\nHost: probe\r\nContent-Length: 99999999999999\r\n\r\n{{}}"
    statuses.append(one(target, absurd.encode(), 60).status)
    return statuses


def probe(target: Target, header_timeout: float, body_timeout: float, patience: float) -> tuple[list[str], bool]:
    """Run every scenario on ``target`` at once; return the report lines and whether all went as they should."""
    with ThreadPoolExecutor(8) as pool:
        jobs = {
            "stalled body": (pool.submit(one, target, stalled_body(target), patience), body_timeout),
            "stalled headers": (pool.submit(one, target, stalled_headers(target), patience), header_timeout),
            "trickled headers": (pool.submit(one, target, stalled_headers(target), patience, True),
                                 header_timeout),
            "idle connection": (pool.submit(one, target, b"", patience), header_timeout),
            "answer before body": (pool.submit(one, target, stalled_body(target).replace(
                target.route.encode(), b"/no-such-route"), patience, True), None),
        }
        crowd_job = pool.submit(crowd, target, patience)
        bad_job = pool.submit(bad_input, target)
        lines, ok = [], True
        for label, (job, deadline) in jobs.items():
            seen = job.result()
            ok &= seen.seconds is not None and seen.status < 500
            lines.append(_line(target.name, label, [seen], deadline))
        status, normal, still_open, closings = crowd_job.result()
        ok &= status == 200 and all(c.seconds is not None and c.status < 500 for c in closings)
        lines.append(f"{target.name:6} normal request beside 20 stalled: HTTP {status} in {normal:.3f} s "
                     f"({still_open} of the 20 still held when it was answered)")
        lines.append(
            _line(target.name, "20 stalled (10 body, 10 headers)", closings, max(header_timeout, body_timeout))
        )
        statuses = bad_job.result()
        ok &= all(400 <= s < 500 for s in statuses)
        lines.append(f"{target.name:6} bad input statuses: {statuses} (5xx: {sum(s >= 500 for s in statuses)})")
    return lines, ok


def _line(server: str, label: str, seen: list[Closed], deadline: float | None) -> str:
    times = [c.seconds for c in seen if c.seconds is not None]
    statuses = sorted({c.status for c in seen})
    if len(times) < len(seen):
        return f"{server:6} {label}: {len(seen) - len(times)} of {len(seen)} STILL OPEN, statuses {statuses}"
    spread = f"{min(times):.2f}-{max(times):.2f} s (median {statistics.median(times):.2f})" if len(times) > 1 \
        else f"{times[0]:.2f} s"
    ratio = f", {max(times) / deadline:.2f}x the {deadline:g} s deadline" if deadline else ""
    return f"{server:6} {label}: closed after {spread}, status {statuses}{ratio}"


def main() -> None:
    """Probe both servers and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--header-timeout", type=float, default=HEADER_TIMEOUT, help="header deadline, seconds")
    parser.add_argument("--body-timeout", type=float, default=BODY_TIMEOUT, help="body deadline, seconds")
    parser.add_argument("--patience", type=float, default=60.0, help="seconds before a connection counts as held")
    args = parser.parse_args()
    timeouts = {"header_timeout": args.header_timeout, "body_timeout": args.body_timeout}
    print(f"deadlines: headers {args.header_timeout:g} s, body {args.body_timeout:g} s")
    with tempfile.TemporaryDirectory() as tmp, ModelServer(OraclePolicy(), keep_requests=False, **timeouts) as model:
        generate_nav_scenes(Path(tmp), 1, 2, 2, seed=0, params=SceneParams(num_landmarks=1, num_trajectories=1))
        render = make_server(tmp, port=0, backend="cpu", **timeouts)
        render.start()
        try:
            requests.post(render.url + "/render_gs", json=RENDER, timeout=600)  # warm-up: compiles the renderer
            targets = [Target("model", model._http.port, "/v1/chat/completions", CHAT),
                       Target("render", render.port, "/render_gs", RENDER)]
            results: dict[str, tuple[list[str], bool]] = {}
            threads = [threading.Thread(target=lambda t=t: results.__setitem__(
                t.name, probe(t, args.header_timeout, args.body_timeout, args.patience))) for t in targets]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        finally:
            render.stop()
    ok = True
    for name in ("model", "render"):
        lines, fine = results[name]
        print("\n".join(lines))
        ok &= fine
    print("all connections closed, no 5xx for client input" if ok else "FAILED: see the lines above")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
