"""Navigation world model (no Gymnasium): scenes on disk, PLY I/O, the embedded CPU splat renderer, procedural
scenes, the in-process render service and the render client, and the agent interface (``interface``: what an
agent sees and answers, shared by the evaluator and the agents above). The HTTP render server is
``maze_envs.serving.render``.

Heavy pieces are imported lazily: numba (``maze-envs[nav]``) only when the CPU renderer first runs, torch and
gsplat (``maze-envs[gpu]``) only for ``--backend gsplat``.
"""

from .camera import CameraConfig
from .client import GaussianRenderer, LocalGaussianRenderer
from .errors import NavDataError, NavDependencyError, RenderFailureError, RenderRequestError
from .ply import GaussianCloud, read_ply, write_ply
from .procedural import SceneParams, write_scene
from .scene import Episode, GaussianScene, Task

__all__ = ["CameraConfig", "Episode", "GaussianCloud", "GaussianRenderer", "GaussianScene", "LocalGaussianRenderer",
           "NavDataError", "NavDependencyError", "RenderFailureError", "RenderRequestError", "SceneParams", "Task",
           "read_ply", "write_ply", "write_scene"]
