"""Read and write the standard INRIA 3D Gaussian Splatting PLY (binary vertex list, float32 properties).

Stored per vertex: ``x y z nx ny nz f_dc_0..2 f_rest_0..(3K-1) opacity scale_0..2 rot_0..3``. ``f_rest`` is
channel-major (all red coefficients, then green, then blue); opacity is stored as a logit, scales as logs,
the quaternion with w first. The degree-0 colour is 0.5 + C0 * f_dc; the renderers add the higher degrees for each
view direction (``maze_envs.nav.splat``). Every coefficient is written back as it was read.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from maze_envs.core.atomic import atomic_write
from maze_envs.core.datafiles import UnsafeFileError, read_data_bytes
from maze_envs.core.errors import brief_repr

from .errors import NavDataError

SH_C0 = 0.28209479177387814

_PLY_TYPES = {
    "char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1", "short": "i2", "int16": "i2",
    "ushort": "u2", "uint16": "u2", "int": "i4", "int32": "i4", "uint": "u4", "uint32": "u4",
    "float": "f4", "float32": "f4", "double": "f8", "float64": "f8",
}
_REQUIRED = ("x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0", "scale_1", "scale_2",
             "rot_0", "rot_1", "rot_2", "rot_3")


@dataclass
class GaussianCloud:
    """A set of 3D Gaussians in activated form.

    ``means`` (N,3) world positions, ``scales`` (N,3) standard deviations in metres, ``quats`` (N,4) rotations
    ``(w, x, y, z)``, ``opacities`` (N,) in [0, 1], ``sh_dc`` (N,3) degree-0 SH coefficients and ``sh_rest``
    (N, K, 3) higher-degree coefficients (K = 0, 3, 8 or 15).
    """

    means: np.ndarray
    scales: np.ndarray
    quats: np.ndarray
    opacities: np.ndarray
    sh_dc: np.ndarray
    sh_rest: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.means = np.ascontiguousarray(self.means, dtype=np.float32).reshape(-1, 3)
        n = len(self.means)
        self.scales = np.ascontiguousarray(self.scales, dtype=np.float32).reshape(n, 3)
        self.quats = np.ascontiguousarray(self.quats, dtype=np.float32).reshape(n, 4)
        self.opacities = np.ascontiguousarray(self.opacities, dtype=np.float32).reshape(n)
        self.sh_dc = np.ascontiguousarray(self.sh_dc, dtype=np.float32).reshape(n, 3)
        rest = np.ascontiguousarray(np.zeros((n, 0, 3)) if self.sh_rest is None else self.sh_rest, dtype=np.float32)
        k = rest.shape[1] if rest.ndim == 3 else rest.size // (3 * n) if n else 0
        self.sh_rest = rest.reshape(n, k, 3)

    def __len__(self) -> int:
        return len(self.means)

    @property
    def sh_degree(self) -> int:
        """Return the highest SH degree whose coefficients are all stored: the largest d with (d+1)^2 - 1 <= K."""
        return math.isqrt(self.sh_rest.shape[1] + 1) - 1

    @property
    def colours(self) -> np.ndarray:
        """Return the (N,3) view-independent RGB colours, ``max(0, 0.5 + C0 * f_dc)`` (not clipped at 1, as gsplat
        and the 3DGS reference render degree 0)."""
        return np.maximum(0.5 + SH_C0 * self.sh_dc, 0.0)

    @classmethod
    def from_colours(cls, means: np.ndarray, scales: np.ndarray, quats: np.ndarray, opacities: np.ndarray,
                     colours: np.ndarray) -> "GaussianCloud":
        """Return a degree-0 cloud whose colours are ``colours`` (N,3) in [0, 1]."""
        return cls(means, scales, quats, opacities, (np.asarray(colours, np.float32) - 0.5) / SH_C0)

    @classmethod
    def concatenate(cls, clouds: list["GaussianCloud"]) -> "GaussianCloud":
        """Return one cloud holding every Gaussian of ``clouds``, with the higher SH coefficients of the most any
        holds: a cloud of a lower degree is padded with zeros, so each renders at its own degree."""
        if not clouds:
            return cls(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 4)), np.zeros(0), np.zeros((0, 3)))
        k = max(c.sh_rest.shape[1] for c in clouds)
        rest = [np.pad(c.sh_rest, ((0, 0), (0, k - c.sh_rest.shape[1]), (0, 0))) for c in clouds]
        return cls(np.concatenate([c.means for c in clouds]), np.concatenate([c.scales for c in clouds]),
                   np.concatenate([c.quats for c in clouds]), np.concatenate([c.opacities for c in clouds]),
                   np.concatenate([c.sh_dc for c in clouds]), np.concatenate(rest))


def _parse_header(raw: bytes, source: str) -> tuple[int, str, int, np.dtype]:
    """Return (header length in bytes, byte order, vertex count, vertex dtype) of a PLY file's bytes."""
    end = raw.find(b"end_header")
    if not raw.startswith(b"ply") or end < 0:
        raise NavDataError("not a PLY file (no 'ply' magic or no 'end_header')", source=source)
    newline = raw.find(b"\n", end)
    if newline < 0:
        raise NavDataError("truncated PLY header", source=source)
    lines = raw[:end].decode("ascii", errors="replace").splitlines()
    fmt, count, props, element = None, None, [], None
    for line in lines[1:]:
        words = line.split()
        if not words or words[0] in ("comment", "obj_info"):
            continue
        if words[0] == "format":
            fmt = words[1] if len(words) > 1 else ""
        elif words[0] == "element":
            if element == "vertex":
                break
            element = words[1] if len(words) > 1 else ""
            if element == "vertex":
                if len(words) != 3 or not re.fullmatch(r"[0-9]{1,18}", words[2]):
                    raise NavDataError(f"bad vertex count in {brief_repr(line.strip())}", source=source)
                count = int(words[2])
            elif count is None:
                raise NavDataError(f"the first element is {brief_repr(element)}, expected 'vertex'", source=source)
        elif words[0] == "property" and element == "vertex":
            if len(words) != 3 or words[1] not in _PLY_TYPES:
                raise NavDataError(f"unsupported vertex property {brief_repr(line.strip())}", source=source)
            if any(words[2] == name for name, _ in props):
                raise NavDataError(f"vertex property {brief_repr(words[2])} appears twice", source=source)
            props.append((words[2], _PLY_TYPES[words[1]]))
    if fmt not in ("binary_little_endian", "binary_big_endian"):
        raise NavDataError(f"format {brief_repr(fmt)} is not supported; 3DGS PLY files are binary", source=source)
    if count is None:
        raise NavDataError("no 'element vertex' in the header", source=source)
    order = "<" if fmt == "binary_little_endian" else ">"
    missing = [name for name in _REQUIRED if name not in {p for p, _ in props}]
    if missing:
        raise NavDataError(f"not a 3D Gaussian Splatting PLY: missing properties {', '.join(missing)}",
                           source=source)
    return newline + 1, order, count, np.dtype([(name, order + t) for name, t in props])


