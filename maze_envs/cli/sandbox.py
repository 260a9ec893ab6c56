"""``maze-envs sandbox cli|ai|partial-observe|api``: play a benchmark maze in the terminal, watch a model or a
baseline play one (full map or partial view) move by move, or serve MazeBench's sandbox HTTP API."""

from __future__ import annotations

import argparse
import sys

from maze_envs.cli.protocol_flag import add_protocol_flag
from maze_envs.core.errors import MazeConfigError
from maze_envs.protocols import load, protocol

from .model_flags import add_model_flags, model_client
from .run_flags import DeprecatedFlag


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``sandbox`` subcommand and its targets."""
    parser = sub.add_parser("sandbox", help="play benchmark mazes: terminal (cli), a model or baseline playing "
                                            "(ai, partial-observe), or HTTP API (api)",
                            description="MazeBench's sandboxes on the benchmark mazes (positions are (row, col) "
                                        "on the benchmark grid, origin top-left).")
    targets = parser.add_subparsers(dest="target", metavar="TARGET", required=True)

    cli = targets.add_parser("cli", help="play one maze in the terminal",
                             description="Commands, one a line: w/a/s/d or up/down/left/right, h help, r reset, "
                                         "i info, p shortest path, q quit.")
    cli.add_argument("maze", nargs="?", help="maze name, e.g. maze_9x9_0 (default: the first in --mazes-dir)")
    cli.add_argument("--mazes-dir", default="mazes", help="directory of benchmark mazes (default mazes)")
    cli.add_argument("--visibility", type=int, default=-1,
                     help="show only cells within k moves, the rest as '?' (default -1: everything)")
    add_protocol_flag(cli, "sandbox")
    cli.set_defaults(func=_run_cli)

    for mode, what in (("ai", "the whole maze"), ("partial-observe", "only the cells within --visibility")):
        play = targets.add_parser(mode, help=f"watch a model or baseline play one maze seeing {what}",
                                  description=f"Run one model (or baseline:oracle, baseline:random"
                                              f"{', baseline:explorer' if mode == 'partial-observe' else ''}) on one "
                                              f"maze seeing {what}, and print each step: the view, the move and the "
                                              f"feedback, then the outcome.")
        play.add_argument("maze", nargs="?", help="maze name, e.g. maze_9x9_0 (default: the first in --mazes-dir)")
        play.add_argument("--mazes-dir", default="mazes", help="directory of benchmark mazes (default mazes)")
        play.add_argument("--max-calls", type=int, default=50, help="API calls allowed (default 50)")
        play.add_argument("--max-steps", dest="max_calls", type=int, action=DeprecatedFlag, new="--max-calls")
        play.add_argument("--max-moves", type=int, help="cells moved allowed, counted apart from API calls "
                                                        "(default 4 x the grid's cells)")
        play.add_argument("--max-no-exploration-steps", type=int, default=20,
                          help="stop (failed) after this many decisions in a row reach no new cell (default 20)")
        play.add_argument("--memory", type=int, default=5, help="past turns recalled in each prompt (0 none, "
                                                                "-1 all; default 5)")
        if mode == "partial-observe":
            play.add_argument("--visibility", type=int, default=3, help="sight radius k in cells (default 3)")
            play.add_argument("--explored-map", action="store_true", help="prompts also show the map explored so far")
        play.add_argument("--seed", type=int, default=0, help="seed of the env and of baseline:random (default 0)")
        add_protocol_flag(play, "sandbox")
        add_model_flags(play)
        play.set_defaults(func=_run_play, mode=mode)

    api = targets.add_parser("api", help="serve the sandbox HTTP API",
                             description="Serve GET /health, /mazes, /state, /info, /render?show_path=true and "
                                         "POST /load {maze_name}, /reset, /step {action} on HOST:PORT.")
    api.add_argument("--mazes-dir", default="mazes", help="directory of benchmark mazes (default mazes)")
    api.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    api.add_argument("--port", type=int, default=5000, help="port (default 5000; 0 picks a free one)")
    add_protocol_flag(api, "sandbox")
    api.set_defaults(func=_run_api)


def _run_cli(args: argparse.Namespace) -> int:
    from maze_envs.evaluators.bench.sandbox.watch import find_bench_maze

    play = load(protocol(args.protocol, "sandbox").sandbox.terminal)
    play(find_bench_maze(args.mazes_dir, args.maze), sys.stdin, sys.stdout, visibility=args.visibility)
    return 0


def _run_play(args: argparse.Namespace) -> int:
    from maze_envs.agents.players import PLAYERS
    from maze_envs.evaluators.bench.sandbox.watch import WatchSettings, find_bench_maze

    if not args.model and not args.local_policy:
        raise MazeConfigError("name who plays: a chat model, or baseline:oracle, baseline:random or "
                              "baseline:explorer", parameter="model")
    settings = WatchSettings(
        args.mode, args.model or "maze-envs-local", max_calls=args.max_calls, max_moves=args.max_moves,
        max_no_exploration_steps=args.max_no_exploration_steps, memory=args.memory,
        visibility=getattr(args, "visibility", 3), explored_map=getattr(args, "explored_map", False),
        seed=args.seed).validated()
    maze = find_bench_maze(args.mazes_dir, args.maze)
    watch = load(protocol(args.protocol, "sandbox").sandbox.watch)
    return watch(maze, settings, PLAYERS, lambda: model_client(args), sys.stdout)


def _run_api(args: argparse.Namespace) -> int:
    from maze_envs.serving.app import LoopbackServer

    app = load(protocol(args.protocol, "sandbox").sandbox.app)
    server = LoopbackServer(app(args.mazes_dir), args.host, args.port)
    print(f"sandbox API on {server.url} (mazes from {args.mazes_dir}); Ctrl-C stops it", flush=True)
    server.serve_forever()
    return 0
