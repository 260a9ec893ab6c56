"""The CPU splat renderer against an independent slow reference, analytic cases and the camera convention."""

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from maze_envs.nav.camera import (
    CameraConfig,
    PinholeView,
    colmap_extrinsics,
    parse_extrinsics,
    pose_matrix,
    view_from_pose,
    world_to_camera,
)
from maze_envs.nav.ply import GaussianCloud
from maze_envs.nav.splat import SplatRenderer

pytest.importorskip("numba")


def reference_render(cloud: GaussianCloud, view: PinholeView, background=(0.0, 0.0, 0.0)) -> np.ndarray:
    """Slow, obviously correct EWA splatting: every Gaussian at every pixel, sorted by depth, no tiles or cut-offs."""
    splats = []
    for i in range(len(cloud)):
        p = view.R @ cloud.means[i].astype(float) + view.t
        x, y, z = p
        if z < 0.2:
            continue
        w, qx, qy, qz = cloud.quats[i].astype(float)
        rot = Rotation.from_quat([qx, qy, qz, w]).as_matrix()
        sigma = rot @ np.diag(cloud.scales[i].astype(float) ** 2) @ rot.T
        jac = np.array([[view.fx / z, 0, -view.fx * x / z ** 2], [0, view.fy / z, -view.fy * y / z ** 2]])
        cov2 = jac @ view.R @ sigma @ view.R.T @ jac.T + 0.3 * np.eye(2)
        centre = np.array([view.fx * x / z + view.cx, view.fy * y / z + view.cy])
        splats.append((z, centre, np.linalg.inv(cov2), float(cloud.opacities[i]), cloud.colours[i].astype(float)))
    splats.sort(key=lambda s: s[0])
    image = np.zeros((view.height, view.width, 3))
    for v in range(view.height):
        for u in range(view.width):
            pixel = np.array([u + 0.5, v + 0.5])
            trans, colour = 1.0, np.zeros(3)
            for _, centre, inv_cov, opacity, rgb in splats:
                d = pixel - centre
                alpha = min(0.99, opacity * np.exp(-0.5 * d @ inv_cov @ d))
                if alpha < 1 / 255:
                    continue
                if trans * (1 - alpha) < 1e-4:
                    break
                colour += trans * alpha * rgb
                trans *= 1 - alpha
            image[v, u] = colour + trans * np.asarray(background)
    return image


def small_view(pose: np.ndarray, width=40, height=32, f=30.0) -> PinholeView:
    return view_from_pose(pose, CameraConfig(width, height, f, f, width / 2, height / 2))


def random_cloud(seed: int, n: int) -> GaussianCloud:
    rng = np.random.default_rng(seed)
    means = np.column_stack([rng.uniform(2.0, 5.0, n), rng.uniform(-1.5, 1.5, n), rng.uniform(-0.6, 1.9, n)])
    quats = rng.normal(size=(n, 4))
    return GaussianCloud.from_colours(means, rng.uniform(0.03, 0.3, (n, 3)), quats, rng.uniform(0.2, 1.0, n),
                                      rng.uniform(0, 1, (n, 3)))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_reference_on_small_random_scenes(seed):
    cloud = random_cloud(seed, 30)
    view = small_view(pose_matrix(0, 0, 0.65, 0, 0.1 * seed, 0.2 * seed - 0.2))
    fast = SplatRenderer(cloud, background=(0.1, 0.2, 0.3)).render(view).rgb
    slow = reference_render(cloud, view, background=(0.1, 0.2, 0.3))
    err = np.abs(fast - slow)
    assert err.mean() < 3e-3
    assert err.max() < 0.04  # only gsplat's Jacobian clamp (the reference has none) differs


def test_matches_reference_on_opaque_overlapping_surfels():
    n = 25
    rng = np.random.default_rng(7)
    means = np.column_stack([np.full(n, 3.0) + 0.01 * np.arange(n), rng.uniform(-1, 1, n), rng.uniform(0, 1.3, n)])
    normal_x = Rotation.from_euler("y", 90, degrees=True).as_quat()
    quats = np.tile([normal_x[3], *normal_x[:3]], (n, 1))
    cloud = GaussianCloud.from_colours(means, np.tile([0.25, 0.25, 0.002], (n, 1)), quats, np.full(n, 0.95),
                                       rng.uniform(0, 1, (n, 3)))
    view = small_view(pose_matrix(0, 0, 0.65))
    err = np.abs(SplatRenderer(cloud).render(view).rgb - reference_render(cloud, view))
    assert err.mean() < 3e-3 and err.max() < 0.04


