"""A small LLM maze benchmark (text2d) against the local embedded model server, through the real ``openai`` client.

    python3 examples/bench.py [OUT_DIR]           # default ./bench-example

1. generates 2 benchmark mazes per size (5x5, 9x9) into OUT_DIR/mazes;
2. runs 2 trials per maze, each under its own anti-cheat presentation, against the local server's oracle policy
   (an OpenAI-compatible server started in-process: no API key, no network);
3. prints the success rate and total score per size; ``OUT_DIR/results.jsonl`` (one line per trial),
   ``summary.json`` and ``report.html`` stay in OUT_DIR.

A hosted model instead: ``maze-envs bench --models MODEL --base-url URL --sizes 5x5 9x9 --generate-mazes
--mazes-dir OUT_DIR/mazes --output-dir OUT_DIR`` (the key from OPENAI_API_KEY).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maze_envs.evaluators.bench.config import BenchConfig  # noqa: E402
from maze_envs.evaluators.bench.mazes import prepare_mazes  # noqa: E402
from maze_envs.evaluators.bench.run import run_bench  # noqa: E402
from maze_envs.llm import ModelServer, OraclePolicy, local_client  # noqa: E402

MODEL = "maze-envs-local"


def main(out: Path) -> int:
    """Run the three steps under ``out``; return the exit status."""
    config = BenchConfig(mode="text2d", models=(MODEL,), sizes=("5x5", "9x9"), trials=2, mazes_dir=str(out / "mazes"),
                         output_dir=str(out), generate_mazes=True, maze_count=2, seed=0).validated()
    mazes = prepare_mazes(config)
    print(f"1. {sum(map(len, mazes.values()))} mazes in {config.mazes_dir}")
    with ModelServer(OraclePolicy(), model_name=MODEL, policy_name="oracle") as server:
        client = local_client(server.base_url, MODEL, timeout=10)
        run = run_bench(config, mazes, {MODEL: client})
    print(f"2. {len(run.records)} trials in {run.results_path}")
    for size, stats in run.summary["models"][MODEL].items():
        print(f"3. {size}: success {stats['success']['mean']:.0f}%, total {stats['total']['mean']:.1f} "
              f"over {stats['trials']} trials")
    print(f"report: {run.report_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("bench-example")))
