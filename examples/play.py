"""Play a maze yourself in a pygame window: arrow keys or WASD move, r a new maze, p the shortest path, q quits.

    python3 examples/play.py                 # Maze-PartialObs-v0, 8x8, view radius 3
    python3 examples/play.py --autoplay      # the window plays itself along the shortest path, then quits

``--autoplay`` presses the keys a player would, one a frame (how CI runs this example, headless with
SDL_VIDEODRIVER=dummy). The same window is ``maze-envs play``.
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym  # noqa: E402

import maze_envs  # noqa: E402,F401
from maze_envs.core.maze import MOVE_NAMES, move_index  # noqa: E402
from maze_envs.play.human import PlaySession  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--autoplay", action="store_true", help="press the shortest path's keys, then q")
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()

env = gym.make("Maze-PartialObs-v0", rows=8, cols=8, visibility=3, render_mode="rgb_array")
session = PlaySession(env, seed=args.seed)
presses = []
if args.autoplay:
    import pygame

    env.reset(seed=args.seed)  # the session's first episode: the same seed, the same maze
    route = env.unwrapped.shortest_route()
    presses = [getattr(pygame, f"K_{MOVE_NAMES[move_index(a, b)].upper()}")
               for a, b in zip(route, route[1:], strict=False)] + [pygame.K_q]
result = session.run(presses=presses)
print(f"played {result.episodes} episode(s): {result.successes} reached the goal, {result.moves} moves, "
      f"{result.frames} frames drawn")
