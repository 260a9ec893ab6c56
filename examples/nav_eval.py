"""The oracle navigation agent in procedural Gaussian-splat scenes, evaluated by ``evaluators.nav``.

    python3 examples/nav_eval.py [OUT_DIR]        # default ./nav-eval-example

1. writes 2 procedural 3x3-maze splat scenes to OUT_DIR/scenes (the embedded CPU renderer draws them: extra
   ``nav``, no server, no GPU);
2. plays every point-goal task with ``OraclePointGoalAgent`` (A* on the occupancy map) through the evaluation
   loop, one ``OUT_DIR/run/<episode>/<task>/result.json`` per task;
3. writes the metrics (``OUT_DIR/run/eval_summary.json``) and a trajectory picture per scene
   (``OUT_DIR/run/<episode>/trajectories.png``), and prints SR and SPL.

Everything stays in OUT_DIR. The same from the command line: ``maze-envs nav-eval --task point --agent-module
maze_envs.agents.nav.oracle:OraclePointGoalAgent --provide-occ-map --scenes 2 --maze-size 3x3 --output-dir OUT_DIR``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maze_envs.agents.nav.oracle import OraclePointGoalAgent  # noqa: E402
from maze_envs.envs.nav.config import make_eval_config  # noqa: E402
from maze_envs.envs.nav.world import camera_for_size  # noqa: E402
from maze_envs.evaluators.nav.loop import ensure_procedural_scenes, run_evaluation  # noqa: E402
from maze_envs.evaluators.nav.pictures import draw_run  # noqa: E402
from maze_envs.evaluators.nav.point_goal.metrics import analyze_and_report  # noqa: E402


def main(out: Path) -> int:
    """Run the three steps under ``out``; return the exit status."""
    scenes = ensure_procedural_scenes(out / "scenes", count=2, rows=3, cols=3, seed=0)
    print(f"1. scenes in {scenes}")
    config = make_eval_config("outdoor", provide_occ_map=True, camera_config=camera_for_size(96, 96),
                              save_render_images=False)
    outcome = run_evaluation(OraclePointGoalAgent(), config, scenes, run_dir=out / "run")
    print(f"2. {outcome.played} tasks played into {outcome.run_dir} ({outcome.errors} errors)")
    overall = analyze_and_report(outcome.run_dir, mode="outdoor", quiet=True)["overall"]
    pictures = draw_run(outcome.run_dir)
    print(f"3. SR {overall['success_rate']:.2f}, SPL_NEW {overall['spl_new']:.2f}; "
          f"{len(pictures)} trajectory pictures, e.g. {pictures[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("nav-eval-example")))
