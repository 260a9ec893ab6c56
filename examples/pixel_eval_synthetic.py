"""Score a synthetic model-like image and video of one maze with the offline pixel evaluators.

    python3 examples/pixel_eval_synthetic.py [OUT_DIR]        # default ./pixel-eval-example

Renders a 7x7 maze's puzzle and solution, draws a blue route that cuts through a wall (letterboxed
into 1280x720 and JPEG-compressed, as an image model might return it), writes a 48-frame MP4 of a
green marker that takes a detour, and prints the key metrics of both. OUT_DIR keeps the video and the two
2x2 visualisations.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maze_envs.core.generators import generate  # noqa: E402
from maze_envs.core.render import ImageStyle  # noqa: E402
from maze_envs.evaluators.pixel import synthetic  # noqa: E402
from maze_envs.evaluators.pixel.image import evaluate_image  # noqa: E402
from maze_envs.evaluators.pixel.video import evaluate_video  # noqa: E402


def main(out_dir: Path) -> None:
    maze = generate(7, 7, "wilson", seed=1)
    task = synthetic.make_task(maze, ImageStyle(cell_px=32, wall_px=8))

    generated = synthetic.reframe(synthetic.image_case(task, "through_wall"), (1280, 720), letterbox=True,
                                  jpeg_quality=80)
    image = evaluate_image(generated, task.solution, visualization=out_dir / "image_evaluation.png")
    print(f"image: wall crossing {image.wall_crossing_detected} ({image.crossed_wall_segments} wall cut), "
          f"target achievement {image.target_achievement:.2f}, overall {image.overall_score:.3f}")

    video_path = synthetic.write_marker_video(out_dir / "detour.mp4", task, synthetic.video_route(maze, "detour"),
                                              frames=48)
    video = evaluate_video(video_path, task.solution, num_frames=48, visualization=out_dir / "video_evaluation.png")
    print(f"video: reflection {video.has_reflection} ({video.loop_count} revisits), target achievement "
          f"{video.target_achievement:.2f}, overall_score_gated {video.overall_score_gated}")
    print(f"visualisations in {out_dir}")


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("pixel-eval-example")
    target.mkdir(parents=True, exist_ok=True)
    main(target)
