"""Hostile-client probe of the loopback HTTP servers (model, render, sandbox): connection deadlines, what one
request may cost, and what is refused.

Section ``deadlines`` (model and render servers, raw sockets), scenarios on each server, all run at once:

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

It prints one line per connection group: seconds until the server closed it, the answer's status, and the ratio
of that time to the deadline in force.

Section ``prompts``: each 1 MiB hostile prompt (one per oracle pattern that used to be quadratic, and a 250x250
maze after filler) sent to ``maze-envs serve-model`` in its own process while a second client lists models in a
loop: the server's CPU for it (from /proc), its latency, and the other client's latencies meanwhile.

Section ``renders``: ``--renders`` concurrent 4096x4096 depth renders sent to ``maze-envs serve-render`` in its
own process: the statuses (200, or 503 with Retry-After past the pixel budget) and the server's RSS before and
at its peak (VmHWM).

Section ``pictures``: the 78 KB Responses request that used to cost the oracle 12.7 s and 2.9 GB ("a 4096x4096
maze" and a white 4096x4096 PNG) sent to ``maze-envs serve-model`` in its own process: alone, then two at once while
a second client lists models in a loop, then "a 64x64 maze" in the same picture (decoded and answered): each
answer's status and latency, the server's CPU and its resident memory before and at its peak (VmHWM), and the other
client's latencies meanwhile.

Section ``protocol``: one request per protocol class, to a model server: NaN and Infinity in a body, an image past
PIL's own cap (200 Mpx declared), a Responses error (named ``input[0]...``), ``temperature`` nested 980 deep,
repeated ``Host`` and ``Origin`` headers, a streamed chat completion read by the ``openai`` client, and
``serve-model`` started with a key that ends in a newline: the statuses, and whether every answer body was strict
JSON (no NaN) and every client error a 4xx.

Section ``refusals``: forged ``Host``, cross-site ``Origin``, ``text/plain`` and form bodies, a body over the limit,
and per server a decompression-bomb image, a malformed listed maze, extrinsics of 1e308, an unreadable maze file
and a maze linked outside the mazes directory: the statuses each server answered.

Exits non-zero when a connection stayed open past ``--patience``, any client input got a 5xx, a prompt cost the
model server a second of CPU or more, or a hostile request was not refused as it should be.

Run: python3 benchmarks/server_probe.py [--sections deadlines prompts pictures protocol renders refusals]
[--header-timeout 10] [--body-timeout 30] [--patience 60] [--renders 8] [--pixel-budget N]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import openai
import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from _servers import (  # noqa: E402
    CHAT,
    HOSTILE_PROMPTS,
    RENDER,
    CliServer,
    bomb_png,
    declared_png,
    make_mazes,
    make_scenes,
    memory_kib,
    padded_maze_prompt,
    pictured_maze_request,
    png_url,
)
from PIL import Image  # noqa: E402

from maze_envs.evaluators.bench.sandbox import sandbox_app  # noqa: E402
from maze_envs.llm import ModelServer, OraclePolicy  # noqa: E402
from maze_envs.serving.app import BODY_TIMEOUT, HEADER_TIMEOUT, LoopbackServer  # noqa: E402
from maze_envs.serving.render import make_server  # noqa: E402


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
    return (f"POST {target.route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Content-Length: 1000\r\n\r\n0123456789").encode()


def stalled_headers(target: Target) -> bytes:
    """Return a request line and half a header."""
    return f"POST {target.route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty".encode()


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
    absurd = f"POST {target.route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999999999999\r\n\r\n{{}}"
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


def deadlines(args: argparse.Namespace, tmp: Path) -> tuple[list[str], bool]:
    """Run the deadline scenarios on the model and render servers at once; return the lines and whether all held."""
    timeouts = {"header_timeout": args.header_timeout, "body_timeout": args.body_timeout}
    lines = [f"deadlines: headers {args.header_timeout:g} s, body {args.body_timeout:g} s"]
    with ModelServer(OraclePolicy(), keep_requests=False, **timeouts) as model:
        render = make_server(make_scenes(tmp / "deadline-scenes"), port=0, backend="cpu", **timeouts)
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
        lines += results[name][0]
        ok &= results[name][1]
    return lines, ok


def cpu_seconds(pid: int) -> float:
    """Return the CPU time (user + system) process ``pid`` has used so far, from ``/proc/PID/stat``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def big_prompts(tmp: Path) -> tuple[list[str], bool]:
    """Send each 1 MiB hostile prompt (and a 250x250 maze after 0.75 MiB of filler) to ``serve-model`` in its own
    process while a second client lists models in a loop; return the lines (the server's CPU per prompt, the
    prompt's latency, the other client's latencies meanwhile and when quiet) and whether each prompt cost the
    server under a second of CPU and no answer was a 5xx."""
    lines, ok = [], True
    with CliServer(["serve-model", "--port", "0"], tmp / "model.log") as server:
        models = server.url + "/v1/models"
        with requests.Session() as quiet:
            calm = [_timed(lambda: quiet.get(models, timeout=60))[1] for _ in range(50)]
        lines.append(f"model  /v1/models alone: median {statistics.median(calm) * 1e3:.1f} ms, "
                     f"max {max(calm) * 1e3:.1f} ms over {len(calm)}")
        client = openai.OpenAI(base_url=server.url + "/v1", api_key="unused", max_retries=0, timeout=600)
        for name, prompt in [*HOSTILE_PROMPTS.items(), ("a 250x250 maze after filler", padded_maze_prompt())]:
            beside: list[float] = []
            done = threading.Event()

            def list_models(times: list[float] = beside, stop: threading.Event = done) -> None:
                with requests.Session() as session:
                    while not stop.is_set():
                        times.append(_timed(lambda: session.get(models, timeout=600))[1])

            other = threading.Thread(target=list_models)
            cpu_before = cpu_seconds(server.pid)
            other.start()
            reply, seconds = _timed(lambda prompt=prompt: client.chat.completions.with_raw_response.create(
                model="m", messages=[{"role": "user", "content": prompt}]))
            done.set()
            other.join()
            cpu = cpu_seconds(server.pid) - cpu_before  # includes serving the other client's requests
            ok &= cpu < 1.0 and reply.status_code < 500
            lines.append(f"model  1 MiB prompt, {name}: HTTP {reply.status_code} in {seconds:.3f} s, server CPU "
                         f"{cpu:.2f} s; /v1/models meanwhile: {len(beside)} answers, median "
                         f"{statistics.median(beside) * 1e3:.1f} ms, max {max(beside) * 1e3:.1f} ms")
    return lines, ok


