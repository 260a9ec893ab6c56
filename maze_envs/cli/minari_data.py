"""``maze-envs generate minari``: oracle, explorer and random episodes of chosen ids and sizes as local Minari
datasets (``maze_envs.datasets.minari_datasets``)."""

from __future__ import annotations

import argparse
import sys
from functools import partial
from typing import Any

from maze_envs.core.errors import MazeConfigError, MazeEnvsError, message_for_flags
from maze_envs.core.validate import integer, positive_int
from maze_envs.core.words import counted

POLICIES = ("oracle", "explorer", "random")


def register_target(targets: argparse._SubParsersAction) -> None:
    """Add the ``minari`` target to ``maze-envs generate``."""
    p = targets.add_parser(
        "minari", help="offline-RL datasets (Minari) of oracle, explorer and random episodes",
        description="Record EPISODES episodes per env id, size and policy into local Minari datasets named "
                    "maze-envs/<env>/<policy>-v0 (in MINARI_DATASETS_PATH, else ~/.minari/datasets), infos "
                    "included; episode i is reset with seed SEED+i. A size NxN turns a grid id into its sized id "
                    "(Maze-PartialObs-v0, 9x9 -> Maze-PartialObs-9x9-v0); other ids ignore sizes. minari.load_dataset"
                    "(id).recover_environment() rebuilds the env. Each dataset is published whole once recorded; one "
                    "that fails is reported and the others go on (exit status 1). A dataset that exists already is "
                    "refused unless --resume (keep it) or --overwrite (record it again). Needs the minari extra.")
    p.add_argument("--envs", nargs="+", default=["Maze-v0", "Maze-PartialObs-v0"], metavar="ID",
                   help="env ids (default Maze-v0 Maze-PartialObs-v0)")
    p.add_argument("--sizes", nargs="+", default=["5x5", "9x9"], metavar="NxN",
                   help="block-grid sizes of the grid ids, walls included: 5x5 7x7 9x9 13x13 (default 5x5 9x9)")
    p.add_argument("--policies", nargs="+", choices=POLICIES,
                   help="who plays (default: each of the three that can play the id; the explorer needs a partial "
                        "view of codes, so it skips Maze-v0 and the -Image ids); a policy named here that cannot "
                        "play an id is an error")
    p.add_argument("--episodes", type=int, default=100, help="episodes per dataset (default 100)")
    p.add_argument("--seed", type=int, default=0, help="base seed; episode i uses SEED+i (default 0)")
    again = p.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true",
                       help="keep the datasets that exist already and record only the missing ones")
    again.add_argument("--overwrite", action="store_true",
                       help="record every dataset again, replacing the ones that exist (each replaced whole)")
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


FLAGS = {name: f"--{name}" for name in ("envs", "sizes", "policies", "episodes", "seed")}


def one_line(exc: BaseException, limit: int = 300) -> str:
    """Return ``exc`` as one line of at most ``limit`` characters: its message naming the flag at fault, or its type
    and message when it is not one of ours."""
    text = " ".join(message_for_flags(exc, FLAGS).split())
    shown = text if isinstance(exc, MazeEnvsError) else f"{type(exc).__name__}: {text}"
    return shown if len(shown) <= limit else shown[:limit - 3] + "..."


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


def _plan(ids: list[str], policies: list[str] | None, seed: int) -> list[tuple[str, str]]:
    """Return the (id, policy) pairs to record: every policy named for every id, or without ``policies`` each policy
    that can play the id (the others said on stderr). Raises ``MazeConfigError`` naming ``envs`` for an id Minari
    cannot store and ``policies`` for a named policy that cannot play an id: refused before anything is recorded."""
    from maze_envs.datasets.minari_datasets import storable_env

    plan = []
    for env_id in ids:
        try:
            env = storable_env(env_id, {})
        except MazeConfigError as exc:
            raise MazeConfigError(exc.detail, parameter="envs") from None
        try:
            for policy in policies or POLICIES:
                try:
                    _player(policy, env, seed)
                except MazeConfigError as exc:
                    if policies:
                        raise
                    print(f"{env_id}: {policy} skipped ({exc.detail})", file=sys.stderr)
                    continue
                plan.append((env_id, policy))
        finally:
            env.close()
    return plan


def _run(args: argparse.Namespace) -> int:
    """Record every dataset asked for; return 0, or 1 when some could not be recorded (each said on stderr)."""
    from maze_envs.datasets.minari_datasets import MAX_SEED, _minari, dataset_name, record_dataset

    positive_int(args.episodes, parameter="episodes")
    integer(args.seed, 0, MAX_SEED - args.episodes + 1, parameter="seed")
    existing = set(_minari().list_local_datasets())
    failures = kept = 0
    for env_id, policy in _plan(_ids(args.envs, args.sizes), args.policies, args.seed):
        name = dataset_name(env_id, policy)
        if name in existing and not args.overwrite:
            if args.resume:
                kept += 1
                print(f"{name}: exists, kept (--resume)")
                continue
            failures += 1
            print(f"maze-envs generate minari: {name} exists already; --resume keeps it, --overwrite records it "
                  "again", file=sys.stderr)
            continue
        try:
            done = record_dataset(env_id, partial(_player, policy), policy, episodes=args.episodes,
                                  seed=args.seed, overwrite=args.overwrite)
        except Exception as exc:  # noqa: BLE001 - one dataset's failure is reported; the others go on
            failures += 1
            print(f"maze-envs generate minari: {name} failed: {one_line(exc)}", file=sys.stderr)
            continue
        print(f"{done.dataset_id}: {counted(done.episodes, 'episode')}, {counted(done.steps, 'step')} of {policy} "
              f"in {env_id}")
    if failures:
        print(f"maze-envs generate minari: {counted(failures, 'dataset')} not recorded ({kept} kept); the others "
              "are published", file=sys.stderr)
    return 1 if failures else 0
