"""``maze-envs play ENV_ID``: play a maze env yourself in a pygame window."""

from __future__ import annotations

import argparse

from maze_envs.core.generators import GENERATORS, PLACEMENTS
from maze_envs.core.words import counted


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``play`` subcommand."""
    parser = sub.add_parser(
        "play", help="play a maze env in a pygame window",
        description="Open a pygame window on a maze env: arrow keys or WASD move one block, r starts a new "
                    "maze, p toggles the shortest-path overlay, q or Esc quits. Turn-based: nothing moves "
                    "until you press a key.")
    parser.add_argument("env_id", nargs="?", default="Maze-PartialObs-v0",
                        help="environment id (default Maze-PartialObs-v0; also Maze-v0)")
    parser.add_argument("--rows", type=int, default=None, help="maze rows in cells (default 10)")
    parser.add_argument("--cols", type=int, default=None, help="maze columns in cells (default 10)")
    parser.add_argument("--algorithm", choices=list(GENERATORS), default=None, help="maze generator (default dfs)")
    parser.add_argument("--placement", choices=PLACEMENTS, default=None,
                        help="start/goal placement (default corner)")
    parser.add_argument("--visibility", type=int, default=None,
                        help="view radius k of the partial env (default 3)")
    parser.add_argument("--maze", default=None, help="play this maze file (our JSON or the benchmark's JSON)")
    parser.add_argument("--mazes-dir", default=None, help="cycle through this dataset directory")
    parser.add_argument("--seed", type=int, default=None, help="seed of the first maze (default random)")
    parser.add_argument("--cell-px", type=int, default=24, help="pixels per block (default 24)")
    parser.add_argument("--fps", type=int, default=60, help="redraw rate (default 60)")
    parser.set_defaults(func=run)


def env_kwargs(args: argparse.Namespace) -> dict:
    """Return the ``gym.make`` keyword arguments the flags ask for (unset flags keep the env's defaults)."""
    kwargs = {"cell_px": args.cell_px}
    for flag in ("rows", "cols", "algorithm", "placement", "visibility", "maze", "mazes_dir"):
        value = getattr(args, flag)
        if value is not None:
            kwargs[flag] = value
    return kwargs


def run(args: argparse.Namespace) -> int:
    """Play until the window is closed; print what happened."""
    from maze_envs.play.human import play_env

    result = play_env(args.env_id, seed=args.seed, fps=args.fps, **env_kwargs(args))
    print(f"played {counted(result.episodes, 'episode')}, reached the goal {counted(result.successes, 'time')} in "
          f"{counted(result.moves, 'move')}")
    return 0