def one_gaussian(point, sigma=0.05, opacity=0.8, colour=(1.0, 0.5, 0.25)) -> GaussianCloud:
    return GaussianCloud.from_colours(np.array([point]), np.full((1, 3), sigma), np.array([[1.0, 0, 0, 0]]),
                                      np.array([opacity]), np.array([colour]))


def test_single_gaussian_lands_on_the_projected_pixel_with_the_ewa_footprint():
    cam = CameraConfig()
    # depth 4 m in front, 0.5 m left and 0.25 m up of a level camera at height 0.65, facing +x.
    point = (4.0, 0.5, 0.65 + 0.25)
    u = cam.cx - cam.fx * 0.5 / 4.0
    v = cam.cy - cam.fy * 0.25 / 4.0
    image = SplatRenderer(one_gaussian(point)).render(view_from_pose(pose_matrix(0, 0, 0.65), cam))
    red = image.rgb[..., 0]
    row, col = np.unravel_index(np.argmax(red), red.shape)
    assert abs(col + 0.5 - u) <= 0.5 and abs(row + 0.5 - v) <= 0.5
    # an isotropic sphere: camera-space covariance sigma^2 I, so cov2d = sigma^2 J J^T + 0.3 I
    xc, yc, z = -0.5, -0.25, 4.0
    jac = np.array([[cam.fx / z, 0, -cam.fx * xc / z ** 2], [0, cam.fy / z, -cam.fy * yc / z ** 2]])
    inv_cov = np.linalg.inv(0.05 ** 2 * jac @ jac.T + 0.3 * np.eye(2))
    for dx in (0, 2, 4):
        d = np.array([col + dx + 0.5 - u, row + 0.5 - v])
        expected = 0.8 * np.exp(-0.5 * d @ inv_cov @ d)
        assert red[row, col + dx] == pytest.approx(expected, abs=1e-4)
    assert image.rgb[row, col, 1] == pytest.approx(0.5 * red[row, col], abs=1e-4)
    assert image.depth[row, col] == pytest.approx(4.0, abs=1e-4)


def test_the_rasteriser_exp_is_accurate_over_its_range():
    from maze_envs.nav._splat_kernels import exp_neg

    for power in np.linspace(np.log(1 / 255), 0.0, 2001, dtype=np.float32):
        assert exp_neg(power) == pytest.approx(np.exp(float(power)), rel=3e-4)


def test_alpha_is_capped_and_background_shows_through():
    image = SplatRenderer(one_gaussian((3.0, 0, 0.65), sigma=0.4, opacity=1.0, colour=(1, 1, 1)),
                          background=(0.0, 1.0, 0.0)).render(view_from_pose(pose_matrix(0, 0, 0.65)))
    centre = image.rgb[320, 360]
    assert centre[0] == pytest.approx(0.99, abs=1e-4) and centre[1] == pytest.approx(1.0, abs=1e-4)
    assert image.rgb[0, 0].tolist() == pytest.approx([0, 1, 0]) and image.depth[0, 0] == 0


def test_front_to_back_order_and_early_termination():
    near = one_gaussian((2.0, 0, 0.65), sigma=0.3, opacity=1.0, colour=(1, 0, 0))
    middle = one_gaussian((3.0, 0, 0.65), sigma=0.3, opacity=0.9, colour=(0, 1, 0))
    far = one_gaussian((4.0, 0, 0.65), sigma=0.3, opacity=1.0, colour=(0, 0, 1))
    cloud = GaussianCloud.concatenate([far, near, middle])
    rgb = SplatRenderer(cloud).render(view_from_pose(pose_matrix(0, 0, 0.65))).rgb[320, 360]
    # near alpha capped at 0.99; middle gets 0.9 * 0.01; far would leave transmittance 1e-5 < 1e-4, so stop.
    assert rgb[0] == pytest.approx(0.99, abs=1e-4)
    assert rgb[1] == pytest.approx(0.009, abs=1e-4)
    assert rgb[2] == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("pose, point, where", [
    ((0, 0, 0.65, 0, 0, 0), (5, 0, 0.65), "centre"),
    ((0, 0, 0.65, 0, 0, 0), (5, 1, 0.65), "left"),
    ((0, 0, 0.65, 0, 0, 0), (5, 0, 1.65), "up"),
    ((0, 0, 0.65, 0, 0, np.pi / 2), (0, 5, 0.65), "centre"),
    ((0, 0, 0.65, 0, 0.3, 0), (5, 0, 0.65), "up"),
])
def test_camera_convention(pose, point, where):
    red = SplatRenderer(one_gaussian(point)).render(view_from_pose(pose_matrix(*pose))).rgb[..., 0]
    row, col = np.unravel_index(np.argmax(red), red.shape)
    if where == "centre":
        assert abs(col - 359.5) <= 1 and abs(row - 319.5) <= 1
    elif where == "left":
        assert abs(col + 0.5 - (360 - 252.075 / 5)) <= 1 and abs(row - 319.5) <= 1
    else:
        assert row < 300 and abs(col - 359.5) <= 1


