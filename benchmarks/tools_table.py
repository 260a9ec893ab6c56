"""The tools mode's table of the local server's policies: oracle, explorer and random, side by side, on 5x5, 9x9 and
13x13 mazes in both variants (full, partial), each through the real ``openai`` client's tool-calling path.

Prints, per variant, size and policy: the success rate, the mean function calls, invalid calls, cells moved, path
efficiency, revisits per cell, the longest revisit run and the share of trials that ended in a loop, then each
policy's calls as a ratio of the oracle's.

    python3 benchmarks/tools_table.py [--count 5] [--max-calls 200] [--sizes 5x5 9x9 13x13]
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import replace
from pathlib import Path

from maze_envs.evaluators.bench.config import BenchConfig
from maze_envs.evaluators.bench.mazes import prepare_mazes
from maze_envs.evaluators.bench.run import run_bench
from maze_envs.llm import ModelServer, load_policy, local_client
from maze_envs.runs import RunOptions

POLICIES = ("oracle", "explorer", "random")
COLUMNS = (("success", "success %"), ("function_calls", "calls"), ("invalid_calls", "invalid"),
           ("cell_moves", "moves"), ("path_efficiency", "path eff."), ("revisits_per_cell", "revisits/cell"),
           ("longest_revisit_run", "longest revisit run"), ("ended_in_loop", "ended in loop %"))


def run_policy(policy: str, config: BenchConfig, mazes: dict, out: Path) -> dict:
    """Return the summary's statistics by size of ``policy`` playing ``config`` on the local server."""
    with ModelServer(load_policy(policy), model_name=policy, keep_requests=False) as server:
        client = local_client(server.base_url, policy)
        run = run_bench(replace(config, models=(policy,), output_dir=str(out / policy)), mazes, {policy: client},
                        options=RunOptions(workers=1))
    return run.summary["models"][policy]


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5, help="mazes per size (default 5)")
    parser.add_argument("--max-calls", type=int, default=200, help="function calls per trial (default 200)")
    parser.add_argument("--sizes", nargs="+", default=["5x5", "9x9", "13x13"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        base = BenchConfig(mode="tools", models=POLICIES, sizes=tuple(args.sizes), generate_mazes=True,
                           maze_count=args.count, mazes_dir=str(root / "mazes"), max_calls=args.max_calls,
                           seed=0).validated()
        mazes = prepare_mazes(base)
        print(f"tools mode, local server policies; {args.count} mazes per size, 1 trial each, max {args.max_calls} "
              "function calls, moves up to 4 x the grid's cells; means over every trial")
        for variant in ("full", "partial"):
            config = replace(base, variant=variant)
            stats = {p: run_policy(p, config, mazes, root / variant) for p in POLICIES}
            print(f"\nvariant {variant}")
            print(f"{'size':>6} {'policy':>9} " + " ".join(f"{label:>{max(len(label), 7)}}" for _, label in COLUMNS)
                  + "  calls / oracle")
            for size in args.sizes:
                oracle_calls = stats["oracle"][size]["function_calls"]["mean"]
                for policy in POLICIES:
                    row = stats[policy][size]
                    cells = " ".join(f"{row[name]['mean']:>{max(len(label), 7)}.2f}" for name, label in COLUMNS)
                    ratio = row["function_calls"]["mean"] / oracle_calls
                    print(f"{size:>6} {policy:>9} {cells}  {ratio:.1f}x")


if __name__ == "__main__":
    main()
