"""``maze-envs sandbox cli|api``: play a benchmark maze in the terminal, or serve MazeBench's sandbox HTTP API."""

from __future__ import annotations

import argparse
import sys

from maze_envs.core.errors import MazeConfigError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``sandbox`` subcommand and its targets."""
    parser = sub.add_parser("sandbox", help="play benchmark mazes: terminal (cli) or HTTP API (api)",
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
    cli.set_defaults(func=_run_cli)

    api = targets.add_parser("api", help="serve the sandbox HTTP API",
                             description="Serve GET /health, /mazes, /state, /info, /render?show_path=true and "
                                         "POST /load {maze_name}, /reset, /step {action} on HOST:PORT.")
    api.add_argument("--mazes-dir", default="mazes", help="directory of benchmark mazes (default mazes)")
    api.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    api.add_argument("--port", type=int, default=5000, help="port (default 5000; 0 picks a free one)")
    api.set_defaults(func=_run_api)


def _run_cli(args: argparse.Namespace) -> int:
    from evaluators.bench.mazes import load_bench_maze
    from evaluators.bench.sandbox.api import maze_files
    from evaluators.bench.sandbox.game import SandboxGame
    from evaluators.bench.sandbox.terminal import play_terminal

    files = maze_files(args.mazes_dir)
    if not files:
        raise MazeConfigError(f"{args.mazes_dir}: no maze_<H>x<W>_<i>.json files", parameter="mazes_dir")
    name = args.maze or next(iter(files))
    if name not in files:
        raise MazeConfigError(f"no maze {name!r} in {args.mazes_dir}", parameter="maze")
    game = SandboxGame(load_bench_maze(files[name], files[name].parent.name))
    play_terminal(game, sys.stdin, sys.stdout, visibility=args.visibility)
    return 0


def _run_api(args: argparse.Namespace) -> int:
    from evaluators.bench.sandbox.api import sandbox_app
    from maze_envs.serving.app import LoopbackServer

    server = LoopbackServer(sandbox_app(args.mazes_dir), args.host, args.port)
    print(f"sandbox API on {server.url} (mazes from {args.mazes_dir}); Ctrl-C stops it", flush=True)
    server.serve_forever()
    return 0