def _timed(call):
    began = time.perf_counter()
    result = call()
    return result, time.perf_counter() - began


def concurrent_renders(tmp: Path, count: int, pixel_budget: int | None) -> tuple[list[str], bool]:
    """Send ``count`` concurrent 4096x4096 depth renders to ``serve-render`` in its own process (default pixel
    budget, or ``pixel_budget``); return the lines (statuses, the server's resident memory before and its peak)
    and whether every answer was a 200 or a 503 with Retry-After."""
    args = ["serve-render", "--scenes-root", str(make_scenes(tmp / "render-scenes")), "--port", "0",
            "--backend", "cpu"]
    if pixel_budget is not None:
        args += ["--pixel-budget", str(pixel_budget)]
    big = {**RENDER, "cam_intrinsics": "1 PINHOLE 4096 4096 2000 2000 2048 2048", "return_depth_img": True,
           "return_depth_npz": True}
    with CliServer(args, tmp / "render.log") as server:
        requests.post(server.url + "/render_gs", json=RENDER, timeout=600)  # warm-up: compiles the renderer
        before = memory_kib(server.pid, "VmRSS")
        began = time.perf_counter()
        with ThreadPoolExecutor(count) as pool:
            answers = list(pool.map(lambda _: requests.post(server.url + "/render_gs", json=big, timeout=600),
                                    range(count)))
        seconds = time.perf_counter() - began
        peak = memory_kib(server.pid, "VmHWM")
    statuses = Counter(answer.status_code for answer in answers)
    ok = set(statuses) <= {200, 503} and all(a.headers.get("retry-after") for a in answers if a.status_code == 503)
    budget = "default pixel budget" if pixel_budget is None else f"pixel budget {pixel_budget}"
    return [f"render {count} concurrent 4096x4096 depth renders ({budget}): statuses {dict(sorted(statuses.items()))} "
            f"in {seconds:.1f} s; server RSS {before / 1024:.0f} MiB before, peak {peak / 1024:.0f} MiB"], ok


