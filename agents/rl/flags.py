"""Command-line flags from an argument dataclass, as the single-file trainers read them, and the one way such a
script runs: a bad flag or input is one line on stderr and exit status 2, never a traceback."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import fields
from typing import Any, Callable, TypeVar

from maze_envs.core.errors import MazeEnvsError, message_for_flags

ArgsT = TypeVar("ArgsT")

# What each field of the trainers' ``Args`` sets (shown by ``--help``, with its default).
FLAG_HELP = {
    "env_id": "registered env id to train on, with Box observations or a Dict of them (the grid ids such as "
              "Maze-PartialObs-v0 and their -Flat variants)",
    "env_kwargs": "JSON object of the env's keyword arguments, e.g. '{\"rows\": 5, \"cols\": 5}'",
    "ego_map": "observe the dead-reckoned egocentric map instead of the window (Maze-PartialObs-v0)",
    "seed": "seed of the envs, the network and the sampling",
    "total_timesteps": "env steps to train for, over all envs",
    "num_envs": "envs stepped in parallel",
    "num_steps": "steps per env in each rollout",
    "learning_rate": "Adam's learning rate",
    "anneal_lr": "decay the learning rate linearly to 0",
    "gamma": "discount factor",
    "gae_lambda": "lambda of generalised advantage estimation",
    "num_minibatches": "minibatches per update epoch",
    "update_epochs": "epochs over each rollout",
    "clip_coef": "PPO's clipping coefficient",
    "ent_coef": "weight of the entropy bonus",
    "vf_coef": "weight of the value loss",
    "max_grad_norm": "gradient norm clip",
    "hidden": "units per hidden layer",
    "network": "mlp (separate actor and critic MLPs) or cnn (a shared CNN over the ego map)",
    "reveal_bonus": "reward per newly revealed block (partial view)",
    "idle_end_fails": "count an episode the env ends for exploring nothing new as a failure, not a time limit",
    "gru": "units of a GRU memory after the trunk, zeroed at each episode's start (0: no memory)",
    "log_every": "updates run as one compiled chunk between progress.csv rows",
    "devices": "local devices to shard the envs across (0: all)",
    "torch_threads": "torch's CPU threads",
    "out": "output folder (progress.csv and the trained policy file)",
}


def _json_object(text: str) -> dict[str, Any]:
    """Return the JSON object ``text`` holds; raises ``argparse.ArgumentTypeError`` for other text."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"must be a JSON object, got {text[:60]!r}")
    return value


def dataclass_parser(cls: type, description: str, prog: str | None = None) -> argparse.ArgumentParser:
    """Return the parser of ``cls``'s fields as ``--kebab-case`` flags (dict fields are JSON objects, booleans are
    ``--flag``/``--no-flag``, the others take the type of their default), each described by ``FLAG_HELP``."""
    parser = argparse.ArgumentParser(prog=prog, description=description,
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    defaults: Any = cls()
    for f in fields(defaults):
        flag, default = "--" + f.name.replace("_", "-"), getattr(defaults, f.name)
        text = FLAG_HELP.get(f.name, f.name.replace("_", " "))
        if isinstance(default, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default, help=text)
        elif isinstance(default, dict):
            parser.add_argument(flag, type=_json_object, default=default, help=text, metavar="JSON")
        else:
            parser.add_argument(flag, type=type(default), default=default, help=text)
    return parser


def parse_dataclass_args(cls: type[ArgsT], description: str, argv: list[str] | None = None) -> ArgsT:
    """Return a ``cls`` instance from ``--kebab-case`` flags (``dataclass_parser``)."""
    return cls(**vars(dataclass_parser(cls, description).parse_args(argv)))


def run_script(cls: type, description: str, train: Callable[[Any], Any], argv: list[str] | None = None) -> int:
    """Parse ``argv`` into ``cls`` and run ``train`` on it, printing ``wrote <what it returns>``; return the exit
    status: 0, or 2 after one line on stderr (naming the flag) for a bad flag or a ``MazeEnvsError``/``OSError``
    from the run."""
    parser = dataclass_parser(cls, description)
    args = cls(**vars(parser.parse_args(argv)))
    return run_reporting(parser.prog, [f.name for f in fields(cls)], lambda: print(f"wrote {train(args)}"))


def run_reporting(prog: str, names: Iterable[str], action: Callable[[], Any]) -> int:
    """Return 0 once ``action()`` ran, or 2 after one line on stderr for a ``MazeEnvsError``/``OSError`` it raised,
    naming the ``--kebab-case`` flag of the parameter at fault where it is one of ``names``."""
    try:
        action()
    except (MazeEnvsError, OSError) as exc:
        flags = {name: "--" + name.replace("_", "-") for name in names}
        print(f"{prog}: error: {message_for_flags(exc, flags)}", file=sys.stderr)
        return 2
    return 0
