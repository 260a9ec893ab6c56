"""Package layout (the rest of the metadata is in pyproject.toml): the repository's top-level ``agents/`` and
``evaluators/`` folders install as ``maze_envs.agents`` and ``maze_envs.evaluators``, so maze-envs never writes a
top-level ``agents`` package (openai-agents' import name) into site-packages. See ``maze_envs/consumers.py``."""

from setuptools import find_packages, setup

CONSUMERS = ("agents", "evaluators")

setup(
    packages=find_packages(include=["maze_envs", "maze_envs.*"])
    + [f"maze_envs.{name}" for name in find_packages(include=[f"{c}{s}" for c in CONSUMERS for s in ("", ".*")])],
    package_dir={f"maze_envs.{name}": name for name in CONSUMERS},
)
