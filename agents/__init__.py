"""Agents that act in maze-envs environments: baselines, LLM-backed and navigation agents.

This folder is the package ``maze_envs.agents``; it has no other import name."""

from maze_envs.consumers import refuse_top_level_name

refuse_top_level_name(__name__)
