"""Terminal play of the sandbox game, one command a line: w/a/s/d or up/down/left/right move, h help,
r reset, i info, p the shortest path, q quit (MazeBench's ``run_sandbox.py cli`` keys)."""

from __future__ import annotations

from typing import TextIO

from ..mazes import BenchMaze
from .game import SANDBOX_SYMBOLS, SandboxGame

KEYS = {"w": "up", "s": "down", "a": "left", "d": "right", "up": "up", "down": "down", "left": "left",
        "right": "right"}
LEGEND = SANDBOX_SYMBOLS.legend(("wall", "start", "goal", "agent", "masked", "route"), entry="{symbol} {label}",
                                labels={"agent": "you", "masked": "not visible", "route": "shortest path"})
HELP = ("Commands: w/a/s/d or up/down/left/right move, h help, r reset, i info, p shortest path, q quit.\n"
        f"Legend: {LEGEND}.")


def play_terminal(game: SandboxGame, commands: TextIO, out: TextIO, *, visibility: int = -1) -> dict:
    """Play ``game`` from the ``commands`` lines, writing to ``out``; return the final state when the player
    quits, the input ends or the goal is reached. ``visibility`` k >= 0 masks cells beyond k moves with ``?``."""
    print(f"Maze {game.maze.name}. {HELP}", file=out)
    print(game.render(visibility=visibility), file=out)
    for line in commands:
        command = line.strip().lower()
        if command in ("q", "quit"):
            break
        if command in ("h", "help"):
            print(HELP, file=out)
        elif command in ("r", "reset"):
            game.reset()
            print("Back at the start.", file=out)
            print(game.render(visibility=visibility), file=out)
        elif command in ("i", "info"):
            print(", ".join(f"{k}: {v}" for k, v in game.info().items()), file=out)
        elif command in ("p", "path"):
            print(game.render(show_path=True, visibility=visibility), file=out)
        elif command in KEYS:
            outcome, reward, _ = game.step(KEYS[command])
            print(f"{outcome.get('error') or outcome.get('message') or outcome.get('info')} (reward {reward:g}, "
                  f"steps {game.steps})", file=out)
            print(game.render(visibility=visibility), file=out)
            if game.done:
                print(f"Goal reached in {game.steps} steps.", file=out)
                break
        elif command:
            print(f"Unknown command {command!r}; h for help.", file=out)
    return game.state()


def play_maze(maze: BenchMaze, commands: TextIO, out: TextIO, *, visibility: int = -1) -> dict:
    """Play ``maze`` in the terminal by this project's rules (the default protocol's ``SandboxRules.terminal``);
    return the final state (``play_terminal``)."""
    return play_terminal(SandboxGame(maze), commands, out, visibility=visibility)
