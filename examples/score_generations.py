"""From a fresh clone to an agreement report: tasks, synthetic generations, pixel scores, a judge, agreement.

    python3 examples/score_generations.py [OUT_DIR]        # default ./score-generations

1. writes 8 easy maze tasks (puzzle, solution, metadata.jsonl) and one synthetic "model output" image per task
   (correct routes, wrong routes, routes through a wall, changed walls) under OUT_DIR;
2. scores them with the pixel evaluator (``maze-envs eval-image``);
3. judges them through the real ``openai`` client against the local embedded model server, whose stand-in judge
   (``evaluators.judge.synthetic.case_judge``) answers what a careful VLM would say of each synthetic case: it
   knows the case of each task by its text maze, so the agreement shows what the report looks like, not how good
   a real judge is;
4. prints the agreement (Cohen's kappa) between the two evaluators.

Everything stays in OUT_DIR: ``image_results/`` (the generations), ``data/solution/`` (the tasks), ``pixel/``
(pixel results), ``judge/`` (judge results and the summary with the agreement report), ``logs/``. No API key,
no network. With a hosted model instead, run step 3 as
``maze-envs judge --task maze --input-dir OUT_DIR/image_results/synthetic/easy_round1 --tasks
OUT_DIR/data/solution --model MODEL --base-url URL --pixel-results OUT_DIR/pixel/evaluation_results_round1_latest.json
--output-dir OUT_DIR/judge``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maze_envs.cli import main as maze_envs  # noqa: E402
from maze_envs.core.jsonfiles import read_json  # noqa: E402
from maze_envs.core.render import ImageStyle  # noqa: E402
from maze_envs.evaluators.judge.synthetic import case_judge, cases_by_maze  # noqa: E402
from maze_envs.evaluators.pixel.synthetic import write_synthetic_dataset  # noqa: E402
from maze_envs.llm import ModelServer  # noqa: E402
from maze_envs.tasks.spec import task_specs  # noqa: E402

CASES = ("correct", "wrong", "through_wall", "walls_changed")


def main(out: Path) -> int:
    """Run the four steps under ``out``; return the exit status."""
    cases = write_synthetic_dataset(out, task_specs(["dfs", "wilson"], ["easy"], 4, seed=5), style=ImageStyle(24, 6),
                                    image_cases=CASES)
    solutions, generations = out / "data" / "solution", out / "image_results" / "synthetic" / "easy_round1"
    print(f"1. wrote {len(cases)} tasks and synthetic generations under {out}")

    status = maze_envs(["eval-image", "--input-dir", str(generations), "--solution-dir", str(solutions),
                        "--output-dir", str(out / "pixel"), "--model-name", "synthetic",
                        "--log-dir", str(out / "logs")])
    if status:
        return status
    pixel_results = out / "pixel" / "evaluation_results_round1_latest.json"
    print(f"2. pixel scores in {pixel_results}")

    judge = case_judge(cases_by_maze(solutions, cases))
    with ModelServer(judge, model_name="maze-envs-local", policy_name="case_judge") as server:
        status = maze_envs(["judge", "--task", "maze", "--input-dir", str(generations), "--tasks", str(solutions),
                            "--model", "maze-envs-local", "--base-url", server.base_url, "--no-cache",
                            "--pixel-results", str(pixel_results), "--output-dir", str(out / "judge")])
    if status:
        return status
    agreement = read_json(out / "judge" / "summary.json")["agreement"]["success"]
    print(f"3. judge results in {out / 'judge'}")
    print(f"4. agreement on success: n={agreement['n']}, Cohen's kappa {agreement['cohen_kappa']}, "
          f"confusion matrix {agreement['matrix']} (rows: pixel fail/pass, columns: judge fail/pass)")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("score-generations")))
