"""Standard INRIA 3DGS PLY reading and writing."""

import numpy as np
import pytest

from maze_envs.nav.errors import NavDataError
from maze_envs.nav.ply import SH_C0, GaussianCloud, read_ply, write_ply


def cloud(n=5, k=15, seed=0) -> GaussianCloud:
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 4))
    return GaussianCloud(rng.normal(size=(n, 3)), rng.uniform(0.01, 1, (n, 3)), q / np.linalg.norm(q, axis=1)[:, None],
                         rng.uniform(0.05, 0.95, n), rng.normal(size=(n, 3)), rng.normal(size=(n, k, 3)))


def test_round_trip(tmp_path):
    original = cloud()
    back = read_ply(write_ply(original, tmp_path / "gs" / "point_cloud.ply"))
    for name in ("means", "scales", "quats", "opacities", "sh_dc", "sh_rest"):
        assert np.allclose(getattr(back, name), getattr(original, name), rtol=1e-5, atol=1e-6), name
    assert back.sh_degree == 3 and len(back) == 5


def test_stored_values_follow_the_inria_layout(tmp_path):
    c = cloud(n=1, k=15)
    path = write_ply(c, tmp_path / "a.ply")
    raw = path.read_bytes()
    header, body = raw.split(b"end_header\n")
    names = [line.split()[-1] for line in header.decode().splitlines() if line.startswith("property")]
    assert names[:9] == ["x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"]
    assert names[-8:] == ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"]
    values = dict(zip(names, np.frombuffer(body, "<f4"), strict=False))
    # f_rest is channel-major: f_rest_0..14 red, 15..29 green, 30..44 blue
    assert values["f_rest_1"] == pytest.approx(c.sh_rest[0, 1, 0])
    assert values["f_rest_16"] == pytest.approx(c.sh_rest[0, 1, 1])
    assert values["f_rest_44"] == pytest.approx(c.sh_rest[0, 14, 2])
    assert 1 / (1 + np.exp(-values["opacity"])) == pytest.approx(c.opacities[0], rel=1e-5)
    assert np.exp(values["scale_2"]) == pytest.approx(c.scales[0, 2], rel=1e-5)
    assert values["rot_0"] == pytest.approx(c.quats[0, 0])  # w first
    assert c.colours[0] == pytest.approx(np.maximum(0.5 + SH_C0 * c.sh_dc[0], 0))  # max(0, .), no clip at 1


def test_degree_zero_and_big_endian(tmp_path):
    c = cloud(n=3, k=0)
    names = ["x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0", "scale_1", "scale_2",
             "rot_0", "rot_1", "rot_2", "rot_3"]
    cols = np.concatenate([c.means, c.sh_dc, np.log(c.opacities / (1 - c.opacities))[:, None], np.log(c.scales),
                           c.quats], axis=1).astype(">f4")
    header = "ply\nformat binary_big_endian 1.0\ncomment foreign writer\nelement vertex 3\n" + "".join(
        f"property float {n}\n" for n in names) + "end_header\n"
    (tmp_path / "be.ply").write_bytes(header.encode() + cols.tobytes())
    back = read_ply(tmp_path / "be.ply")
    assert back.sh_degree == 0 and np.allclose(back.means, c.means) and np.allclose(back.opacities, c.opacities)


def test_truncated_file_names_the_file(tmp_path):
    path = write_ply(cloud(), tmp_path / "t.ply")
    path.write_bytes(path.read_bytes()[:-7])
    with pytest.raises(NavDataError, match=r"t\.ply.*truncated"):
        read_ply(path)


@pytest.mark.parametrize("content, message", [
    (b"not a ply at all", "not a PLY"),
    (b"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\n1\n", "binary"),
    (b"ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
     b"property float z\nend_header\n" + b"\0" * 12, "missing properties"),
    (b"ply\nformat binary_little_endian 1.0\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n",
     "expected 'vertex'"),
    (b"ply\nformat binary_little_endian 1.0\nelement vertex -3\nproperty float x\nend_header\n", "vertex count"),
    (b"ply\nformat binary_little_endian 1.0\nelement vertex\nend_header\n", "vertex count"),
    (b"ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty\nend_header\n", "unsupported vertex property"),
    (b"ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float x\nproperty float x\nend_header\n",
     "appears twice"),
])
def test_foreign_files_are_rejected(tmp_path, content, message):
    (tmp_path / "f.ply").write_bytes(content)
    with pytest.raises(NavDataError, match=message):
        read_ply(tmp_path / "f.ply")


def test_missing_file(tmp_path):
    with pytest.raises(NavDataError, match="nope.ply"):
        read_ply(tmp_path / "nope.ply")
