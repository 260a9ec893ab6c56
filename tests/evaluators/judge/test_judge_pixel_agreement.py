"""The maze judge's agreement report on the pixel evaluator's real output: synthetic generations scored by
``maze-envs eval-image``, judged through the local server, compared from the results JSON the evaluator wrote."""

import json

import pytest
from _llm_support import FAST_FLAGS

from maze_envs.cli import main
from maze_envs.core.jsonfiles import read_json
from maze_envs.core.mazefile import maze_from_dict
from maze_envs.core.render import ImageStyle, render_text
from maze_envs.evaluators.pixel.synthetic import write_synthetic_dataset
from maze_envs.llm import ModelServer
from maze_envs.tasks.spec import task_specs

CASES = ("correct", "wrong", "through_wall", "walls_changed", "missing_markers")
# What a careful judge says of each synthetic case: (valid route, reaches goal, wall crossing).
JUDGED = {"correct": (1, 1, 0), "missing_markers": (1, 1, 0), "wrong": (1, 0, 0), "through_wall": (0, 1, 1),
          "walls_changed": (0, 1, 0)}
# The pixel evaluator's gated verdict of each case: walls_changed fails the layout gate (wall IoU <= 0.8).
PIXEL_PASS = {"correct": 1, "missing_markers": 1, "wrong": 0, "through_wall": 0, "walls_changed": 0}


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    root = tmp_path_factory.mktemp("agree")
    specs = task_specs(["dfs", "wilson"], ["easy"], 5, 12)
    cases = write_synthetic_dataset(root, specs, style=ImageStyle(20, 5), image_cases=CASES)
    solution_dir = root / "data" / "solution"
    image_dir = root / "image_results" / "synthetic" / "easy_round1"
    assert main(["eval-image", "--input_dir", str(image_dir), "--solution_dir", str(solution_dir),
                 "--output_dir", str(root / "pixel"), "--model_name", "synthetic", "--no_visualizations",
                 "--log_dir", str(root / "logs")]) == 0
    pixel_file = root / "pixel" / "evaluation_results_round1_latest.json"
    mazes = {}
    for line in (solution_dir / "metadata.jsonl").read_text().splitlines():
        record = json.loads(line)
        mazes[render_text(maze_from_dict(record["maze"]))] = cases[f"{record['id']}_targeted_solution.png"]
    assert len(mazes) == 10  # the judge below tells the tasks apart by their text maze
    return root, image_dir, solution_dir, pixel_file, mazes


def test_agreement_reads_the_pixel_evaluators_results_file(scored):
    root, image_dir, solution_dir, pixel_file, mazes = scored

    def judge(request):
        text = request.text()
        case = next(c for maze, c in mazes.items() if maze in text)
        valid, goal, wall = JUDGED[case]
        return (f"VALID_ROUTE: {valid}\nREACHES_GOAL: {goal}\nWALL_CROSSING: {wall}\nACTION_REFLECTION: 0\n"
                f"EXPLANATION: {case}")

    pixel = {r["filename"]: r for r in read_json(pixel_file)["results"]}
    assert len(pixel) == 10 and not any("error" in r for r in pixel.values())
    with ModelServer(judge) as server:
        assert main(["judge", "--task", "maze", "--input-dir", str(image_dir), "--tasks", str(solution_dir),
                     "--model", "judge", "--base-url", server.base_url, "--no-cache", "--workers", "2",
                     "--pixel-results", str(pixel_file), "--output-dir", str(root / "judge"), *FAST_FLAGS]) == 0
    summary = read_json(root / "judge" / "summary.json")
    agreement = summary["agreement"]
    assert agreement["pixel_results"] == str(pixel_file) and agreement["judged_without_pixel_result"] == []
    passes = sum(PIXEL_PASS[c] for c in mazes.values())
    assert agreement["success"]["matrix"] == [[10 - passes, 0], [0, passes]]
    assert agreement["success"]["cohen_kappa"] == pytest.approx(1.0)
    crossings = sum(bool(r["wall_crossing_detected"]) for r in pixel.values())
    assert crossings == sum(c == "through_wall" for c in mazes.values())
    assert agreement["wall_crossing"]["matrix"] == [[10 - crossings, 0], [0, crossings]]


def test_a_bad_pixel_results_file_fails_before_any_request(scored, tmp_path, capsys):
    root, image_dir, solution_dir, _, _ = scored
    (tmp_path / "summary_only.json").write_text(json.dumps({"summary": {"wall_crossing": {"count": 0}}}))
    for bad in (tmp_path / "missing.json", tmp_path / "summary_only.json"):
        with ModelServer(lambda request: "VALID_ROUTE: 1") as server:
            assert main(["judge", "--task", "maze", "--input-dir", str(image_dir), "--tasks", str(solution_dir),
                         "--model", "judge", "--base-url", server.base_url, "--no-cache", "--pixel-results", str(bad),
                         "--output-dir", str(tmp_path / "out"), *FAST_FLAGS]) == 2
            assert server.request_count == 0
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and str(bad) in err