def test_colmap_extrinsics_round_trip():
    pose = pose_matrix(1.5, -2.0, 0.65, 0.1, -0.2, 2.5)
    r, t = parse_extrinsics(colmap_extrinsics(pose))
    r0, t0 = world_to_camera(pose)
    assert np.allclose(r, r0, atol=1e-6) and np.allclose(t, t0, atol=1e-6)
    # the camera centre maps to the origin, and its forward axis to +z
    assert np.allclose(r0 @ pose[:3, 3] + t0, 0, atol=1e-9)
    assert np.allclose(r0 @ pose[:3, 0], [0, 0, 1], atol=1e-9)


def test_missing_numba_names_the_extra(monkeypatch):
    import sys

    import maze_envs.nav as nav
    from maze_envs.nav.errors import NavDependencyError
    from maze_envs.nav.splat import load_kernels

    monkeypatch.setitem(sys.modules, "numba", None)
    monkeypatch.delitem(sys.modules, "maze_envs.nav._splat_kernels", raising=False)
    monkeypatch.delattr(nav, "_splat_kernels", raising=False)
    with pytest.raises(NavDependencyError, match=r"pip install 'maze-envs\[nav\]'"):
        load_kernels()


def test_kernels_are_cached_on_disk_in_the_test_cache_dir(hermetic_session):
    SplatRenderer(one_gaussian((3.0, 0, 0.65))).render(small_view(pose_matrix(0, 0, 0.65)))
    cached = {p.name.split(".")[1].split("-")[0] for p in (hermetic_session / "numba").rglob("_splat_kernels.*.nbi")}
    assert {"prepare_view", "rasterise"} <= cached


def test_depth_order_is_a_stable_ascending_sort():
    from maze_envs.nav._splat_kernels import depth_order

    depth = np.random.default_rng(3).uniform(0.2, 40.0, 5000)
    depth[100:300] = depth[7]  # ties keep index order
    depth[400:410] = [0.2, 1e-3, 1e3, 5.0, 5.0, 0.5, 2.0, 2.0 + 1e-12, 2.0, 0.2]
    assert np.array_equal(depth_order(depth), np.argsort(depth, kind="stable"))
    assert depth_order(np.zeros(0)).shape == (0,)


def test_render_many_matches_single_renders_and_checks_sizes():
    from maze_envs.core.errors import MazeConfigError

    cloud = random_cloud(4, 40)
    renderer = SplatRenderer(cloud, background=(0.2, 0.1, 0.0))
    views = [small_view(pose_matrix(0, 0, 0.65, 0, 0, yaw)) for yaw in (0.3, -0.2, 0.0)]
    batch = renderer.render_many(views)
    for view, image in zip(views, batch, strict=False):
        single = renderer.render(view)
        assert np.array_equal(image.rgb, single.rgb) and np.array_equal(image.depth, single.depth)
    assert renderer.render_many([]) == []
    with pytest.raises(MazeConfigError, match="views: .*40x32, 20x16"):
        renderer.render_many([views[0], views[1].scaled(0.5)])


def _red_sum(point) -> float:
    return float(SplatRenderer(one_gaussian(point)).render(view_from_pose(pose_matrix(0, 0, 0.65))).rgb[..., 0].sum())


def _send_red_sum(queue, point) -> None:
    queue.put(_red_sum(point))


