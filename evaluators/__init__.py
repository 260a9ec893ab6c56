"""Offline evaluators: pixel metrics, VLM judge, benchmarks (they consume maze_envs.core definitions)."""
