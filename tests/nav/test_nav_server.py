"""The render server on a real loopback port, driven by the real clients (requests)."""

import io
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import numpy as np
import pytest
import requests
from PIL import Image

from maze_envs.core.errors import MazeConfigError
from maze_envs.datasets import generate_nav_scenes
from maze_envs.nav import client as client_module
from maze_envs.nav.backends import cuda_available
from maze_envs.nav.camera import CameraConfig, colmap_extrinsics, pose_matrix
from maze_envs.nav.client import GaussianRenderer, LocalGaussianRenderer
from maze_envs.nav.errors import NavDependencyError, RenderFailureError
from maze_envs.nav.procedural import SceneParams
from maze_envs.nav.scene import GaussianScene
from maze_envs.nav.service import depth_to_jet
from maze_envs.serving.render import make_server, serve_in_thread


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("scenes")
    generate_nav_scenes(root, 1, 3, 3, seed=4, params=SceneParams(surfel_spacing=0.25, num_landmarks=1,
                                                                   num_trajectories=1))
    (root / "not_a_scene").mkdir()
    return root


@pytest.fixture(scope="module")
def server(root):
    srv = make_server(root, "127.0.0.1", 0, backend="cpu")
    serve_in_thread(srv)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def start_pose(root):
    task = GaussianScene(root).get_episode(0).tasks[0]
    return GaussianScene.get_gaussian_pose(task.start_pose), GaussianScene.get_gaussian_pose(task.end_pose)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ping_and_scenes(server):
    assert requests.get(server.url + "/ping", timeout=10).json() == {"status": "ok", "backend": "SplatRenderer"}
    assert requests.get(server.url + "/scenes", timeout=10).json() == {"scenes": ["maze_000"]}
    assert requests.get(server.url + "/nope", timeout=10).status_code == 404
    assert server.host == "127.0.0.1" and server.url == f"http://127.0.0.1:{server.port}"


def test_client_renders_three_views(server, start_pose, tmp_path):
    renderer = GaussianRenderer(server.url + "/render_gs", timeout=60)
    images = renderer.render_at_pose(start_pose[0], "maze_000", save_dir=tmp_path, image_id=7)
    assert [im.size for im in images] == [(720, 640)] * 3 and all(im.mode == "RGB" for im in images)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["7_front.jpg", "7_left.jpg", "7_right.jpg"]
    left, right, front = (np.asarray(im, float) for im in images)
    assert np.abs(left - right).mean() > 5 and np.abs(front - left).mean() > 5
    assert front.std() > 10  # an informative view, not a flat colour
    only = tmp_path / "only"
    renderer.render_at_pose(start_pose[0], "maze_000", save_dir=only, image_id=0, save_img_idx=[2])
    assert [p.name for p in only.iterdir()] == ["0_front.jpg"]


def test_http_and_in_process_answers_agree(server, root, start_pose):
    remote = GaussianRenderer(server.url + "/render_gs", num_views=1, timeout=60)
    local = LocalGaussianRenderer(root, num_views=1)
    a = np.asarray(remote.render_at_pose(start_pose[0], "maze_000")[0])
    b = np.asarray(local.render_at_pose(start_pose[0], "maze_000")[0])
    assert np.array_equal(a, b)


def test_depth_round_trip(server, root, start_pose):
    rgb, depth, jet = GaussianRenderer(server.url + "/render_gs", timeout=60).render_depth(start_pose[1], "maze_000")
    assert rgb.size == (720, 640) and jet.size == (720, 640)
    assert depth.shape == (640, 720) and depth.dtype == np.float32
    # the end pose faces its landmark 0.8 m away; the landmark is 0.6 m wide, so its face is 0.5 m away
    assert np.median(depth[300:340, 340:380]) == pytest.approx(0.5, abs=0.05)
    _, local_depth, _ = LocalGaussianRenderer(root).render_depth(start_pose[1], "maze_000")
    assert np.array_equal(depth, local_depth)
    expected = depth_to_jet(depth).astype(float)  # JET of depth / max depth, as the server colours it
    assert np.abs(np.asarray(jet, float) - expected).mean() < 6
    near, far = depth_to_jet(np.array([[0.5, 4.0]], np.float32))[0]
    assert near[2] > 200 and near[0] == 0 and far[0] == 128 and far[2] == 0  # near blue, far dark red