def refusals(tmp: Path) -> tuple[list[str], bool]:
    """Send every refused kind of request (forged Host, cross-site Origin, non-JSON bodies, an oversize body, a
    decompression bomb, absurd camera numbers, unreadable or linked maze files) to the three servers; return the
    lines (refusals by status, per server) and whether each got the 4xx it should."""
    mazes = make_mazes(tmp / "mazes")
    (mazes / "maze_3x3_1.json").write_bytes(b"\xff not a maze")
    outside = make_mazes(tmp / "outside")
    (mazes / "maze_3x3_2.json").symlink_to(outside / "maze_3x3_0.json")
    bomb = "data:image/png;base64," + base64.b64encode(bomb_png()).decode("ascii")
    common = [("forged Host", "GET", None, {"headers": {"Host": "evil.example"}}, 400),
              ("cross-site Origin", "POST", None, {"headers": {"Origin": "http://evil.example"}}, 403),
              ("text/plain body", "POST", None, {"data": "{}", "headers": {"Content-Type": "text/plain"}}, 415),
              ("form body", "POST", None, {"data": {"a": "1"}}, 415)]
    specific = {
        "model": [("decompression bomb", "POST", "/v1/chat/completions", {"json": {"model": "m", "messages": [
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": bomb}}]}]}}, 400),
            ("malformed listed maze", "POST", "/v1/chat/completions", {"json": {**CHAT, "messages": [
                {"role": "user", "content": "迷宫为[[1],[1,2]]，起点[0, 0]，终点[0, 0]"}]}}, 400)],
        "render": [("extrinsics 1e308", "POST", "/render_gs",
                    {"json": {**RENDER, "cam_extrinsics": "1 1e308 0 0 0 0 0 0 1 x"}}, 400)],
        "sandbox": [("unreadable maze file", "POST", "/load", {"json": {"maze_name": "maze_3x3_1"}}, 400),
                    ("maze linked outside", "POST", "/load", {"json": {"maze_name": "maze_3x3_2"}}, 404)],
    }
    lines, ok = [], True
    model = ModelServer(OraclePolicy(), keep_requests=False)
    render = make_server(make_scenes(tmp / "refusal-scenes"), port=0, backend="cpu")
    sandbox = LoopbackServer(sandbox_app(mazes))
    for server in (model, render, sandbox):
        server.start()
    try:
        for name, url, post, limit in [("model", model.base_url.removesuffix("/v1"), "/v1/chat/completions",
                                        model.max_body),
                                       ("render", render.url, "/render_gs", 1 << 20),
                                       ("sandbox", sandbox.url, "/load", 1 << 16)]:
            cases = [(label, method, route or post, kwargs, want) for label, method, route, kwargs, want in common]
            seen, wrong = Counter(), []
            for label, method, route, kwargs, want in cases + specific[name]:
                status = requests.request(method, url + route, timeout=600, **kwargs).status_code
                seen[status] += 1
                if status != want:
                    wrong.append(f"{label}: {status} (want {want})")
            status = _oversize_status(int(url.rsplit(":", 1)[1]), post, limit)
            seen[status] += 1
            if status != 413:
                wrong.append(f"oversize body: {status} (want 413)")
            ok &= not wrong
            lines.append(f"{name:7} refused {sum(seen.values())} hostile requests: by status "
                         f"{dict(sorted(seen.items()))}" + (f"; WRONG: {', '.join(wrong)}" if wrong else ""))
    finally:
        for server in (model, render, sandbox):
            server.stop()
    return lines, ok


def _oversize_status(port: int, route: str, limit: int) -> int:
    """Return the status answered to a POST announcing a body of ``limit + 1`` bytes, before any is sent."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(f"POST {route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {limit + 1}\r\n\r\n".encode())
        return _status(sock.recv(65536))


def pictures(tmp: Path) -> tuple[list[str], bool]:
    """Send the 4096-px pictured-maze request to ``serve-model`` in its own process, alone and two at once beside a
    client listing models, then a small maze in the same picture; return the lines (statuses, latencies, the
    server's CPU and memory, the other client's latencies) and whether the big ones were refused with a 4xx at under
    a second of server CPU each, the small one answered, and the server grew by under 256 MiB."""
    white = png_url(Image.new("RGB", (4096, 4096), "white"))
    big = pictured_maze_request("Solve a 4096x4096 maze.", white)
    small = pictured_maze_request("Solve this 64x64 maze.", white)
    size_kb = len(json.dumps(big)) / 1000
    lines, ok = [], True
    with CliServer(["serve-model", "--port", "0"], tmp / "pictures.log") as server:
        url, models = server.url + "/v1/responses", server.url + "/v1/models"
        requests.get(models, timeout=60)
        before, cpu_before = memory_kib(server.pid, "VmRSS"), cpu_seconds(server.pid)
        answer, seconds = _timed(lambda: requests.post(url, json=big, timeout=600))
        cpu = cpu_seconds(server.pid) - cpu_before
        ok &= 400 <= answer.status_code < 500 and cpu < 1.0
        lines.append(f"model  {size_kb:.0f} KB request, a 4096x4096 maze in a white 4096x4096 PNG: HTTP "
                     f"{answer.status_code} in {seconds:.3f} s, server CPU {cpu:.2f} s "
                     f"({answer.json()['error']['message'][:70]}...)")
        beside: list[float] = []
        done = threading.Event()

        def list_models() -> None:
            with requests.Session() as session:
                while not done.is_set():
                    beside.append(_timed(lambda: session.get(models, timeout=600))[1])

        other = threading.Thread(target=list_models)
        other.start()
        cpu_before = cpu_seconds(server.pid)
        with ThreadPoolExecutor(2) as pool:
            pair = list(pool.map(lambda _: _timed(lambda: requests.post(url, json=big, timeout=600)), range(2)))
        done.set()
        other.join()
        cpu = cpu_seconds(server.pid) - cpu_before
        ok &= all(400 <= a.status_code < 500 for a, _ in pair)
        lines.append(f"model  two at once: HTTP {[a.status_code for a, _ in pair]} in "
                     f"{max(t for _, t in pair):.3f} s, server CPU {cpu:.2f} s; /v1/models meanwhile: "
                     f"{len(beside)} answers, median {statistics.median(beside) * 1e3:.1f} ms, "
                     f"max {max(beside) * 1e3:.1f} ms")
        answer, seconds = _timed(lambda: requests.post(url, json=small, timeout=600))
        ok &= answer.status_code == 200
        peak = memory_kib(server.pid, "VmHWM")
        ok &= peak - before < 256 * 1024
        lines.append(f"model  a 64x64 maze in the same picture (decoded): HTTP {answer.status_code} in "
                     f"{seconds:.3f} s; server RSS {before / 1024:.0f} MiB before the first, peak "
                     f"{peak / 1024:.0f} MiB after all four")
    return lines, ok


def _strict(text: str) -> bool:
    """Return whether ``text`` is strict JSON (no NaN or Infinity)."""
    def refuse(name: str) -> None:
        raise ValueError(name)
    try:
        json.loads(text, parse_constant=refuse)
    except ValueError:
        return False
    return True


def protocol(tmp: Path) -> tuple[list[str], bool]:
    """Send one request per protocol class to a model server; return the lines (the status of each) and whether
    each client error got a 4xx with a strict JSON body and the stream was read by the openai client."""
    bomb = "data:image/png;base64," + base64.b64encode(declared_png(20000, 10000)).decode("ascii")
    chat = json.dumps(CHAT)[:-1]
    raw = {"NaN temperature": chat + ', "temperature": NaN}',
           "Infinity top_p": chat + ', "top_p": Infinity}',
           "temperature nested 980 deep": chat + ', "temperature": ' + "[" * 980 + "1" + "]" * 980 + "}"}
    lines, ok, seen = [], True, []
    with ModelServer(OraclePolicy(), keep_requests=False) as server:
        base = server.base_url
        for label, body in raw.items():
            for route in ("/chat/completions", "/responses"):
                doc = body if route == "/chat/completions" else body.replace('"messages"', '"input"', 1)
                answer = requests.post(base + route, data=doc, timeout=60,
                                       headers={"Content-Type": "application/json"})
                seen.append((f"{label} {route}", answer.status_code, _strict(answer.text)))
        for label, route, body, param in [
                ("image of 200 Mpx", "/responses", pictured_maze_request("a 3x3 maze", bomb), "input[0].content[1]"),
                ("Responses bad part", "/responses", {"model": "m", "input": [{"role": "user", "content": [
                    {"type": "input_text"}]}]}, "input[0].content[0].text")]:
            answer = requests.post(base + route, json=body, timeout=60)
            named = (answer.json().get("error") or {}).get("param") or ""
            seen.append((f"{label} (param {named})", answer.status_code,
                         _strict(answer.text) and named.startswith(param)))
        for label, headers in [("repeated Host", "Host: 127.0.0.1\r\nHost: evil.example\r\n"),
                               ("repeated Origin", "Host: 127.0.0.1\r\nOrigin: http://127.0.0.1\r\n"
                                                   "Origin: http://evil.example\r\n")]:
            body = json.dumps(CHAT).encode()
            with socket.create_connection(("127.0.0.1", server._http.port), timeout=60) as sock:
                sock.sendall(f"POST /v1/chat/completions HTTP/1.1\r\n{headers}Content-Type: application/json\r\n"
                             f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
                status = _status(sock.recv(65536))
            seen.append((label, status, True))
        client = openai.OpenAI(base_url=base, api_key="unused", max_retries=0, timeout=60)
        chunks = list(client.chat.completions.create(model="m", messages=CHAT["messages"], stream=True))
        streamed = bool(chunks) and chunks[-1].choices[0].finish_reason == "stop"
        ok &= streamed
        lines.append(f"model  stream: true read by the openai client: {len(chunks)} chunks, "
                     f"{'ends with finish_reason stop' if streamed else 'NOT a stream'}")
    key = subprocess.run([sys.executable, "-m", "maze_envs", "serve-model", "--port", "0", "--require-key-env",
                          "PROBE_KEY"], env={**os.environ, "PYTHONPATH": str(ROOT), "PROBE_KEY": "secret\n"},
                         capture_output=True, text=True, timeout=120)
    ok &= key.returncode == 2 and key.stderr.count("\n") == 1
    lines.append(f"model  serve-model with a key ending in a newline: exit {key.returncode}, "
                 f"{key.stderr.strip()[:90]}...")
    for label, status, fine in seen:
        ok &= 400 <= status < 500 and fine
        lines.append(f"model  {label}: HTTP {status}{'' if fine else ' NOT STRICT JSON or misnamed'}")
    lines.append(f"model  protocol classes: {len(seen) + 2} probes, {sum(400 <= s < 500 for _, s, _ in seen)} "
                 f"client errors answered 4xx, {sum(f for _, _, f in seen)} with strict JSON")
    return lines, ok


SECTIONS = ("deadlines", "prompts", "pictures", "protocol", "renders", "refusals")


def main() -> None:
    """Run the chosen sections of the probe and print their figures; exit 1 when any went wrong."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--header-timeout", type=float, default=HEADER_TIMEOUT, help="header deadline, seconds")
    parser.add_argument("--body-timeout", type=float, default=BODY_TIMEOUT, help="body deadline, seconds")
    parser.add_argument("--patience", type=float, default=60.0, help="seconds before a connection counts as held")
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS),
                        help="what to probe (default all)")
    parser.add_argument("--renders", type=int, default=8, help="concurrent 4096x4096 depth renders (default 8)")
    parser.add_argument("--pixel-budget", type=int, default=None,
                        help="the render server's --pixel-budget (default: its own default)")
    args = parser.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        runs = {"deadlines": lambda: deadlines(args, Path(tmp)), "prompts": lambda: big_prompts(Path(tmp)),
                "pictures": lambda: pictures(Path(tmp)), "protocol": lambda: protocol(Path(tmp)),
                "renders": lambda: concurrent_renders(Path(tmp), args.renders, args.pixel_budget),
                "refusals": lambda: refusals(Path(tmp))}
        for section in args.sections:
            lines, fine = runs[section]()
            print("\n".join(lines), flush=True)
            ok &= fine
    print("all held: connections closed, no 5xx for client input, every hostile request refused"
          if ok else "FAILED: see the lines above")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
