"""``load_class("package.module:ClassName")``: import an agent class named on the command line."""

from __future__ import annotations

import importlib
import inspect


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
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
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
