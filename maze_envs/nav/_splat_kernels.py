"""Numba kernels of the tile-based EWA splatting rasteriser (imported only by ``splat.py``, only when rendering).

Per view, ``prepare_view`` projects every Gaussian (a 2D covariance, centre and tile rectangle), sorts the
visible ones front to back, packs their parameters once each and lists per 16x16 tile the Gaussians whose
footprint reaches it (the exact x-span of the footprint in each tile row, not its bounding box).
With ``sh_degree`` above 0 each visible Gaussian's colour is its spherical-harmonic colour seen from the camera
centre (``sh_colour``). ``rasterise`` composites the tiles of a batch of views, splat by splat, visiting only the
pixels inside each splat's footprint.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

# Positions in the float64 ``consts`` array every kernel takes (``splat.constants_array`` of a ``RenderConstants``).
NEAR, ALPHA_MAX, ALPHA_MIN, T_MIN, BLUR = range(5)
# Tiles are TILE x TILE pixels; ``rasterise`` composites whole tile rows at a time (two AVX registers).
TILE = 16
# Pixels of slack around a footprint when choosing which tiles and pixel rows to visit; the per-pixel alpha test
# decides, so the slack only guards the float32 pixel test against the float64 footprint bounds.
SLACK = 1.0
# Packed row of a visible Gaussian (float32): centre, conic (inverse 2D covariance), opacity, lowest exponent
# worth an exp (alpha >= the minimum alpha), colour, depth, and the footprint's row-span terms (see ``row_span``).
U, V, CONIC_A, CONIC_B, CONIC_C, OPACITY, POWER_MIN, RED, GREEN, BLUE, DEPTH, SLOPE, WIDTH, HALF_HEIGHT = range(14)
PACKED_COLUMNS = 16
# The real SH basis of the 3DGS reference, degrees 0 to 3 (the sign convention of its CUDA rasteriser and gsplat).
SH_C0 = 0.28209479177387814
SH_C1 = 0.4886025119029199
SH_C2 = (1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792, 0.5462742152960396)
SH_C3 = (-0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154, -0.4570457994644658,
         1.445305721320277, -0.5900435899266435)


def footprint_extents(opacities: np.ndarray, alpha_min: float) -> np.ndarray:
    """Return, per Gaussian, the Mahalanobis radius of its footprint (where alpha reaches ``alpha_min``):
    sqrt(2 ln(o / alpha_min)).

    0 for a Gaussian too faint ever to reach ``alpha_min``.
    """
    o = np.asarray(opacities, np.float64)
    return np.sqrt(2.0 * np.log(np.maximum(o, alpha_min) / alpha_min))


@nb.njit(cache=True, nogil=True, inline="always")
def row_span(u, slope, width, half_height, dy):
    """Return (left, right) x of the footprint ellipse on the row ``dy`` below its centre (empty if left > right).

    The ellipse d^T S^-1 d <= e^2 of the 2D covariance S = [[a, b], [b, c]] spans x = u + (b / c) dy
    +- sqrt(det S) / c * sqrt(e^2 c - dy^2) on that row: ``slope`` = b / c, ``width`` = sqrt(det S) / c and
    ``half_height`` = e sqrt(c).
    """
    rest = half_height * half_height - dy * dy
    if rest < 0.0:
        return 1.0, 0.0
    half = width * math.sqrt(rest)
    return u + slope * dy - half, u + slope * dy + half


@nb.njit(cache=True, nogil=True, inline="always")
def band_span(u, slope, width, half_height, lo, hi):
    """Return (left, right) x of the footprint over the rows dy in [lo, hi] (empty if left > right).

    The right edge u + slope dy + width sqrt(h^2 - dy^2) is concave in dy with its maximum at
    dy* = h slope / sqrt(slope^2 + width^2), the left edge convex with its minimum at -dy*; each extreme over the
    band is at that point clamped into the band.
    """
    lo = max(lo, -half_height)
    hi = min(hi, half_height)
    if lo > hi:
        return 1.0, 0.0
    turn = half_height * slope / math.sqrt(slope * slope + width * width)
    right = row_span(u, slope, width, half_height, min(hi, max(lo, turn)))[1]
    left = row_span(u, slope, width, half_height, min(hi, max(lo, -turn)))[0]
    return left, right


@nb.njit(cache=True, nogil=True, fastmath=True)
def project(means, cov3d, extents, R, t, fx, fy, cx, cy, width, height, consts, out_cov, out_centre, out_depth,
            out_rect):
    """Fill per-Gaussian 2D covariance (a, b, c), pixel centre, depth and tile rectangle (x0, y0, x1, y1).

    A Gaussian behind the near plane, too faint, degenerate or off screen gets an empty rectangle (x1 <= x0).
    The Jacobian is taken at the mean clamped to the image's edges plus a margin of 0.15 * width / fx (0.15 *
    height / fy), each side on its own, as gsplat's projection does: an off-centre principal point has a wider
    margin on its far side.
    """
    tiles_x = (width + TILE - 1) // TILE
    tiles_y = (height + TILE - 1) // TILE
    near, blur = consts[NEAR], consts[BLUR]
    lim_x_pos = (width - cx) / fx + 0.15 * width / fx
    lim_x_neg = cx / fx + 0.15 * width / fx
    lim_y_pos = (height - cy) / fy + 0.15 * height / fy
    lim_y_neg = cy / fy + 0.15 * height / fy
    for i in range(means.shape[0]):
        out_rect[i, 0] = 0
        out_rect[i, 2] = 0
        mx, my, mz = means[i, 0], means[i, 1], means[i, 2]
        pz = R[2, 0] * mx + R[2, 1] * my + R[2, 2] * mz + t[2]
        if pz < near or extents[i] <= 0.0:
            continue
        px = R[0, 0] * mx + R[0, 1] * my + R[0, 2] * mz + t[0]
        py = R[1, 0] * mx + R[1, 1] * my + R[1, 2] * mz + t[1]
        inv_z = 1.0 / pz
        xc = min(lim_x_pos, max(-lim_x_neg, px * inv_z)) * pz
        yc = min(lim_y_pos, max(-lim_y_neg, py * inv_z)) * pz
        j00 = fx * inv_z
        j02 = -fx * xc * inv_z * inv_z
        j11 = fy * inv_z
        j12 = -fy * yc * inv_z * inv_z
        # T = J @ R (2x3)
        t00 = j00 * R[0, 0] + j02 * R[2, 0]
        t01 = j00 * R[0, 1] + j02 * R[2, 1]
        t02 = j00 * R[0, 2] + j02 * R[2, 2]
        t10 = j11 * R[1, 0] + j12 * R[2, 0]
        t11 = j11 * R[1, 1] + j12 * R[2, 1]
        t12 = j11 * R[1, 2] + j12 * R[2, 2]
        s00, s01, s02, s11, s12, s22 = cov3d[i, 0], cov3d[i, 1], cov3d[i, 2], cov3d[i, 3], cov3d[i, 4], cov3d[i, 5]
        # rows of T @ Sigma
        a0 = t00 * s00 + t01 * s01 + t02 * s02
        a1 = t00 * s01 + t01 * s11 + t02 * s12
        a2 = t00 * s02 + t01 * s12 + t02 * s22
        b0 = t10 * s00 + t11 * s01 + t12 * s02
        b1 = t10 * s01 + t11 * s11 + t12 * s12
        b2 = t10 * s02 + t11 * s12 + t12 * s22
        ca = a0 * t00 + a1 * t01 + a2 * t02 + blur
        cb = a0 * t10 + a1 * t11 + a2 * t12
        cc = b0 * t10 + b1 * t11 + b2 * t12 + blur
        if ca * cc - cb * cb <= 0.0:
            continue
        # The footprint's axis-aligned box has half-sides extent * sqrt(a) and extent * sqrt(c).
        rx = extents[i] * math.sqrt(ca) + SLACK
        ry = extents[i] * math.sqrt(cc) + SLACK
        u = fx * px * inv_z + cx
        v = fy * py * inv_z + cy
        x0 = max(0, int(math.floor((u - rx) / TILE)))
        x1 = min(tiles_x, int(math.floor((u + rx) / TILE)) + 1)
        y0 = max(0, int(math.floor((v - ry) / TILE)))
        y1 = min(tiles_y, int(math.floor((v + ry) / TILE)) + 1)
        if x0 >= x1 or y0 >= y1:
            continue
        out_cov[i, 0] = ca
        out_cov[i, 1] = cb
        out_cov[i, 2] = cc
        out_centre[i, 0] = u
        out_centre[i, 1] = v
        out_depth[i] = pz
        out_rect[i, 0] = x0
        out_rect[i, 1] = y0
        out_rect[i, 2] = x1
        out_rect[i, 3] = y1


@nb.njit(cache=True, nogil=True)
def pack_row(out, row, centre, cov, extent, depth, opacity, colour, alpha_min):
    """Write the packed float32 row ``row`` of one visible Gaussian (layout: the column constants above)."""
    ca, cb, cc = cov[0], cov[1], cov[2]
    det = ca * cc - cb * cb
    out[row, U] = centre[0]
    out[row, V] = centre[1]
    out[row, CONIC_A] = cc / det
    out[row, CONIC_B] = -cb / det
    out[row, CONIC_C] = ca / det
    out[row, OPACITY] = opacity
    out[row, POWER_MIN] = math.log(alpha_min / opacity)
    out[row, RED] = colour[0]
    out[row, GREEN] = colour[1]
    out[row, BLUE] = colour[2]
    out[row, DEPTH] = depth
    out[row, SLOPE] = cb / cc
    out[row, WIDTH] = math.sqrt(det) / cc
    out[row, HALF_HEIGHT] = extent * math.sqrt(cc)


@nb.njit(cache=True, nogil=True)
def sh_colour(out, row, sh, i, degree, x, y, z):
    """Write into the colour columns of packed row ``row`` the colour of Gaussian ``i`` seen along the unit
    direction (x, y, z) from the camera centre to its mean: max(0, sum_k basis_k(dir) sh[i, k] + 0.5) per channel,
    with the basis up to ``degree`` (1 to 3) and ``sh[i]`` (K, 3) holding the degree-0 coefficient first.
    """
    xx, yy, zz = x * x, y * y, z * z
    xy, yz, xz = x * y, y * z, x * z
    b1, b2, b3 = -SH_C1 * y, SH_C1 * z, -SH_C1 * x
    b4, b5, b6 = SH_C2[0] * xy, SH_C2[1] * yz, SH_C2[2] * (2.0 * zz - xx - yy)
    b7, b8 = SH_C2[3] * xz, SH_C2[4] * (xx - yy)
    b9, b10 = SH_C3[0] * y * (3.0 * xx - yy), SH_C3[1] * xy * z
    b11, b12 = SH_C3[2] * y * (4.0 * zz - xx - yy), SH_C3[3] * z * (2.0 * zz - 3.0 * xx - 3.0 * yy)
    b13, b14 = SH_C3[4] * x * (4.0 * zz - xx - yy), SH_C3[5] * z * (xx - yy)
    b15 = SH_C3[6] * x * (xx - 3.0 * yy)
    for c in range(3):
        value = SH_C0 * sh[i, 0, c] + b1 * sh[i, 1, c] + b2 * sh[i, 2, c] + b3 * sh[i, 3, c]
        if degree > 1:
            value += (b4 * sh[i, 4, c] + b5 * sh[i, 5, c] + b6 * sh[i, 6, c] + b7 * sh[i, 7, c]
                      + b8 * sh[i, 8, c])
        if degree > 2:
            value += (b9 * sh[i, 9, c] + b10 * sh[i, 10, c] + b11 * sh[i, 11, c] + b12 * sh[i, 12, c]
                      + b13 * sh[i, 13, c] + b14 * sh[i, 14, c] + b15 * sh[i, 15, c])
        out[row, RED + c] = max(0.0, value + 0.5)


@nb.njit(cache=True, nogil=True, inline="always")
def tile_columns(packed, row, rect, band_top, band_bottom, tiles_x):
    """Return the range [first, end) of tile columns that packed Gaussian ``row``, whose tile rectangle is
    ``rect``, reaches in the pixel rows [band_top, band_bottom) (an empty range when none).

    A rectangle one tile wide is returned as it is: a tile it lists in vain only costs the rasteriser a test.
    """
    if rect[2] - rect[0] == 1:
        return rect[0], rect[2]
    v = packed[row, V]
    left, right = band_span(packed[row, U], packed[row, SLOPE], packed[row, WIDTH], packed[row, HALF_HEIGHT],
                            band_top + 0.5 - v - SLACK, band_bottom - 0.5 - v + SLACK)
    if left > right:
        return 0, 0
    first = max(0, int(math.floor((left - 0.5 - SLACK) / TILE)))
    end = min(tiles_x, int(math.floor((right - 0.5 + SLACK) / TILE)) + 1)
    return first, end


@nb.njit(cache=True, nogil=True)
def depth_order(depth):
    """Return the indices that sort the positive ``depth`` ascending, ties in index order.

    An LSD radix sort, byte by byte, of the float64 bit patterns (which order like the values for positive
    floats): the same order as ``np.argsort(depth, kind="stable")``, several times faster than numba's sorts.
    Written with plain loops: numba's generic array helpers (``max``, ``arange``, ``copy``) each cost a
    compile on an empty cache.
    """
    n = depth.shape[0]
    bits = depth.view(np.uint64)
    keys = np.empty(n, np.uint64)
    order = np.empty(n, np.int64)
    for i in range(n):
        keys[i] = bits[i]
        order[i] = i
    keys_out = np.empty(n, np.uint64)
    order_out = np.empty(n, np.int64)
    counts = np.empty(256, np.int64)
    mask = np.uint64(255)
    for byte in range(8):
        shift = np.uint64(8 * byte)
        counts[:] = 0
        for i in range(n):
            counts[(keys[i] >> shift) & mask] += 1
        if n == 0 or counts[(keys[0] >> shift) & mask] == n:
            continue
        start = 0
        for d in range(256):
            start, counts[d] = start + counts[d], start
        for i in range(n):
            d = (keys[i] >> shift) & mask
            keys_out[counts[d]] = keys[i]
            order_out[counts[d]] = order[i]
            counts[d] += 1
        keys, keys_out = keys_out, keys
        order, order_out = order_out, order
    return order


@nb.njit(cache=True, nogil=True)
def prepare_view(means, cov3d, extents, opacities, colours, sh, sh_degree, R, t, fx, fy, cx, cy, width, height,
                 consts):
    """Return (offsets, ids, packed) of one view: tile k (row by row) is reached by the Gaussians
    ``packed[ids[offsets[k]:offsets[k + 1]]]``, nearest first; ``packed`` has one row per visible Gaussian.

    Colours are ``colours`` (N, 3) when ``sh_degree`` is 0, else evaluated from ``sh`` (N, (sh_degree+1)^2, 3)
    for the view direction of each visible Gaussian.

    Releases the GIL, so threads can prepare several views at once.
    """
    n = means.shape[0]
    tiles_x = (width + TILE - 1) // TILE
    tiles_y = (height + TILE - 1) // TILE
    cov = np.empty((n, 3))
    centre = np.empty((n, 2))
    depth = np.empty(n)
    rect = np.empty((n, 4), np.int64)
    project(means, cov3d, extents, R, t, fx, fy, cx, cy, width, height, consts, cov, centre, depth, rect)
    visible = np.empty(n, np.int64)
    shown = 0
    for i in range(n):
        if rect[i, 2] > rect[i, 0]:
            visible[shown] = i
            shown += 1
    visible_depth = np.empty(shown)
    for rank in range(shown):
        visible_depth[rank] = depth[visible[rank]]
    order = np.empty(shown, np.int64)
    by_depth = depth_order(visible_depth)
    for rank in range(shown):
        order[rank] = visible[by_depth[rank]]
    packed = np.empty((order.shape[0], PACKED_COLUMNS), np.float32)
    counts = np.zeros(tiles_x * tiles_y + 1, np.int64)
    # the camera centre -R^T t
    ox = -(R[0, 0] * t[0] + R[1, 0] * t[1] + R[2, 0] * t[2])
    oy = -(R[0, 1] * t[0] + R[1, 1] * t[1] + R[2, 1] * t[2])
    oz = -(R[0, 2] * t[0] + R[1, 2] * t[1] + R[2, 2] * t[2])
    for rank in range(order.shape[0]):
        i = order[rank]
        pack_row(packed, rank, centre[i], cov[i], extents[i], depth[i], opacities[i], colours[i],
                 consts[ALPHA_MIN])
        if sh_degree > 0:
            dx, dy, dz = means[i, 0] - ox, means[i, 1] - oy, means[i, 2] - oz
            inv_norm = 1.0 / math.sqrt(dx * dx + dy * dy + dz * dz)
            sh_colour(packed, rank, sh, i, sh_degree, dx * inv_norm, dy * inv_norm, dz * inv_norm)
        for ty in range(rect[i, 1], rect[i, 3]):
            first, end = tile_columns(packed, rank, rect[i], ty * TILE, min(height, (ty + 1) * TILE), tiles_x)
            for tx in range(first, end):
                counts[ty * tiles_x + tx + 1] += 1
    offsets = np.empty(counts.shape[0], np.int64)
    fill = np.empty(counts.shape[0] - 1, np.int64)
    total = 0
    for k in range(counts.shape[0]):
        total += counts[k]
        offsets[k] = total
        if k < fill.shape[0]:
            fill[k] = total
    ids = np.empty(total, np.int32)
    for rank in range(order.shape[0]):
        i = order[rank]
        for ty in range(rect[i, 1], rect[i, 3]):
            first, end = tile_columns(packed, rank, rect[i], ty * TILE, min(height, (ty + 1) * TILE), tiles_x)
            for tx in range(first, end):
                k = ty * tiles_x + tx
                ids[fill[k]] = rank
                fill[k] += 1
    return offsets, ids, packed


@nb.njit(cache=True, nogil=True, fastmath=True)
def exp_neg(power):
    """Return exp(power) for a float32 ``power`` in [ln(1/255), 0], the range ``rasterise`` evaluates.

    A degree-6 Taylor polynomial of exp(power / 8), squared three times: relative error below 3e-4 there
    (tested against ``math.exp``), and about a quarter cheaper per splat than the libm call in the hot loop.
    """
    q = power * np.float32(0.125)
    e = np.float32(1.0) + q * (np.float32(1.0) + q * (np.float32(0.5) + q * (np.float32(1.0 / 6.0) + q * (
        np.float32(1.0 / 24.0) + q * (np.float32(1.0 / 120.0) + q * np.float32(1.0 / 720.0))))))
    e = e * e
    e = e * e
    return e * e


@nb.njit(cache=True, nogil=True, fastmath=True)
def rasterise(offsets, ids, packed, width, height, background, consts, first_tile, tile_step, out_rgb, out_depth):
    """Composite tiles first_tile, first_tile + tile_step, ... of a batch of views (``prepare_view``'s lists
    joined, tiles numbered view by view) front to back (alpha capped at ``consts[ALPHA_MAX]``, splats below
    ``consts[ALPHA_MIN]`` skipped, a pixel finished before its transmittance would fall below ``consts[T_MIN]``)
    into ``out_rgb`` (views, H, W, 3; colours are not clipped) and ``out_depth``.

    Splat by splat, each tile visits the pixel rows a splat's footprint reaches and stops once every pixel has
    terminated. Releases the GIL, so threads can share the tiles.
    """
    tiles_x = (width + TILE - 1) // TILE
    tiles_per_view = tiles_x * ((height + TILE - 1) // TILE)
    alpha_min = np.float32(consts[ALPHA_MIN])
    alpha_max = np.float32(consts[ALPHA_MAX])
    t_min = np.float32(consts[T_MIN])
    half = np.float32(0.5)
    one = np.float32(1.0)
    zero = np.float32(0.0)
    # Per-pixel state of the current tile, row-major; indexed with unsigned ints, which lets LLVM vectorise.
    trans = np.empty(TILE * TILE, np.float32)
    alive = np.empty(TILE * TILE, np.float32)
    acc_r = np.empty(TILE * TILE, np.float32)
    acc_g = np.empty(TILE * TILE, np.float32)
    acc_b = np.empty(TILE * TILE, np.float32)
    acc_d = np.empty(TILE * TILE, np.float32)
    for k in range(first_tile, offsets.shape[0] - 1, tile_step):
        view = k // tiles_per_view
        ty, tx = (k % tiles_per_view) // tiles_x, k % tiles_x
        y0, x0 = ty * TILE, tx * TILE
        rows, cols = min(height - y0, TILE), min(width - x0, TILE)
        trans[:] = one
        alive[:] = zero
        for r in range(rows):
            alive[r * TILE:r * TILE + cols] = one
        acc_r[:] = zero
        acc_g[:] = zero
        acc_b[:] = zero
        acc_d[:] = zero
        live = rows * cols
        for j in range(offsets[k], offsets[k + 1]):
            if live == 0:
                break
            g = ids[j]
            u, v = packed[g, U], packed[g, V]
            ca, cb, cc = packed[g, CONIC_A], packed[g, CONIC_B], packed[g, CONIC_C]
            opacity, power_min = packed[g, OPACITY], packed[g, POWER_MIN]
            red, green, blue, depth = packed[g, RED], packed[g, GREEN], packed[g, BLUE], packed[g, DEPTH]
            reach = packed[g, HALF_HEIGHT] + SLACK
            row_first = max(0, int(math.ceil(v - reach - 0.5)) - y0)
            row_end = min(rows, int(math.floor(v + reach - 0.5)) - y0 + 1)
            for r in range(row_first, row_end):
                dy = v - (np.float32(y0 + r) + half)
                stopped = 0
                # The whole tile row, branch-free, so that it vectorises: a pixel outside the footprint or the image,
                # or already finished, gets alpha 0, which changes nothing.
                for c in range(TILE):
                    i = np.uint64(r * TILE + c)
                    dx = u - (np.float32(x0 + c) + half)
                    power = -half * (ca * dx * dx + cc * dy * dy) - cb * dx * dy
                    alpha = min(alpha_max, opacity * exp_neg(min(zero, max(power_min, power))))
                    inside = (power <= zero) & (power >= power_min) & (alpha >= alpha_min)
                    alpha = alpha * alive[i] if inside else zero
                    t = trans[i]
                    next_t = t * (one - alpha)
                    stop = next_t < t_min
                    stopped += np.int64(stop)
                    alive[i] = zero if stop else alive[i]
                    w = zero if stop else alpha * t
                    acc_r[i] += red * w
                    acc_g[i] += green * w
                    acc_b[i] += blue * w
                    acc_d[i] += depth * w
                    trans[i] = t if stop else next_t
                live -= stopped
        for r in range(rows):
            for c in range(cols):
                i = r * TILE + c
                t = trans[i]
                out_rgb[view, y0 + r, x0 + c, 0] = acc_r[i] + t * background[0]
                out_rgb[view, y0 + r, x0 + c, 1] = acc_g[i] + t * background[1]
                out_rgb[view, y0 + r, x0 + c, 2] = acc_b[i] + t * background[2]
                out_depth[view, y0 + r, x0 + c] = acc_d[i] / (one - t) if t < np.float32(1.0 - 1e-6) else zero
