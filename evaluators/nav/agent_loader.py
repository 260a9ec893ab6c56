"""``load_class("package.module:ClassName")``: import an agent class named on the command line.

An agent file written for ABot-Navigation imports ``abotn_evaluator.interface.point_goal`` (or ``.poi_goal``);
unless that package is installed, ``load_class`` first makes those names aliases of ``maze_envs.nav.interface``,
so such a file runs unchanged.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
import types

from maze_envs.consumers import canonical_name

ABOT_ALIASES = {"abotn_evaluator.interface.point_goal": "maze_envs.nav.interface.point_goal",
                "abotn_evaluator.interface.poi_goal": "maze_envs.nav.interface.poi_goal"}


def install_abot_aliases() -> bool:
    """Make ABot-Navigation's interface modules (``abotn_evaluator.interface.point_goal`` / ``.poi_goal``) aliases
    of ours unless the real ``abotn_evaluator`` is installed or imported; return whether the aliases are in place."""
    existing = sys.modules.get("abotn_evaluator")
    if existing is not None:
        return bool(getattr(existing, "__maze_envs_alias__", False))
    if importlib.util.find_spec("abotn_evaluator") is not None:
        return False
    package = types.ModuleType("abotn_evaluator", "Aliases of maze_envs.nav.interface for ABot-Navigation agents.")
    package.__path__ = []
    package.__maze_envs_alias__ = True
    package.interface = importlib.import_module("maze_envs.nav.interface")
    sys.modules["abotn_evaluator"] = package
    sys.modules["abotn_evaluator.interface"] = package.interface
    for alias, target in ABOT_ALIASES.items():
        sys.modules[alias] = importlib.import_module(target)
    return True


def load_class(module_path: str) -> type:
    """Return the class named by ``"package.module:ClassName"``.

    Raises ``ValueError`` unless there is exactly one ``:`` with text on both sides, ``ImportError`` (with the
    original error) when the module cannot be imported, ``AttributeError`` (listing the module's classes) when
    the name is missing, and ``TypeError`` when it names something that is not a class.
    """
    if not isinstance(module_path, str) or module_path.count(":") != 1:
        raise ValueError(f"expected 'package.module:ClassName' with exactly one ':', got {module_path!r}")
    module_name, class_name = (part.strip() for part in module_path.split(":"))
    if not module_name or not class_name:
        raise ValueError(f"expected 'package.module:ClassName' with both parts non-empty, got {module_path!r}")
    install_abot_aliases()
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        renamed = canonical_name(module_name)
        if renamed is not None:
            raise ImportError(f"cannot import module {module_name!r}: maze-envs' agents and evaluators are imported "
                              f"under maze_envs, use '{renamed}:{class_name}'") from exc
        raise ImportError(f"cannot import module {module_name!r} (from {module_path!r}): {exc}; is it installed "
                          "or on PYTHONPATH?") from exc
    if not hasattr(module, class_name):
        classes = sorted(name for name, obj in vars(module).items()
                         if inspect.isclass(obj) and obj.__module__ == module.__name__)
        raise AttributeError(f"module {module_name!r} has no {class_name!r}; its classes: "
                             f"{', '.join(classes) or '(none)'}")
    obj = getattr(module, class_name)
    if not inspect.isclass(obj):
        raise TypeError(f"{module_path!r} is a {type(obj).__name__}, not a class")
    return obj
