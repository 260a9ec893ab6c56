"""Request rate of the two loopback HTTP servers under concurrent clients: N requests spread over THREADS
threads, each with its own ``requests.Session`` (kept-alive connections); prints requests per second for
the model server (``GET /v1/models``, ``POST /v1/chat/completions`` answered by the scripted policy) and
the render server (``GET /ping``). ``--stalled K`` first opens K connections that promise a body and never
send it, to show whether they slow everyone else down.

Run: python3 benchmarks/server_rate.py [--requests 2000] [--threads 8] [--stalled 0]
"""

import argparse
import json
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maze_envs.datasets import generate_nav_scenes  # noqa: E402
from maze_envs.llm import ModelServer, PolicyReply, ScriptedPolicy  # noqa: E402
from maze_envs.llm.policies import ScriptEntry  # noqa: E402
from maze_envs.nav import SceneParams  # noqa: E402
from maze_envs.serving.render import make_server, serve_in_thread  # noqa: E402

CHAT = {"model": "bench", "messages": [{"role": "user", "content": "Which way to the goal?"}]}


def requests_per_second(call: Callable[[requests.Session], requests.Response], total: int, threads: int) -> float:
    """Return the rate at which ``threads`` threads complete ``total`` calls (each must answer 200)."""
    share = [total // threads + (i < total % threads) for i in range(threads)]
    failures: list[str] = []

    def worker(count: int) -> None:
        with requests.Session() as session:
            for _ in range(count):
                answer = call(session)
                if answer.status_code != 200:
                    failures.append(f"HTTP {answer.status_code}: {answer.text[:200]}")

    pool = [threading.Thread(target=worker, args=(n,)) for n in share]
    began = time.perf_counter()
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    elapsed = time.perf_counter() - began
    if failures:
        raise SystemExit(f"{len(failures)} requests failed, first: {failures[0]}")
    return total / elapsed


def stall(url: str, count: int) -> list[socket.socket]:
    """Return ``count`` open connections to ``url``'s host, each inside a POST whose body never arrives."""
    host, port = url.split("//", 1)[1].split("/", 1)[0].split(":")
    held = []
    for _ in range(count):
        sock = socket.create_connection((host, int(port)))
        sock.sendall(b"POST /x HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000\r\n\r\n{")
        held.append(sock)
    return held


def main() -> None:
    """Measure both servers and print the rates as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=2000, help="requests per measurement")
    parser.add_argument("--threads", type=int, default=8, help="concurrent client threads")
    parser.add_argument("--stalled", type=int, default=0, help="stalled connections held open while measuring")
    args = parser.parse_args()
    policy = ScriptedPolicy([ScriptEntry(PolicyReply("UP"))], cycle=True)
    rates = {}
    with ModelServer(policy, keep_requests=False) as server:
        held = stall(server.base_url, args.stalled)
        models, chat = server.base_url + "/models", server.base_url + "/chat/completions"
        rates["model GET /v1/models"] = requests_per_second(
            lambda s: s.get(models, timeout=30), args.requests, args.threads)
        rates["model POST /v1/chat/completions"] = requests_per_second(
            lambda s: s.post(chat, json=CHAT, timeout=30), args.requests, args.threads)
        for sock in held:
            sock.close()
    with tempfile.TemporaryDirectory() as tmp:
        generate_nav_scenes(Path(tmp), 1, 2, 2, seed=0, params=SceneParams(num_landmarks=1, num_trajectories=1))
        render = make_server(tmp, port=0, backend="cpu")
        serve_in_thread(render)
        try:
            held = stall(render.url, args.stalled)
            ping = render.url + "/ping"
            rates["render GET /ping"] = requests_per_second(
                lambda s: s.get(ping, timeout=30), args.requests, args.threads)
            for sock in held:
                sock.close()
        finally:
            render.stop()
    print(json.dumps({"threads": args.threads, "requests": args.requests, "stalled": args.stalled,
                      "requests_per_s": {name: round(rate, 1) for name, rate in rates.items()}}, indent=2))


if __name__ == "__main__":
    main()