def test_a_forked_child_renders_after_its_parent_did():
    import multiprocessing

    expected = _red_sum((4.0, 0.0, 0.65))  # the parent's worker pool is running now
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_send_red_sum, args=(queue, (4.0, 0.0, 0.65)))
    child.start()
    child.join(timeout=120)
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail("the forked child hung rendering")
    assert child.exitcode == 0 and queue.get(timeout=10) == pytest.approx(expected)


def sh_basis(dirs: np.ndarray, degree: int) -> np.ndarray:
    """The (N, (degree+1)^2) real SH basis at unit directions, constants from their closed forms, with the sign
    convention of the 3DGS reference (Condon-Shortley phase on the odd orders)."""
    x, y, z = dirs.T
    pi = np.pi
    table = [
        np.full_like(x, 0.5 / np.sqrt(pi)),
        -np.sqrt(3 / (4 * pi)) * y, np.sqrt(3 / (4 * pi)) * z, -np.sqrt(3 / (4 * pi)) * x,
        0.5 * np.sqrt(15 / pi) * x * y, -0.5 * np.sqrt(15 / pi) * y * z,
        0.25 * np.sqrt(5 / pi) * (3 * z * z - 1), -0.5 * np.sqrt(15 / pi) * x * z,
        0.25 * np.sqrt(15 / pi) * (x * x - y * y),
        -0.25 * np.sqrt(35 / (2 * pi)) * y * (3 * x * x - y * y), 0.5 * np.sqrt(105 / pi) * x * y * z,
        -0.25 * np.sqrt(21 / (2 * pi)) * y * (5 * z * z - 1), 0.25 * np.sqrt(7 / pi) * z * (5 * z * z - 3),
        -0.25 * np.sqrt(21 / (2 * pi)) * x * (5 * z * z - 1), 0.25 * np.sqrt(105 / pi) * z * (x * x - y * y),
        -0.25 * np.sqrt(35 / (2 * pi)) * x * (x * x - 3 * y * y),
    ]
    return np.stack(table[:(degree + 1) ** 2], axis=1)


def sh_reference_render(cloud: GaussianCloud, view: PinholeView, degree: int, background) -> np.ndarray:
    """Every Gaussian at every pixel in numpy, float64, from the published formulas: SH colours from the camera
    centre, ``max(0, SH . coeffs + 0.5)`` at every degree (gsplat and the 3DGS reference), gsplat's projection
    (its Jacobian clamp at each image edge plus 0.15 W / fx, per side), the 0.2 m near plane, 0.3 blur, depth order,
    alpha capped at 0.99, skipped below 1/255, a pixel finished once its transmittance would fall below 1e-4."""
    centre_world = -view.R.T @ view.t
    dirs = cloud.means.astype(float) - centre_world
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    coeffs = np.concatenate([cloud.sh_dc[:, None], cloud.sh_rest[:, :(degree + 1) ** 2 - 1]], axis=1).astype(float)
    colours = np.maximum(np.einsum("nk,nkc->nc", sh_basis(dirs, degree), coeffs) + 0.5, 0.0)
    w_, h_ = view.width, view.height
    lim_x = (view.cx / view.fx + 0.15 * w_ / view.fx, (w_ - view.cx) / view.fx + 0.15 * w_ / view.fx)
    lim_y = (view.cy / view.fy + 0.15 * h_ / view.fy, (h_ - view.cy) / view.fy + 0.15 * h_ / view.fy)
    us, vs = np.meshgrid(np.arange(view.width) + 0.5, np.arange(view.height) + 0.5)
    trans = np.ones(us.shape)
    done = np.zeros(us.shape, bool)
    image = np.zeros(us.shape + (3,))
    cam = cloud.means.astype(float) @ view.R.T + view.t
    for i in np.argsort(cam[:, 2], kind="stable"):
        x, y, z = cam[i]
        if z < 0.2:
            continue
        xc, yc = np.clip(x / z, -lim_x[0], lim_x[1]) * z, np.clip(y / z, -lim_y[0], lim_y[1]) * z
        w, qx, qy, qz = cloud.quats[i].astype(float)
        rot = Rotation.from_quat([qx, qy, qz, w]).as_matrix()
        sigma = rot @ np.diag(cloud.scales[i].astype(float) ** 2) @ rot.T
        jac = np.array([[view.fx / z, 0, -view.fx * xc / z ** 2], [0, view.fy / z, -view.fy * yc / z ** 2]])
        inv_cov = np.linalg.inv(jac @ view.R @ sigma @ view.R.T @ jac.T + 0.3 * np.eye(2))
        du, dv = us - (view.fx * x / z + view.cx), vs - (view.fy * y / z + view.cy)
        power = -0.5 * (inv_cov[0, 0] * du * du + 2 * inv_cov[0, 1] * du * dv + inv_cov[1, 1] * dv * dv)
        alpha = np.minimum(0.99, cloud.opacities[i] * np.exp(power))
        hit = ~done & (alpha >= 1 / 255)
        stop = hit & (trans * (1 - alpha) < 1e-4)
        done |= stop
        hit &= ~stop
        image[hit] += (trans[hit] * alpha[hit])[:, None] * colours[i]
        trans[hit] *= 1 - alpha[hit]
    return image + trans[..., None] * np.asarray(background)


