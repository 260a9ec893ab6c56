"""Offline evaluators: pixel metrics, VLM judge, benchmarks (they consume maze_envs.core definitions).

This folder is the package ``maze_envs.evaluators``; it has no other import name."""

from maze_envs.consumers import refuse_top_level_name

refuse_top_level_name(__name__)