def test_render_scale_supersamples_to_the_requested_size(server, start_pose):
    body = {"cam_intrinsics": CameraConfig().intrinsics_colmap, "cam_extrinsics": colmap_extrinsics(start_pose[0]),
            "scene_id": "maze_000"}
    one = requests.post(server.url + "/render_gs", json=body, timeout=60)
    two = requests.post(server.url + "/render_gs", json={**body, "render_scale": 1.5}, timeout=60)
    assert one.headers["Content-Type"] == "image/jpeg"
    a, b = (np.asarray(Image.open(io.BytesIO(r.content)), float) for r in (one, two))
    assert a.shape == b.shape == (640, 720, 3)
    assert 0 < np.abs(a - b).mean() < 12


GOOD = {"cam_intrinsics": "1 PINHOLE 64 48 30 30 32 24", "cam_extrinsics": colmap_extrinsics(pose_matrix(1, 1, 0.65)),
        "scene_id": "maze_000"}


@pytest.mark.parametrize("change, message", [
    ({"scene_id": None}, "scene_id"),
    ({"scene_id": "missing"}, "unknown scene"),
    ({"scene_id": "not_a_scene"}, "unknown scene"),
    ({"scene_id": "../maze_000"}, "plain scene name"),
    ({"scene_id": ".."}, "plain scene name"),
    ({"scene_id": "/etc"}, "plain scene name"),
    ({"cam_intrinsics": "1 SIMPLE_RADIAL 64 48 30 30 32"}, "cam_intrinsics"),
    ({"cam_intrinsics": "1 PINHOLE 100000 100000 30 30 32 24"}, "image size"),
    ({"cam_intrinsics": "1 PINHOLE 64 48 -30 30 32 24"}, "focal"),
    ({"cam_extrinsics": "1 1 0 0"}, "cam_extrinsics"),
    ({"cam_extrinsics": "1 0 0 0 0 1 2 3 1 x"}, "quaternion"),
    ({"cam_extrinsics": "1 1 0 0 0 nan 2 3 1 x"}, "finite"),
    ({"render_scale": 50}, "render_scale"),
    ({"cam_intrinsics": "1 PINHOLE 4096 4096 30 30 32 24", "render_scale": 2}, "exceeds"),
])
def test_bad_requests_get_400(server, change, message):
    body = {**GOOD, **change}
    if change.get("scene_id", "") is None:
        del body["scene_id"]
    r = requests.post(server.url + "/render_gs", json=body, timeout=30)
    assert r.status_code == 400 and message in r.json()["error"]


def test_malformed_bodies_get_400(server):
    url = server.url + "/render_gs"
    assert requests.post(url, data=b"{oops", timeout=30).status_code == 400
    assert "JSON object" in requests.post(url, json=[1, 2], timeout=30).json()["error"]
    assert requests.post(url, data=b"", timeout=30).status_code == 400
    assert requests.post(server.url + "/other", json=GOOD, timeout=30).status_code == 404
    assert requests.post(url, json=GOOD, timeout=30).status_code == 200  # still serving


@pytest.fixture
def sleeps(monkeypatch):
    """Record the client's back-off sleeps instead of sleeping (no wall-clock assertions)."""
    slept: list[float] = []
    monkeypatch.setattr(client_module, "time", SimpleNamespace(sleep=slept.append))
    return slept


def test_client_retries_then_fails_on_a_stopped_server(sleeps):
    url = f"http://127.0.0.1:{free_port()}/render_gs"
    renderer = GaussianRenderer(url, num_views=1, max_retries=3, timeout=2)
    with pytest.raises(RenderFailureError, match="after 4 attempts") as info:
        renderer.render_at_pose(pose_matrix(0, 0, 0.65), "maze_000")
    assert sleeps == [1.0, 2.0, 4.0]  # exponential back-off between the four attempts
    assert url in str(info.value)


def test_client_does_not_retry_a_rejected_request(server, sleeps):
    renderer = GaussianRenderer(server.url + "/render_gs", num_views=1, max_retries=3)
    with pytest.raises(RenderFailureError, match="unknown scene"):
        renderer.render_at_pose(pose_matrix(0, 0, 0.65), "nowhere")
    assert sleeps == []


def test_in_process_renderer_reports_bad_requests(root):
    with pytest.raises(RenderFailureError, match="unknown scene"):
        LocalGaussianRenderer(root, num_views=1).render_at_pose(pose_matrix(0, 0, 0.65), "nowhere")