def read_ply(path: str | os.PathLike) -> GaussianCloud:
    """Return the ``GaussianCloud`` stored in the 3DGS PLY at ``path``; raises ``NavDataError`` on a bad file."""
    source = str(path)
    try:
        raw = read_data_bytes(path, max_bytes=None)
    except UnsafeFileError as exc:
        raise NavDataError(exc.detail, source=source) from None
    except OSError as exc:
        raise NavDataError(f"cannot read: {exc.strerror}", source=source) from exc
    start, _, count, dtype = _parse_header(raw, source)
    if count == 0:
        raise NavDataError("has no Gaussians ('element vertex 0')", source=source)
    needed = start + count * dtype.itemsize
    if len(raw) < needed:
        raise NavDataError(f"truncated: {count} vertices need {needed} bytes, file has {len(raw)}", source=source)
    data = np.frombuffer(raw, dtype=dtype, count=count, offset=start)
    names = dtype.names

    def cols(*keys: str) -> np.ndarray:
        return np.stack([data[k].astype(np.float32) for k in keys], axis=1)

    rest_names = sorted((n for n in names if re.fullmatch(r"f_rest_[0-9]{1,6}", n)), key=lambda n: int(n[7:]))
    if len(rest_names) % 3:
        raise NavDataError(f"{len(rest_names)} f_rest properties is not a multiple of 3", source=source)
    k = len(rest_names) // 3
    rest = cols(*rest_names).reshape(count, 3, k).transpose(0, 2, 1) if k else None
    for name in names:
        finite = np.isfinite(data[name])
        if not finite.all():
            raise NavDataError(f"vertex {int(np.argmin(finite))} has a non-finite {name}", source=source)
    with np.errstate(over="ignore"):
        opac = 1.0 / (1.0 + np.exp(-data["opacity"].astype(np.float32)))
        scales = np.exp(cols("scale_0", "scale_1", "scale_2"))
    if not np.isfinite(scales).all():
        raise NavDataError(f"vertex {int(np.argmin(np.isfinite(scales).all(axis=1)))} has a scale too large for "
                           f"float32 (log scale above 88)", source=source)
    return GaussianCloud(cols("x", "y", "z"), scales, cols("rot_0", "rot_1", "rot_2", "rot_3"), opac,
                         cols("f_dc_0", "f_dc_1", "f_dc_2"), rest)


def write_ply(cloud: GaussianCloud, path: str | os.PathLike) -> Path:
    """Write ``cloud`` as a binary little-endian 3DGS PLY at ``path`` (atomically); return the path."""
    n, k = len(cloud), cloud.sh_rest.shape[1]
    names = (["x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"]
             + [f"f_rest_{i}" for i in range(3 * k)]
             + ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"])
    eps = 1e-7
    opac = np.clip(cloud.opacities, eps, 1 - eps)
    columns = np.concatenate([
        cloud.means, np.zeros((n, 3), np.float32), cloud.sh_dc,
        cloud.sh_rest.transpose(0, 2, 1).reshape(n, 3 * k),
        np.log(opac / (1 - opac))[:, None], np.log(np.maximum(cloud.scales, 1e-12)), cloud.quats,
    ], axis=1).astype("<f4")
    header = "ply\nformat binary_little_endian 1.0\nelement vertex %d\n%send_header\n" % (
        n, "".join(f"property float {name}\n" for name in names))
    with atomic_write(path, "wb") as fh:
        fh.write(header.encode("ascii"))
        fh.write(np.ascontiguousarray(columns).tobytes())
    return Path(path)
