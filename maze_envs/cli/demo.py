"""``maze-envs demo``: every part of the suite once on embedded defaults (no network, no API key, no GPU),
ending in ``OUT/report.html`` and a summary table."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``demo`` subcommand."""
    parser = sub.add_parser(
        "demo", help="run every part of the suite once on embedded defaults and write a report",
        description="Write datasets, play the baseline agents on every registered env (the GaussianNav envs "
                    "through nav-eval on the embedded renderer), train a short PPO run, run a small LLM benchmark "
                    "and score synthetic generations with the pixel evaluator and a judge on the local model server, "
                    "run the cross-modal suite (maze-envs suite), all offline; then write OUT/report.html and print a "
                    "summary table.")
    parser.add_argument("--out", default="maze-envs-demo", help="output directory (default ./maze-envs-demo)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0); the same seed gives the same report")
    parser.add_argument("--quick", action="store_true", help="the smallest settings (fewer episodes, scenes, trials)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the demo (``maze_envs.demo.run_demo``) into ``--out``, printing each step's line as it ends, then the
    summary table and where the report is; return 0."""
    from maze_envs.demo import DemoSettings, run_demo, summary_table

    settings = DemoSettings.quick(args.seed) if args.quick else DemoSettings(seed=args.seed)
    run = run_demo(args.out, settings, on_step=lambda outcome: print(outcome.line, flush=True))
    print()
    print(summary_table(run.outcomes))
    print(f"\nreport: {run.report}")
    return 0