def test_backends(root):
    with pytest.raises(NavDependencyError, match=r"maze-envs\[gpu\]"):
        make_server(root, port=0, backend="gsplat")
    auto = make_server(root, port=0, backend="auto")
    try:
        assert auto.service.backend == ("GsplatRenderer" if cuda_available() else "SplatRenderer")
    finally:
        auto.stop()


def test_bad_server_settings_raise_one_line_errors_naming_them(root):
    with pytest.raises(MazeConfigError, match="^port: must be an integer from 0 to 65535"):
        make_server(root, port=70000, backend="cpu")
    with pytest.raises(MazeConfigError, match="render_scale"):
        make_server(root, port=0, backend="cpu", render_scale=0.0)
    with pytest.raises(MazeConfigError, match="sh_degree"):
        make_server(root, port=0, backend="cpu", sh_degree=4)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(MazeConfigError, match=f"cannot listen on 127.0.0.1:{port}"):
            make_server(root, port=port, backend="cpu")


def test_cli_serves_until_stopped(root):
    proc = subprocess.Popen([sys.executable, "-m", "maze_envs", "serve-render", "--scenes-root", str(root),
                             "--port", "0", "--backend", "cpu"], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = line.strip().rsplit(" ", 1)[-1]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/render_gs")
        assert requests.get(url.replace("/render_gs", "/ping"), timeout=10).json()["status"] == "ok"
        assert requests.post(url, json=GOOD, timeout=60).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    bad = subprocess.run([sys.executable, "-m", "maze_envs", "serve-render", "--scenes-root", str(root / "nope"),
                          "--port", "0"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "nope" in bad.stderr and "Traceback" not in bad.stderr
    bad = subprocess.run([sys.executable, "-m", "maze_envs", "serve-render", "--scenes-root", str(root),
                          "--port", "0", "--sh-degree", "4"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--sh-degree" in bad.stderr and "Traceback" not in bad.stderr


def test_the_server_renders_sh_colours_unless_told_degree_zero(root, start_pose, tmp_path):
    from maze_envs.nav.ply import GaussianCloud, write_ply
    from maze_envs.nav.service import load_scene_cloud

    flat = load_scene_cloud(root / "maze_000")
    rest = np.random.default_rng(0).normal(0.0, 0.4, (len(flat), 15, 3))
    write_ply(GaussianCloud(flat.means, flat.scales, flat.quats, flat.opacities, flat.sh_dc, rest),
              tmp_path / "maze_sh" / "gs" / "0" / "scene.ply")
    fronts = {}
    for name, scenes, degree in (("flat", root, None), ("sh", tmp_path, None), ("sh0", tmp_path, 0)):
        srv = make_server(scenes, "127.0.0.1", 0, backend="cpu", sh_degree=degree)
        serve_in_thread(srv)
        try:
            renderer = GaussianRenderer(srv.url + "/render_gs", num_views=1, timeout=60)
            scene_id = "maze_000" if scenes is root else "maze_sh"
            fronts[name] = np.asarray(renderer.render_at_pose(start_pose[0], scene_id)[0], float)
        finally:
            srv.stop()
    assert np.array_equal(fronts["sh0"], fronts["flat"])
    assert np.abs(fronts["sh"] - fronts["flat"]).mean() > 5


class _WrongAnswers(BaseHTTPRequestHandler):
    """A server that answers every render with HTTP 200 but a body that is neither a JPEG nor the depth JSON."""

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b'{"image": "not base64 of a jpeg"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_client_names_a_malformed_answer():
    wrong = ThreadingHTTPServer(("127.0.0.1", 0), _WrongAnswers)
    threading.Thread(target=wrong.serve_forever, daemon=True).start()
    try:
        renderer = GaussianRenderer(f"http://127.0.0.1:{wrong.server_address[1]}/render_gs", num_views=1)
        with pytest.raises(RenderFailureError, match="front view of 'maze_000' is not an image"):
            renderer.render_at_pose(pose_matrix(0, 0, 0.65), "maze_000")
        with pytest.raises(RenderFailureError, match="depth answer for 'maze_000' is malformed"):
            renderer.render_depth(pose_matrix(0, 0, 0.65), "maze_000")
    finally:
        wrong.shutdown()
        wrong.server_close()
