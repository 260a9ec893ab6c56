"""``maze-envs suite``: one maze set, every modality, one report (``evaluators.suite``)."""

from __future__ import annotations

import argparse

from maze_envs.cli.run_flags import add_run_flags, run_options


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``suite`` subcommand."""
    from maze_envs.evaluators.suite import DEFAULT_MODELS, MODALITIES, SuiteConfig
    from maze_envs.llm.config import PROVIDERS

    defaults = SuiteConfig()
    parser = sub.add_parser(
        "suite", help="pose one maze set in every modality and write one report that tells perception from planning",
        description="Build COUNT mazes per size and run every player on each in every modality it can play: "
                    "one-shot text and image prompts, move-by-move play on the full map (text, image) and under "
                    "partial view, baseline agents on the grid env, the layout as a 3D splat scene (nav-eval), and "
                    "scoring of image/video generations. Players: oracle (the reference of every modality), random, "
                    "explorer, policy (--policy FILE), local:POLICY (the local model server: oracle, text-only, "
                    "module:callable) or any model name on --base-url. Writes OUTPUT_DIR/results.jsonl (one line "
                    "per item, --resume continues), suite.json, summary.json and index.html. With no arguments it "
                    "runs offline on the local model server. Modalities: " + ", ".join(MODALITIES))
    parser.add_argument("--models", nargs="+", metavar="MODEL", default=list(DEFAULT_MODELS),
                        help=f"players (default {' '.join(DEFAULT_MODELS)})")
    parser.add_argument("--sizes", nargs="+", metavar="HxW", default=list(defaults.sizes),
                        help=f"benchmark grid sizes, walls included (default {' '.join(defaults.sizes)})")
    parser.add_argument("--count", type=int, default=defaults.count, help=f"mazes per size (default {defaults.count})")
    parser.add_argument("--seed", type=int, default=defaults.seed, help="maze i of a size uses SEED+i (default 0)")
    parser.add_argument("--output-dir", default=defaults.output_dir, help=f"default ./{defaults.output_dir}")
    parser.add_argument("--modalities", nargs="+", metavar="NAME", choices=list(MODALITIES),
                        help="run only these modalities (default all)")
    parser.add_argument("--trials", type=int, default=1, help="trials per player, maze and modality (default 1)")
    parser.add_argument("--generations", metavar="DIR",
                        help="generated images/videos to score, one sub-folder per generation model, files named "
                             "<task>_targeted_solution.png or <task>.mp4 after OUTPUT_DIR/tasks")
    parser.add_argument("--judge-model", metavar="MODEL", help="also judge the generations with this chat model "
                                                               "(a name on --base-url or local:POLICY)")
    parser.add_argument("--policy", metavar="FILE", help="model.pt of a policy trained by agents.rl.ppo_native "
                                                        "(plays as the player 'policy')")
    parser.add_argument("--no-anti-cheat", dest="anti_cheat", action="store_false",
                        help="show the mazes as they are (no symmetry, symbols or nonce)")
    endpoint = parser.add_argument_group("model endpoint of the chat models that are not local: (flag > environment "
                                         "variable > --model-config > default; API keys come only from "
                                         "environment variables)")
    endpoint.add_argument("--base-url", help="OpenAI-compatible base URL; env MAZE_ENVS_BASE_URL (default: OpenAI)")
    endpoint.add_argument("--provider", choices=PROVIDERS, help="env MAZE_ENVS_PROVIDER (default openai)")
    endpoint.add_argument("--api-key-env", help="environment variable holding the API key (default OPENAI_API_KEY)")
    endpoint.add_argument("--timeout", type=float, help="seconds per request (default 60)")
    endpoint.add_argument("--model-config", help="YAML file of ModelConfig fields (base_url, provider, timeout, "
                                                 "prices, ...)")
    add_run_flags(parser, workers=2, resume_help="keep the items already in OUTPUT_DIR/results.jsonl and run the rest")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the suite, print the leaderboard lines and where the report is; return 0."""
    from maze_envs.evaluators.suite import SuiteConfig, run_suite
    from maze_envs.suite_toolkit import toolkit

    config = SuiteConfig(models=tuple(args.models), sizes=tuple(args.sizes), count=args.count, seed=args.seed,
                         output_dir=args.output_dir, modalities=tuple(args.modalities or ()), trials=args.trials,
                         generations=args.generations, judge_model=args.judge_model, policy=args.policy,
                         anti_cheat=args.anti_cheat, base_url=args.base_url, provider=args.provider,
                         api_key_env=args.api_key_env, timeout=args.timeout,
                         model_config=args.model_config)
    result = run_suite(config, toolkit(args.policy), options=run_options(args))
    for player, table in result.summary["success"].items():
        cells = ", ".join(f"{m} {t['all']['solved']}/{t['all']['n']}" for m, t in table.items())
        print(f"{player}: {cells}")
    print(f"suite: {result.summary['counts']['items']} items in {result.summary['wall_time_s']:.1f} s; "
          f"report {result.report_path}")
    return 0
