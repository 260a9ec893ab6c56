"""Command-line flags from an argument dataclass, as the single-file trainers read them."""

from __future__ import annotations

import argparse
import json
from dataclasses import fields
from typing import Any, TypeVar

ArgsT = TypeVar("ArgsT")


def parse_dataclass_args(cls: type[ArgsT], description: str, argv: list[str] | None = None) -> ArgsT:
    """Return a ``cls`` instance from ``--kebab-case`` flags, one per field (dict fields are JSON, booleans are
    ``--flag``/``--no-flag``, the others take the type of their default)."""
    parser = argparse.ArgumentParser(description=description)
    defaults: Any = cls()
    for f in fields(defaults):
        flag, default = "--" + f.name.replace("_", "-"), getattr(defaults, f.name)
        if isinstance(default, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default)
        elif isinstance(default, dict):
            parser.add_argument(flag, type=json.loads, default=default)
        else:
            parser.add_argument(flag, type=type(default), default=default)
    return cls(**vars(parser.parse_args(argv)))
