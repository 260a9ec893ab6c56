"""``maze-envs bench``: the LLM maze benchmark (MazeBench's text2d, image2d, ai and partial-observe modes, and the
tools mode, where the model moves by function calls) for several models (or baselines), sizes and trials on the run
engine, with a summary and an HTML report."""

from __future__ import annotations

import argparse
import contextlib
from dataclasses import fields

from maze_envs.cli.protocol_flag import add_protocol_flag
from maze_envs.cli.run_flags import DeprecatedFlag, add_run_flags, run_options
from maze_envs.core.generators import GENERATORS
from maze_envs.core.words import counted
from maze_envs.evaluators.bench.config import MODES, START_GOAL, VARIANTS, BenchConfig
from maze_envs.evaluators.bench.scores import SCORINGS
from maze_envs.protocols import load, protocol

from .model_flags import add_model_flags, model_client

DEFAULTS = BenchConfig()
# Every benchmark setting is a flag of the same name (None: not given, so the environment and config files decide).
SETTINGS = tuple(f.name for f in fields(BenchConfig))


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``bench`` subcommand."""
    parser = sub.add_parser(
        "bench", help="benchmark chat models on mazes (text2d, image2d, ai, partial-observe, tools)",
        description="Run every model on every maze of every size, TRIALS times, each trial under its own random "
                    "presentation (symmetry, symbols, nonce). In the ai and partial-observe modes a model plays "
                    "the maze move by move, and the models baseline:oracle, baseline:random and "
                    "baseline:explorer (partial-observe) play without a model. In the tools mode the model moves "
                    "by function calls (move, and look in --variant partial); --local-policy oracle, explorer or "
                    "random play it offline. "
                    "Settings: flags > environment > config/local.yaml "
                    "> config/config.yaml (MazeBench's keys). Writes OUTPUT_DIR/results.jsonl (one line per trial, "
                    "--resume continues), summary.json and report.html.")
    parser.add_argument("--mode", choices=MODES, help=f"text2d, image2d, ai (full map, move by move), "
                                                      f"partial-observe or tools (function calls; default "
                                                      f"{DEFAULTS.mode})")
    parser.add_argument("--models", nargs="+", metavar="MODEL", help="model names (config: model/models; "
                                                                     "env MAZE_ENVS_MODEL)")
    parser.add_argument("--sizes", nargs="+", metavar="HxW", help="benchmark grid sizes, e.g. 5x5 9x9 15x15")
    parser.add_argument("--trials", type=int, help=f"trials per model and maze (default {DEFAULTS.trials})")
    parser.add_argument("--mazes-dir", dest="mazes_dir",
                        help=f"directory of <size>/maze_<H>x<W>_<i>.json (default {DEFAULTS.mazes_dir})")
    parser.add_argument("--output-dir", dest="output_dir", help=f"where results go (default {DEFAULTS.output_dir})")
    parser.add_argument("--config", help="YAML config (default config/config.yaml); config/local.yaml beside it "
                                         "overrides it")
    add_protocol_flag(parser, "bench", default=None)
    parser.add_argument("--scoring", choices=SCORINGS, help=f"MazeBench's weighting: v1 (S,Q,O) or v2 (S,Q,O,P; "
                                                           f"default {DEFAULTS.scoring})")
    parser.add_argument("--no-anti-cheat", dest="anti_cheat", action="store_const", const=False,
                        help="show the published mazes as they are (no symmetry, symbols or nonce)")
    parser.add_argument("--temperature", type=float, help=f"sampling temperature (default {DEFAULTS.temperature})")
    parser.add_argument("--max-tokens", dest="max_tokens", type=int,
                        help=f"reply token limit (default {DEFAULTS.max_tokens})")
    play = parser.add_argument_group("ai, partial-observe and tools budgets")
    play.add_argument("--max-calls", dest="max_calls", type=int,
                      help=f"API calls per trial; function calls in the tools mode (default {DEFAULTS.max_calls})")
    play.add_argument("--max-steps", dest="max_calls", type=int, action=DeprecatedFlag, new="--max-calls")
    play.add_argument("--max-moves", dest="max_moves", type=int,
                      help="cells moved per trial, counted apart from API calls (default 4 x the grid's cells)")
    play.add_argument("--max-no-exploration-steps", dest="max_no_exploration_steps", type=int,
                      help="stop (failed) after this many decisions in a row reach no new cell "
                           f"(default {DEFAULTS.max_no_exploration_steps})")
    play.add_argument("--visibility", type=int,
                      help=f"partial-observe sight radius k in cells (default {DEFAULTS.visibility})")
    play.add_argument("--variant", choices=VARIANTS, help="tools mode: full (the maze drawn once) or partial "
                                                          f"(line-of-sight windows; default {DEFAULTS.variant})")
    play.add_argument("--memory", type=int, help="past turns recalled in each prompt, with their feedback "
                                                 f"(0 none, -1 all; default {DEFAULTS.memory})")
    play.add_argument("--explored-map", dest="explored_map", action="store_const", const=True,
                      help="partial-observe prompts also show the map explored so far")
    gen = parser.add_argument_group("maze generation")
    gen.add_argument("--generate-mazes", dest="generate_mazes", action="store_const", const=True,
                     help="generate MAZE_COUNT mazes per size first (into --maze-output-dir or --mazes-dir)")
    gen.add_argument("--maze-output-dir", dest="maze_output_dir", help="where generated mazes go")
    gen.add_argument("--maze-count", dest="maze_count", type=int,
                     help=f"mazes per size to generate (default {DEFAULTS.maze_count})")
    gen.add_argument("--seed", type=int,
                     help=f"base seed: maze i uses SEED+i; trial seeds derive from it (default {DEFAULTS.seed})")
    gen.add_argument("--algorithm", choices=list(GENERATORS), help=f"generator (default {DEFAULTS.algorithm})")
    gen.add_argument("--start-goal", dest="start_goal", choices=START_GOAL, help=f"default {DEFAULTS.start_goal}")
    gen.add_argument("--cell-px", dest="cell_px", type=int,
                     help=f"image2d pixels per cell (default {DEFAULTS.cell_px})")
    add_model_flags(parser)
    add_run_flags(parser, resume_help="keep the trials already in OUTPUT_DIR/results.jsonl and run the rest")
    parser.set_defaults(func=run, workers=None)


@contextlib.contextmanager
def _clients(args: argparse.Namespace, models, base_url, provider):
    """Yield a client per chat model (one local server per model with --local-policy); baselines have none."""
    from maze_envs.evaluators.bench.players import baseline_name

    with contextlib.ExitStack() as stack:
        clients = {}
        for model in models:
            if baseline_name(model) is not None:
                continue
            each = argparse.Namespace(**{**vars(args), "model": model, "base_url": base_url, "provider": provider})
            clients[model] = stack.enter_context(model_client(each))
        yield clients


def run(args: argparse.Namespace) -> int:
    """Run the benchmark, print the headline per model and size and where the report is; return 0."""
    from maze_envs.agents.players import PLAYERS
    from maze_envs.evaluators.bench.config import resolve_config
    from maze_envs.evaluators.bench.mazes import prepare_mazes
    from maze_envs.evaluators.bench.run import run_bench

    flags = {name: getattr(args, name, None) for name in SETTINGS}
    if args.model and not args.models:
        flags["models"] = [args.model]
    if args.local_policy and not flags["models"]:
        flags["models"] = ["maze-envs-local"]
    config = resolve_config(flags, config=args.config)
    mazes = prepare_mazes(config)
    options = run_options(args, workers=config.workers)
    with _clients(args, config.models, config.base_url, config.provider) as clients:
        result = run_bench(config, mazes, clients, options=options, players=PLAYERS)
    for model, sizes in result.summary["models"].items():
        for size, stats in sizes.items():
            print(f"{model} {size}: success {stats['success']['mean']:.1f}% total {stats['total']['mean']:.2f} "
                  f"over {counted(stats['trials'], 'trial')} ({counted(stats['errors'], 'error')})")
    local = " [answers from the local embedded server, not a hosted model]" \
        if result.summary["local_embedded_server"] else ""
    headline = protocol(config.protocol, "bench").bench.headline
    for line in load(headline)(result.summary) if headline is not None else ():
        print(line)
    print(f"bench {config.mode} ({config.protocol}, {config.scoring}): report {result.report_path}, summary "
          f"{result.summary_path}{local}")
    return 0

