"""What one request may cost the servers: a megabyte prompt is read in bounded, linear time and does not hold up
another client; renders in flight share a pixel budget (503 with Retry-After beyond it), so concurrent 4096x4096
depth renders keep the render server's memory bounded; an image whose header declares too many pixels is
refused before a pixel is decoded.

No test here reads a clock against a threshold, not even the process's CPU time (a busy machine's cache misses
grow that too): a prompt's cost is bounded by what the oracle reads of it, at most its last ``ORACLE_MAX_CHARS``
characters, and checked by that; the "stays fast" check is an ordering, and memory is the server process's peak
RSS from /proc. ``benchmarks/server_probe.py --sections prompts`` measures the CPU each hostile prompt costs."""

from __future__ import annotations

import base64
import io
import struct
import threading
import time
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import openai
import pytest
import requests
from _servers import HOSTILE_PROMPTS, RENDER, CliServer, bomb_png, make_scenes, memory_kib, padded_maze_prompt
from PIL import Image

from maze_envs.core.errors import MazeFormatError
from maze_envs.core.images import MAX_DECODED_PIXELS, decode_image, image_size
from maze_envs.llm import ModelServer, OraclePolicy, policies
from maze_envs.llm.policies import ORACLE_MAX_CHARS
from maze_envs.llm.server import ChatRequest
from maze_envs.nav.camera import pose_matrix
from maze_envs.nav.client import GaussianRenderer
from maze_envs.nav.errors import RenderFailureError
from maze_envs.serving.budget import InFlightBudget
from maze_envs.serving.errors import HTTPError

pytestmark = pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")  # PIL's own, expected here


@pytest.fixture(scope="module")
def model_server():
    with ModelServer(OraclePolicy(), keep_requests=False) as server:
        yield server


@pytest.fixture
def read_lengths(monkeypatch) -> list[int]:
    """The length of every text the oracle reads a maze from, while the test runs."""
    lengths: list[int] = []
    bounded = policies.last_lines

    def recorded(text: str, limit: int) -> str:
        read = bounded(text, limit)
        lengths.append(len(read))
        return read

    monkeypatch.setattr(policies, "last_lines", recorded)
    return lengths


def _answer(server: ModelServer, prompt: str) -> str:
    client = openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=0, timeout=600)
    reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": prompt}])
    return reply.choices[0].message.content


@pytest.mark.parametrize("name", list(HOSTILE_PROMPTS))
def test_a_megabyte_prompt_is_answered_from_its_bounded_tail(model_server, read_lengths, name):
    prompt = HOSTILE_PROMPTS[name]
    answer = _answer(model_server, prompt)
    assert answer and read_lengths and max(read_lengths) <= ORACLE_MAX_CHARS < len(prompt)
    assert _answer(model_server, policies.last_lines(prompt, ORACLE_MAX_CHARS)) == answer


def test_a_maze_at_the_end_of_a_megabyte_prompt_is_solved(model_server, read_lengths):
    answer = _answer(model_server, padded_maze_prompt())
    assert max(read_lengths) <= ORACLE_MAX_CHARS
    assert answer.startswith("(1,1),")


class RecordingOracle:
    """The oracle, noting when it began and ended work on the one big request."""

    def __init__(self):
        self.oracle = OraclePolicy()
        self.began = threading.Event()
        self.ended_at: float | None = None

    def __call__(self, request: ChatRequest):
        self.began.set()
        reply = self.oracle(request)
        self.ended_at = time.monotonic()
        return reply


def test_a_big_prompt_does_not_hold_up_another_client():
    policy = RecordingOracle()
    prompt = padded_maze_prompt()
    with ModelServer(policy, keep_requests=False) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=0, timeout=600)
        big = threading.Thread(target=lambda: client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": prompt}]))
        big.start()
        assert policy.began.wait(600)
        listing = requests.get(server.base_url + "/models", timeout=600)
        answered_at = time.monotonic()
        big.join()
    assert listing.status_code == 200
    assert policy.ended_at is not None and answered_at < policy.ended_at


def test_concurrent_big_depth_renders_stay_within_the_pixel_budget(tmp_path):
    scenes = make_scenes(tmp_path / "scenes")
    budget = 4096 * 4096  # one 4096x4096 render in flight: it peaks at about 640 MB with its depth encodings
    cap_kib = 1 << 20  # so the server may grow by 1 GiB at most (eight at once took it from 344 MB to 4.8 GB)
    big = {**RENDER, "cam_intrinsics": "1 PINHOLE 4096 4096 2000 2000 2048 2048", "return_depth_img": True,
           "return_depth_npz": True}
    args = ["serve-render", "--scenes-root", str(scenes), "--port", "0", "--backend", "cpu",
            "--pixel-budget", str(budget)]
    with CliServer(args, tmp_path / "render.log") as server:
        assert requests.post(server.url + "/render_gs", json=RENDER, timeout=600).status_code == 200  # compiles
        before = memory_kib(server.pid, "VmHWM")
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda _: requests.post(server.url + "/render_gs", json=big, timeout=600),
                                    range(8)))
        grown = memory_kib(server.pid, "VmHWM") - before
    statuses = Counter(answer.status_code for answer in answers)
    assert set(statuses) <= {200, 503} and statuses[200] >= 1 and statuses[503] >= 1, statuses
    for answer in answers:
        if answer.status_code == 503:
            assert answer.headers["retry-after"] == "1" and "in flight" in answer.json()["error"]
    assert grown < cap_kib, f"the server grew by {grown / 1024:.0f} MiB"


