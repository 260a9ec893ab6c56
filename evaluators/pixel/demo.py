"""Demo step of the pixel evaluators: synthetic generations of core tasks, scored offline."""

from __future__ import annotations

from pathlib import Path

from maze_envs.core.render import ImageStyle
from maze_envs.core.tasks import task_specs

from .batch import BatchConfig, evaluate_batch
from .image import ImageParams
from .synthetic import write_synthetic_dataset
from .video import VideoParams


def demo_step(out_dir: Path, seed: int) -> str:
    """Return a summary after scoring synthetic images and videos of easy core tasks under ``out_dir/pixel_eval``."""
    root = out_dir / "pixel_eval"
    specs = task_specs(["dfs"], ["easy"], 4, seed)
    write_synthetic_dataset(root, specs, style=ImageStyle(24, 6), image_cases=("correct", "wrong", "through_wall",
                            "missing_markers"), video_cases=("correct", "detour", "through_wall", "still"), frames=36)
    lines = []
    for kind, params in (("image", ImageParams()), ("video", VideoParams(num_frames=36))):
        config = BatchConfig(kind=kind, solution_dir=root / "data" / "solution", params=params, model_name="synthetic",
                             input_dir=root / f"{kind}_results" / "synthetic" / "easy_round1",
                             output_dir=root / f"{kind}_evaluation_results" / "synthetic")
        summary, final, _ = evaluate_batch(config)
        gated = summary.get("gated_metrics", {}).get("overall_score_gated_count")
        lines.append(f"{summary['evaluated']} {kind}s (crossings {summary['wall_crossing']['count']}, mean target "
                     f"{summary['path_matching']['mean_target_achievement']:.2f}"
                     + (f", gated passes {gated}" if gated is not None else "") + ")")
    return f"pixel eval: scored {' and '.join(lines)}; results in {root}"
