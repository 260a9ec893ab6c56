"""Generate a small maze scene, serve it over HTTP on a free loopback port, and render three views of a task start.

Run: python3 examples/nav_render_server.py [OUT_DIR]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maze_envs.nav import GaussianRenderer, GaussianScene, SceneParams, generate_nav_scenes  # noqa: E402
from maze_envs.serving.render import make_server, serve_in_thread  # noqa: E402


def main(out: Path) -> None:
    generate_nav_scenes(out / "scenes", 1, 4, 4, seed=0, params=SceneParams(num_landmarks=2, num_trajectories=2))
    scene = GaussianScene(out / "scenes")
    episode, task = next(scene.iter_tasks())
    print(f"{episode.episode_id}/{task.task_id}: go to {task.goal_label!r}, "
          f"shortest path {task.label['shortest_path_length']:.1f} m")

    server = make_server(out / "scenes", port=0, backend="cpu")  # 127.0.0.1, a free port
    serve_in_thread(server)
    try:
        renderer = GaussianRenderer(server.url + "/render_gs", timeout=60)
        pose = scene.get_gaussian_pose(task.start_pose)
        images = renderer.render_at_pose(pose, episode.episode_id, save_dir=out / "views", image_id=0)
        print("rendered", [im.size for im in images], "to", out / "views")
        start_free = not scene.check_point_collision_status(task.start_pose, episode)
        print("start pose is free:", start_free)
    finally:
        server.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("nav-example"))