def test_the_pixel_budget_refuses_what_does_not_fit_and_frees_what_ends():
    budget = InFlightBudget(16, "pixels")
    with budget.hold(10):
        with pytest.raises(HTTPError) as busy:
            with budget.hold(7):
                pass
        assert busy.value.status == 503 and busy.value.headers == {"Retry-After": "1"}
        with budget.hold(6):
            assert budget.in_use == 16
    with pytest.raises(HTTPError) as never:
        with budget.hold(17):
            pass
    assert never.value.status == 400 and "more than this server's budget of 16 pixels" in never.value.message
    with budget.hold(16):
        pass
    assert budget.in_use == 0 and budget.refused == 2


def png_header_only(width: int, height: int) -> bytes:
    """Return a PNG with an IHDR declaring ``width`` x ``height`` and no image data at all."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + \
        chunk(b"IEND", b"")


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return bomb_png()


def test_an_image_over_the_pixel_cap_is_refused_from_its_header(bomb):
    assert len(bomb) < 100_000 and image_size(bomb) == (12000, 12000)
    with pytest.raises(MazeFormatError, match="12000x12000 = 144000000 pixels, over the limit of 16777216"):
        decode_image(bomb)
    # no pixel data at all: had decoding been tried first, this would fail as damaged, not as too big
    with pytest.raises(MazeFormatError, match="over the limit"):
        decode_image(png_header_only(5000, 5000))
    with pytest.raises(MazeFormatError, match="damaged"):
        decode_image(png_header_only(100, 100))
    with pytest.raises(MazeFormatError, match="not a readable image"):
        decode_image(b"not an image")
    with pytest.raises(MazeFormatError, match="damaged"):  # exactly at the cap: allowed, so decoding is tried
        decode_image(png_header_only(4096, MAX_DECODED_PIXELS // 4096))
    assert decode_image(_tiny_png()).size == (2, 3) and decode_image(_tiny_png()).mode == "RGB"


def _tiny_png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (2, 3), (0, 255, 0)).save(buffer, format="PNG")
    return buffer.getvalue()


def test_the_model_server_refuses_a_decompression_bomb_in_a_chat_image(model_server, bomb):
    client = openai.OpenAI(base_url=model_server.base_url, api_key="unused", max_retries=0, timeout=600)
    url = "data:image/png;base64," + base64.b64encode(bomb).decode("ascii")
    content = [{"type": "text", "text": "The maze is 12x12 cells."}, {"type": "image_url", "image_url": {"url": url}}]
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": content}])
    error = refused.value.body
    assert error["param"] == "messages[0].content[1].image_url.url" and "over the limit" in error["message"]
    # called in-process (no server validation in front), the oracle does not decode it either
    reply = OraclePolicy()(ChatRequest("m", [{"role": "user", "content": content}]))
    assert "cannot find" in reply.text


class _BombAnswers(BaseHTTPRequestHandler):
    bomb = b""

    def do_POST(self):  # noqa: N802 (the http.server name)
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(self.bomb)))
        self.end_headers()
        self.wfile.write(self.bomb)

    def log_message(self, *args):
        pass


def test_the_render_client_refuses_a_bomb_from_a_hostile_server(bomb):
    handler = type("Handler", (_BombAnswers,), {"bomb": bomb})
    hostile = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=hostile.serve_forever, daemon=True).start()
    try:
        renderer = GaussianRenderer(f"http://127.0.0.1:{hostile.server_address[1]}/render_gs", num_views=1)
        with pytest.raises(RenderFailureError, match="front view of 'maze_000' is not an image: .*over the limit"):
            renderer.render_at_pose(pose_matrix(0, 0, 0.65), "maze_000")
    finally:
        hostile.shutdown()
        hostile.server_close()
