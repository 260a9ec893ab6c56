"""Demo step of Gaussian-splat navigation: one small procedural scene, one view rendered in-process."""

from __future__ import annotations

from pathlib import Path

from .client import LocalGaussianRenderer
from .procedural import SceneParams, generate_nav_scenes
from .scene import GaussianScene


def demo_step(out_dir: Path, seed: int) -> str:
    """Return a summary after writing a 4x4 maze scene under ``out_dir/nav_scenes`` and rendering its first start view."""
    root = out_dir / "nav_scenes"
    summary = generate_nav_scenes(root, 1, 4, 4, seed=seed, params=SceneParams(num_landmarks=2, num_trajectories=2))[0]
    scene = GaussianScene(root)
    episode, task = next(scene.iter_tasks())
    renderer = LocalGaussianRenderer(root, num_views=1)
    renderer.render_at_pose(scene.get_gaussian_pose(task.start_pose), episode.episode_id,
                            save_dir=out_dir / "nav_render", image_id=0)
    return (f"nav: scene {episode.episode_id} with {summary['num_gaussians']} Gaussians and {episode.num_tasks} "
            f"trajectories (goal {task.goal_label!r}, {task.label['shortest_path_length']:.1f} m); front view "
            f"rendered on the CPU to {out_dir / 'nav_render' / '0_front.jpg'}")