def sh_cloud(seed: int, n: int, degree: int = 3) -> GaussianCloud:
    """A random cloud as ``random_cloud`` with nonzero SH coefficients up to ``degree``."""
    base = random_cloud(seed, n)
    rest = np.random.default_rng(seed + 100).normal(0.0, 0.3, (n, (degree + 1) ** 2 - 1, 3))
    return GaussianCloud(base.means, base.scales, base.quats, base.opacities, base.sh_dc, rest)


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    """PSNR (dB, peak 1) of two float images as they are, colours above 1 included."""
    mse = float(np.mean((np.asarray(a, float) - np.asarray(b, float)) ** 2))
    return float("inf") if mse == 0 else 10 * np.log10(1.0 / mse)


def write_inria_ply(path: Path, means, f_dc, f_rest, opacity_logits, log_scales, quats) -> None:
    """Write a binary little-endian PLY in the INRIA 3DGS layout: x y z nx ny nz f_dc_0..2 f_rest_* (channel-major)
    opacity scale_0..2 rot_0..3 (w first), every property float32."""
    n, k = len(means), f_rest.shape[1]
    names = (["x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"] + [f"f_rest_{i}" for i in range(3 * k)]
             + ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"])
    rows = np.column_stack([means, np.zeros((n, 3)), f_dc, f_rest.transpose(0, 2, 1).reshape(n, 3 * k),
                            opacity_logits, log_scales, quats]).astype("<f4")
    header = f"ply\nformat binary_little_endian 1.0\nelement vertex {n}\n"
    header += "".join(f"property float {name}\n" for name in names) + "end_header\n"
    path.write_bytes(header.encode("ascii") + rows.tobytes())


def inria_scene(seed: int, n: int, degree: int):
    """Random anisotropic Gaussians in and around a camera's view (raw PLY values: logits, log scales, unnormalised
    quaternions), degree-0 colours reaching below 0 and above 1."""
    rng = np.random.default_rng(seed)
    means = np.column_stack([rng.uniform(1.0, 6.0, n), rng.uniform(-4.0, 4.0, n), rng.uniform(-2.5, 3.5, n)])
    return dict(means=means, f_dc=rng.normal(0.0, 1.5, (n, 3)),
                f_rest=rng.normal(0.0, 0.3, (n, (degree + 1) ** 2 - 1, 3)),
                opacity_logits=rng.normal(0.0, 2.0, (n, 1)),
                log_scales=rng.uniform(np.log(0.005), np.log(0.25), (n, 3)),
                quats=rng.normal(size=(n, 4)))


@pytest.mark.parametrize("principal", [(32.0, 24.0), (50.0, 10.0)])
@pytest.mark.parametrize("degree", [0, 1, 2, 3])
def test_inria_plys_of_each_degree_match_the_published_formulas(tmp_path, degree, principal):
    from maze_envs.nav.ply import read_ply

    write_inria_ply(tmp_path / "scene.ply", **inria_scene(degree, 1500, degree))
    cloud = read_ply(tmp_path / "scene.ply")
    assert cloud.sh_degree == degree
    cx, cy = principal
    view = view_from_pose(pose_matrix(0, 0, 0.65, 0, 0.05, 0.1), CameraConfig(64, 48, 40.0, 40.0, cx, cy))
    background = (0.1, 0.2, 0.3)
    fast = SplatRenderer(cloud, background=background).render(view).rgb
    assert fast.max() > 1.0  # colours are not clipped at 1, at degree 0 either
    # about 130 dB here; before the renderer followed gsplat, the off-centre views gave 52-68 dB (the Jacobian clamp)
    # and degree 0 gave 30 dB (colours clipped at 1), so 90 dB keeps both apart with room for float32 rounding
    assert psnr(fast, sh_reference_render(cloud, view, degree, background)) >= 90.0


@pytest.mark.parametrize("pose, degree", [
    ((0, 0, 0.65, 0, 0.05, 0.0), 3),
    ((-1.0, 0.8, 1.1, 0.1, 0.2, -0.3), 3),
    ((0.5, -0.5, 0.4, 0, -0.1, 0.25), 2),
    ((0, 0, 0.65, 0, 0, 0.1), 1),
])
def test_view_dependent_colour_matches_a_numpy_reference(pose, degree):
    cloud = sh_cloud(21, 300)
    view = small_view(pose_matrix(*pose), 64, 48, 40.0)
    background = (0.1, 0.2, 0.3)
    renderer = SplatRenderer(cloud, background=background, sh_degree=None if degree == 3 else degree)
    assert renderer.sh_degree == degree
    fast = renderer.render(view).rgb
    assert psnr(fast, sh_reference_render(cloud, view, degree, background)) >= 45.0
    # the higher degrees change the picture: degree 0 alone is far from it
    assert psnr(fast, sh_reference_render(cloud, view, 0, background)) < 35.0


def test_degree_zero_output_is_unchanged_by_sh_support():
    # tests/data/splat_degree0_golden.npz: these views rendered by the renderer before it had SH (commit d4eb2c5).
    golden = np.load(Path(__file__).resolve().parents[1] / "data" / "splat_degree0_golden.npz")
    views = [small_view(pose_matrix(0, 0, 0.65, 0, 0.05, yaw), 48, 40, 34.0) for yaw in (0.0, 0.25)]
    cloud = random_cloud(11, 300)
    images = SplatRenderer(cloud, background=(0.1, 0.2, 0.3)).render_many(views)
    rgb, depth = np.stack([i.rgb for i in images]), np.stack([i.depth for i in images])
    uint8 = (np.clip(rgb, 0, 1) * 255 + 0.5).astype(np.uint8)
    assert np.array_equal(uint8, (np.clip(golden["rgb"], 0, 1) * 255 + 0.5).astype(np.uint8))
    assert np.abs(rgb - golden["rgb"]).max() <= 1e-6 and np.abs(depth - golden["depth"]).max() <= 1e-5
    # sh_degree=0 on a degree-3 scene with the same degree-0 coefficients gives the same bytes
    with_sh = GaussianCloud(cloud.means, cloud.scales, cloud.quats, cloud.opacities, cloud.sh_dc,
                            np.random.default_rng(5).normal(0, 0.3, (len(cloud), 15, 3)))
    flat = SplatRenderer(with_sh, background=(0.1, 0.2, 0.3), sh_degree=0)
    assert flat.sh_degree == 0
    for image, again in zip(images, flat.render_many(views), strict=True):
        assert image.rgb.tobytes() == again.rgb.tobytes() and image.depth.tobytes() == again.depth.tobytes()


@pytest.mark.parametrize("bad", [-1, 4, 1.0, True, "3"])
def test_a_bad_sh_degree_is_refused_by_name(bad):
    from maze_envs.core.errors import MazeConfigError

    with pytest.raises(MazeConfigError, match="sh_degree"):
        SplatRenderer(sh_cloud(1, 3), sh_degree=bad)


def test_sh_degree_is_capped_at_the_scene_degree():
    assert SplatRenderer(random_cloud(1, 3), sh_degree=3).sh_degree == 0
    assert SplatRenderer(sh_cloud(1, 3, degree=1), sh_degree=2).sh_degree == 1


@pytest.mark.parametrize("stored, degree", [(0, 0), (2, 0), (3, 1), (7, 1), (8, 2), (15, 3), (24, 3)])
def test_the_rendered_degree_uses_only_complete_degrees_up_to_three(stored, degree):
    base = random_cloud(2, 4)
    cloud = GaussianCloud(base.means, base.scales, base.quats, base.opacities, base.sh_dc, np.zeros((4, stored, 3)))
    assert SplatRenderer(cloud).sh_degree == degree


def test_blocks_of_different_degrees_render_each_at_its_own_degree(tmp_path):
    high, low = sh_cloud(3, 200, degree=3), random_cloud(4, 200)
    low.sh_dc[:5] = 3.0  # degree-0 colours above 1 stay above 1 next to a degree-3 block
    scene = GaussianCloud.concatenate([low, high])
    assert scene.sh_degree == 3 and not scene.sh_rest[:200].any()
    assert np.array_equal(scene.sh_rest[200:], high.sh_rest)
    view = small_view(pose_matrix(0, 0, 0.65, 0, 0.05, 0.1), 48, 40, 34.0)
    fast = SplatRenderer(scene, background=(0.1, 0.2, 0.3)).render(view).rgb
    assert psnr(fast, sh_reference_render(scene, view, 3, (0.1, 0.2, 0.3))) >= 90.0
    assert psnr(fast, sh_reference_render(scene, view, 0, (0.1, 0.2, 0.3))) < 40.0  # not the lowest degree


def test_the_render_constants_are_one_set_the_cpu_renderer_follows():
    from maze_envs.core.errors import MazeConfigError
    from maze_envs.nav.render_constants import GSPLAT, SHARED, RenderConstants

    near = one_gaussian((0.1, 0.0, 0.65), sigma=0.01, opacity=0.9)
    view = view_from_pose(pose_matrix(0, 0, 0.65), CameraConfig(32, 24, 20.0, 20.0, 16.0, 12.0))
    assert SplatRenderer(near).constants is SHARED
    assert SplatRenderer(near).render(view).rgb.max() == 0.0  # in front of the 0.2 m near plane
    assert SplatRenderer(near, constants="gsplat").render(view).rgb.max() > 0.5  # gsplat's 0.01 m
    assert SplatRenderer(near, constants=GSPLAT).constants.alpha_max == 0.999
    for bad in ("nearest", 0.2, None):
        with pytest.raises(MazeConfigError, match="constants"):
            SplatRenderer(near, constants=bad)
    with pytest.raises(MazeConfigError, match="alpha_min"):
        RenderConstants(near_plane=0.2, alpha_max=0.99, alpha_min=1e-4, transmittance_min=1e-4, blur=0.3)


@pytest.mark.parametrize("constants", ["shared", "gsplat"])
def test_the_gsplat_backend_is_called_with_the_shared_constants(monkeypatch, constants):
    torch = pytest.importorskip("torch")
    import types

    from maze_envs.nav.backends import GsplatRenderer
    from maze_envs.nav.render_constants import NAMED

    calls = []

    def rasterization(means, quats, scales, opacities, colors, viewmats, Ks, width, height, **kwargs):
        calls.append(dict(colors=colors, viewmats=viewmats, Ks=Ks, width=width, height=height, **kwargs))
        c = viewmats.shape[0]
        return torch.zeros((c, height, width, 4)), torch.zeros((c, height, width, 1)), {}

    monkeypatch.setitem(sys.modules, "gsplat", types.SimpleNamespace(rasterization=rasterization))
    cloud = sh_cloud(5, 10, degree=2)
    renderer = GsplatRenderer(cloud, constants=constants, device="cpu")
    view = small_view(pose_matrix(0, 0, 0.65), 40, 32, 30.0)
    images = renderer.render_many([view, view])
    assert len(images) == 2 and images[0].rgb.shape == (32, 40, 3)
    (call,) = calls
    expected = NAMED[constants]
    assert renderer.constants is expected and SplatRenderer(cloud, constants=constants).constants is expected
    assert call["near_plane"] == expected.near_plane and call["eps2d"] == expected.blur
    assert call["sh_degree"] == 2 and tuple(call["colors"].shape) == (10, 9, 3)
    assert call["render_mode"] == "RGB+ED" and (call["width"], call["height"]) == (40, 32)
    assert np.allclose(call["Ks"][0].numpy(), [[30, 0, 20], [0, 30, 16], [0, 0, 1]])
    # degree 0 goes through gsplat's SH path too, so its colours get the same max(0, . + 0.5) rule
    GsplatRenderer(cloud, sh_degree=0, device="cpu").render(view)
    assert calls[-1]["sh_degree"] == 0 and tuple(calls[-1]["colors"].shape) == (10, 1, 3)
