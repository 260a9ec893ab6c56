"""``maze-envs demo``: every part of the suite once on embedded defaults (no network, no API key, no GPU),
ending in ``OUT/report.html`` and a summary table."""

from __future__ import annotations

import argparse
import time

from maze_envs.core.atomic import ensure_directory
from maze_envs.core.errors import MissingExtraError


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


def summary_table(outcomes) -> str:
    """Return the text table printed at the end: every step's seconds and summary, then success by env and agent."""
    lines = [f"{'step':<12} {'seconds':>7}  result", "-" * 100]
    lines += [f"{o.name:<12} {o.seconds:>7.1f}  {o.line}" for o in outcomes]
    rows = [row for o in outcomes if o.result is not None for row in getattr(o.result, "rows", ())]
    if rows:
        lines += ["", f"{'env':<26} {'agent':<9} {'reached':>8} {'success %':>9} {'mean actions':>12} {'SPL':>5} "
                      f"{'path eff.':>9}", "-" * 84]
        lines += [f"{r.env_id:<26} {r.agent:<9} {f'{r.successes}/{r.episodes}':>8} {100 * r.success_rate:>9.0f} "
                  f"{r.mean_steps:>12.1f} {'-' if r.spl is None else f'{r.spl:.2f}':>5} "
                  f"{'-' if r.path_efficiency is None else f'{r.path_efficiency.mean:.2f}':>9}" for r in rows]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run each demo step in order (a step whose extra is missing is skipped with a note), write the report and
    print the summary table; return 0."""
    from maze_envs.core.progress import progress

    from .demo_report import write_report
    from .demo_steps import DEMO_STEPS, DemoSettings, StepOutcome

    settings = DemoSettings.quick(args.seed) if args.quick else DemoSettings(seed=args.seed)
    out = ensure_directory(args.out, "out")
    outcomes = []
    for name, step in progress(DEMO_STEPS, desc="demo"):
        start = time.perf_counter()
        try:
            result, note = step(out, settings), None
        except MissingExtraError as exc:
            result, note = None, f"skipped, {exc}"
        outcomes.append(StepOutcome(name, result, note, time.perf_counter() - start))
        print(outcomes[-1].line, flush=True)
    report = write_report(out / "report.html", outcomes, settings)
    print()
    print(summary_table(outcomes))
    print(f"\nreport: {report}")
    return 0
