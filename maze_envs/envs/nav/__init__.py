"""Gaussian-splat navigation: scenes on disk, PLY I/O, the embedded CPU splat renderer, the render server and client.

Heavy pieces are imported lazily: numba (``maze-envs[nav]``) only when the CPU renderer first runs, torch and
gsplat (``maze-envs[gpu]``) only for ``--backend gsplat``.
"""
