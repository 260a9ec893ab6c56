"""The one import name of the repository's ``agents/`` and ``evaluators/`` folders: ``maze_envs.agents`` and
``maze_envs.evaluators``.

The folders sit at the top of the repository, but they are packages of maze-envs, never top-level ones: the name
``agents`` belongs to openai-agents, and a module imported under two names pickles under whichever imported it
first, which a fresh interpreter elsewhere may not be able to import (a Ray worker, a process pool, a saved policy).

- A wheel ships them as real folders ``maze_envs/agents`` and ``maze_envs/evaluators`` (``setup.py`` maps them).
- An editable install maps them so too (setuptools' editable finder).
- A source checkout used without installing gets ``CheckoutConsumerFinder``, which loads each folder under its
  ``maze_envs.`` name; their submodules then follow from the package's ``__path__``.

Importing a folder under its bare top-level name (``import agents``) fails with an ``ImportError`` naming the
``maze_envs.`` name (see ``refuse_top_level_name``).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path

PACKAGES = ("agents", "evaluators")
PREFIX = "maze_envs."


def canonical_name(name: str) -> str | None:
    """Return the ``maze_envs.`` name of a module named under a consumer folder's bare top-level name (``agents.x``
    gives ``maze_envs.agents.x``), or None for any other name."""
    return PREFIX + name if name.split(".", 1)[0] in PACKAGES else None


def refuse_top_level_name(name: str) -> None:
    """Raise ``ImportError`` unless ``name`` (a consumer package's ``__name__``) is its ``maze_envs.`` name."""
    if name.startswith(PREFIX):
        return
    raise ImportError(f"{name!r} is a folder of maze-envs, imported as {canonical_name(name)!r}; "
                      f"write 'import {canonical_name(name)}' instead", name=name)


class CheckoutConsumerFinder(importlib.abc.MetaPathFinder):
    """Finds ``maze_envs.agents`` and ``maze_envs.evaluators`` in the top-level folders of a source checkout."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def find_spec(self, fullname: str, path=None, target=None) -> importlib.machinery.ModuleSpec | None:
        """Return the spec of a consumer package of this checkout, or None for every other name."""
        if not fullname.startswith(PREFIX) or fullname[len(PREFIX):] not in PACKAGES:
            return None
        folder = self.root / fullname[len(PREFIX):]
        if not (folder / "__init__.py").is_file():
            return None
        return importlib.util.spec_from_file_location(fullname, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])


def install() -> None:
    """Put a ``CheckoutConsumerFinder`` first on ``sys.meta_path`` when ``maze_envs`` runs from a source checkout
    (one without ``maze_envs/agents``); idempotent."""
    package = Path(__file__).resolve().parent
    if (package / PACKAGES[0]).exists():
        return
    if not any(isinstance(finder, CheckoutConsumerFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, CheckoutConsumerFinder(package.parent))
