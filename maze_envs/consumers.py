"""Where the ``agents`` and ``evaluators`` packages are imported from: ``maze_envs.agents`` and
``maze_envs.evaluators``.

The repository keeps them as top-level folders (``agents/``, ``evaluators/``), but an installed maze-envs ships
them inside ``maze_envs`` (``setup.py`` maps the folders there), so it never installs a top-level ``agents``:
that name belongs to openai-agents, and two distributions writing one folder break each other on install and
uninstall. Library code (the CLI, and ``agents``/``evaluators`` reaching each other) imports the
``maze_envs.`` names.

In a source checkout, where the top-level ``agents`` and ``evaluators`` on ``sys.path`` are this repository's
folders (tests, examples and benchmarks import them so), ``install()`` makes ``maze_envs.agents[.x]`` the very
same modules as ``agents[.x]``: one module object per file, whichever name imports it first, so classes and
exceptions compare equal across both names. An installed maze-envs (its ``maze_envs/agents`` a real folder) and
a top-level package of another distribution are left alone.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

PACKAGES = ("agents", "evaluators")
PREFIX = "maze_envs."


def _checkout_root() -> Path:
    return Path(__file__).resolve().parents[1]


def checkout_package(name: str) -> bool:
    """Return whether the top-level package ``name`` on ``sys.path`` is this source checkout's folder (and maze-envs
    is not installed with its own ``maze_envs/<name>``)."""
    here = Path(__file__).resolve().parent
    if (here / name).exists():
        return False
    spec = importlib.machinery.PathFinder.find_spec(name)
    if spec is None or spec.origin is None:
        return False
    return Path(spec.origin).resolve() == _checkout_root() / name / "__init__.py"


class SourceAliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``maze_envs.agents[.x]``/``maze_envs.evaluators[.x]`` in a source checkout as the top-level modules."""

    def __init__(self) -> None:
        self._active: dict[str, bool] = {}
        self._specs: dict[str, object] = {}

    def _real(self, fullname: str) -> str | None:
        if not fullname.startswith(PREFIX):
            return None
        real = fullname[len(PREFIX):]
        top = real.split(".", 1)[0]
        if top not in PACKAGES:
            return None
        if top not in self._active:
            self._active[top] = checkout_package(top)
        return real if self._active[top] else None

    def find_spec(self, fullname: str, path=None, target=None):
        """Return a spec loading ``fullname`` as its top-level module, or None where this finder does not apply."""
        real = self._real(fullname)
        if real is None:
            return None
        real_spec = importlib.util.find_spec(real)
        if real_spec is None:
            return None
        spec = importlib.util.spec_from_loader(fullname, self, origin=real_spec.origin,
                                               is_package=real_spec.submodule_search_locations is not None)
        spec.has_location = real_spec.has_location
        return spec

    def create_module(self, spec) -> ModuleType:
        """Return the top-level module (imported now if it was not yet)."""
        module = importlib.import_module(self._real(spec.name))
        self._specs[spec.name] = module.__spec__
        return module

    def get_code(self, fullname: str):
        """Return the code object of the top-level module behind ``fullname`` (what ``python -m`` runs)."""
        real = self._real(fullname)
        spec = importlib.util.find_spec(real) if real is not None else None
        if spec is None or spec.loader is None or not hasattr(spec.loader, "get_code"):
            raise ImportError(f"no code for {fullname}", name=fullname)
        return spec.loader.get_code(real)

    def exec_module(self, module: ModuleType) -> None:
        """Give the module back its own spec (the import system set the alias spec on it); it has run already."""
        module.__spec__ = self._specs.pop(module.__spec__.name, module.__spec__)


def install() -> None:
    """Put one ``SourceAliasFinder`` first on ``sys.meta_path`` (idempotent)."""
    if not any(isinstance(finder, SourceAliasFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, SourceAliasFinder())
