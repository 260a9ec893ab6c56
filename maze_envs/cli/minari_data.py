"""``maze-envs generate minari``: oracle, explorer and random episodes of chosen ids and sizes as local Minari
datasets (``maze_envs.datasets.minari_datasets``)."""

from __future__ import annotations

import argparse
from functools import partial
from typing import Any

from maze_envs.core.errors import MazeConfigError

POLICIES = ("oracle", "explorer", "random")


def register_target(targets: argparse._SubParsersAction) -> None:
    """Add the ``minari`` target to ``maze-envs generate``."""
    p = targets.add_parser(
        "minari", help="offline-RL datasets (Minari) of oracle, explorer and random episodes",
        description="Record EPISODES episodes per env id, size and policy into local Minari datasets named "
                    "maze-envs/<env>/<policy>-v0 (in MINARI_DATASETS_PATH, else ~/.minari/datasets), infos "
                    "included; episode i is reset with seed SEED+i. A size NxN turns a grid id into its sized id "
                    "(Maze-PartialObs-v0, 9x9 -> Maze-PartialObs-9x9-v0); other ids ignore sizes. minari.load_dataset"
                    "(id).recover_environment() rebuilds the env. Needs the minari extra.")
    p.add_argument("--envs", nargs="+", default=["Maze-v0", "Maze-PartialObs-v0"], metavar="ID",
                   help="env ids (default Maze-v0 Maze-PartialObs-v0)")
    p.add_argument("--sizes", nargs="+", default=["5x5", "9x9"], metavar="NxN",
                   help="block-grid sizes of the grid ids, walls included: 5x5 7x7 9x9 13x13 (default 5x5 9x9)")
    p.add_argument("--policies", nargs="+", default=list(POLICIES), choices=POLICIES,
                   help="who plays (default: all three; the explorer needs a partial view)")
    p.add_argument("--episodes", type=int, default=100, help="episodes per dataset (default 100)")
    p.add_argument("--seed", type=int, default=0, help="base seed; episode i uses SEED+i (default 0)")
    p.set_defaults(func=_run)


def _player(policy: str, env: Any, seed: int) -> Any:
    """Return the agent ``policy`` of ``env``: the openings' own oracle and random for the openings env, the
    grid baselines otherwise."""
    if "Openings" in type(env.unwrapped).__name__:
        from maze_envs.agents.openings import OpeningsOracleAgent, OpeningsRandomAgent

        if policy == "explorer":
            raise MazeConfigError("the explorer walks a partial view; the openings env has none", parameter="policies")
        return OpeningsOracleAgent() if policy == "oracle" else OpeningsRandomAgent(seed)
    from maze_envs.agents.players import PLAYERS

    return PLAYERS.baseline(policy, env, seed)


def _ids(envs: list[str], sizes: list[str]) -> list[str]:
    import gymnasium as gym

    from maze_envs.envs.registration import GRID_SIDES, SIZED_FAMILIES, sized_id

    sides = []
    for size in sizes:
        rows, _, cols = size.partition("x")
        if not (rows.isdigit() and rows == cols and int(rows) in GRID_SIDES):
            raise MazeConfigError(f"{size!r} is not one of {', '.join(f'{s}x{s}' for s in GRID_SIDES)}",
                                  parameter="sizes")
        sides.append(int(rows))
    out = []
    for env_id in envs:
        if env_id not in gym.registry:
            raise MazeConfigError(f"{env_id!r} is not a registered id", parameter="envs")
        out += [sized_id(env_id, s) for s in sides] if env_id in SIZED_FAMILIES else [env_id]
    return out


def _run(args: argparse.Namespace) -> int:
    from maze_envs.datasets.minari_datasets import record_dataset

    for env_id in _ids(args.envs, args.sizes):
        for policy in args.policies:
            try:
                done = record_dataset(env_id, partial(_player, policy), policy, episodes=args.episodes,
                                      seed=args.seed)
            except MazeConfigError as exc:
                if exc.parameter != "env_id":
                    raise
                raise MazeConfigError(exc.detail, parameter="envs") from None
            print(f"{done.dataset_id}: {done.episodes} episodes, {done.steps} steps of {policy} in {env_id}")
    return 0
